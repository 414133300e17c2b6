/* admit: SageMaker Runtime's front door for a request, before any container:
 * authentication (SigV4, and on the OpenAI route a bearer token), then the
 * routing checks (the names, the endpoint, the variant), each refusal worded
 * as the service words it. Pure apart from the keys' signer (auth.h): the
 * caller gives the clock and the random state, and sends the refusal.
 *
 * Order: the signature or token first (403, or 401 on the OpenAI route),
 * then the endpoint name (400 ValidationError), X-Amzn-SageMaker-Session-Id
 * against SessionId's pattern (400 ValidationError; sess.h), the endpoint (400
 * "Endpoint NAME of account ACCOUNT not found."), an inference component's
 * name, the variant (X-Amzn-SageMaker-Target-Variant, else the one whose
 * container holds the session named, else drawn by weight). A request
 * whose path is none of SageMaker Runtime's is 404 UnknownOperationException
 * once signed. An inference component (the OpenAI path's, or
 * X-Amzn-SageMaker-Inference-Component) is checked against the naming rule,
 * then looked up among the control plane's (cpic.h): an unknown one, or one
 * of another endpoint, is refused; one with no copy serving gets the
 * no-capacity ValidationError (counted as its NoCapacityInvocationFailures,
 * in cpic's counts and CloudWatch's); else the call goes to one of the
 * component's copies on its variant (fleet_copies_pick: the one holding its
 * session, else by the variant's routing), never to the variant's instances. */
#ifndef EMU_ADMIT_H
#define EMU_ADMIT_H

#include <stdint.h>
#include <time.h>

#include "auth.h"
#include "buf.h"
#include "cpic.h"
#include "cwmetric.h"
#include "fleet.h"
#include "http.h"
#include "rtpath.h"

/* A request at the front door. */
struct admit_request {
    const struct http_head *h;
    const char *body;
    size_t len;
    const struct rtpath *path; /* the Runtime path it names, or NULL */
    time_t now;                /* wall clock: the signature's window */
    const char *account;       /* the account named in messages */
    struct cpic *ics;          /* the inference components, or NULL: none (borrowed) */
    const char *ic_region;     /* their region */
    /* CloudWatch's per-component counts (cwmetric_component), or NULL: none
     * (borrowed); received: the wall clock the call came, as counted there */
    struct cwmetric *cwmetrics;
    double received;
};

/* Why a request was refused, to be sent as the route's error. */
struct admit_refusal {
    int status;
    const char *type;          /* x-amzn-ErrorType code, or NULL */
    const char *code;          /* the OpenAI envelope's code when not from type, or NULL */
    const char *message;       /* NULL: null; else points into text */
    struct fleet_endpoint *ep; /* the endpoint its path named, when known (for the counts) */
    struct buf text;           /* owned */
};

void admit_refusal_init(struct admit_refusal *no);
void admit_refusal_free(struct admit_refusal *no);

/* Lets r through to a variant of f (counting the request at its endpoint and
 * variant) and returns it, or returns NULL with the refusal in *no. keys:
 * the accepted keys and bearer tokens; rng: draws the variant. */
struct fleet_variant *admit_request(struct auth *keys, struct fleet *f,
                                    const struct admit_request *r, uint64_t *rng,
                                    struct admit_refusal *no);

/* Sets the copies of every component of f to those the control plane (ics,
 * region) counts serving, 0 for one gone: copies removed drain, drained ones
 * with no call are released. The stats call it before they count copies. */
void admit_copies(struct fleet *f, const struct cpic *ics, const char *region);

#endif
