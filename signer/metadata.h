/* metadata: the ECS container credentials endpoint and EC2 instance metadata
 * (IMDSv2) over libcurl, with short time-outs, no proxy and no redirects.
 * It reads no environment: the credential chain passes the URLs in.
 * Errors go to a caller's buf as one line naming the URL. */
#ifndef SM_METADATA_H
#define SM_METADATA_H

#include <stdbool.h>

#include "buf.h"

#define METADATA_CONTAINER_BASE "http://169.254.170.2"
#define METADATA_IMDS_BASE      "http://169.254.169.254"
#define METADATA_IMDS_BASE_IPV6 "http://[fd00:ec2::254]"

enum metadata_error {
    METADATA_OK = 0,
    METADATA_ERR_NOMEM = -1,
    METADATA_ERR_INPUT = -2,       /* a URL or token that cannot be used */
    METADATA_ERR_UNREACHABLE = -3, /* no connection or no reply in time */
    METADATA_ERR_REPLY = -4,       /* an unexpected status or reply */
    METADATA_ERR_NO_ROLE = -5,     /* instance metadata: no IAM role attached */
};

/* The container endpoint URL from AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (relative,
 * put after METADATA_CONTAINER_BASE; wins when both are set) or _FULL_URI (full; a
 * plain http URL must point at a loopback address or the ECS/EKS agent). */
__attribute__((warn_unused_result)) int
metadata_container_url(const char *relative, const char *full, struct buf *url, struct buf *err);

/* GETs url, sending "Authorization: token" when token is not NULL, and puts
 * the reply body (at most json's cap) in json. */
__attribute__((warn_unused_result)) int metadata_container_fetch(const char *url, const char *token,
                                                                 int timeout_ms, struct buf *json,
                                                                 struct buf *err);

/* Instance metadata at base: PUT /latest/api/token, then the role name and its
 * credentials with the token; puts the credentials JSON (at most json's cap)
 * in json. A token
 * request refused with 403, 404 or 405 falls back to IMDSv1 (no token) unless
 * v1_disabled. */
__attribute__((warn_unused_result)) int metadata_imds_fetch(const char *base, bool v1_disabled,
                                                            int timeout_ms, struct buf *json,
                                                            struct buf *err);

#endif
