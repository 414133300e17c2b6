/* epfacts: the facts sm-endpoint and sm-mcp take from a data file
 * (tools/endpoint-facts.json, installed in PREFIX/share/wrk-sagemaker/tools/),
 * each with its source: the AWS vLLM container image of a region (the Deep
 * Learning Containers' ECR account per region, the repository and a release
 * tag), the rule the seed used to find the newest tag, the L4 instance types
 * with one GPU, and the known hourly prices per instance type and region.
 * The file is outside input: bounded (1 MiB), every member checked. */
#ifndef SM_EPFACTS_H
#define SM_EPFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define EPFACTS_MAX_REGIONS 64
#define EPFACTS_MAX_PRICES  64
#define EPFACTS_MAX_TYPES   8
#define EPFACTS_TEXT_MAX    1024

struct epfacts_account {
    char region[32];
    char account[16]; /* 12 digits */
};

struct epfacts_price {
    char type[48], region[32];
    double usd;    /* per hour */
    char date[16]; /* YYYY-MM-DD */
    char source[EPFACTS_TEXT_MAX];
};

struct epfacts {
    char repository[64];
    char tag[128];
    char tag_source[EPFACTS_TEXT_MAX];
    char newest_rule[EPFACTS_TEXT_MAX];
    char accounts_source[EPFACTS_TEXT_MAX];
    struct epfacts_account accounts[EPFACTS_MAX_REGIONS];
    size_t n_accounts;
    char l4[EPFACTS_MAX_TYPES][48]; /* the L4 single-GPU types, in priority order */
    size_t n_l4;
    struct epfacts_price prices[EPFACTS_MAX_PRICES];
    size_t n_prices;
};

enum epfacts_error {
    EPFACTS_OK = 0,
    EPFACTS_ERR_IO = -1,     /* the file cannot be read */
    EPFACTS_ERR_FORMAT = -2, /* it is not a facts file: err names the member */
    EPFACTS_ERR_NOMEM = -3,
};

/* The path of the facts file: the install's, else the source tree's
 * (malloc'ed; NULL when out of memory). */
char *epfacts_default_path(void);

/* Reads text[0..len) into f (name: the file, in messages). Returns 0, or
 * EPFACTS_ERR_FORMAT / _NOMEM with one line in err. */
__attribute__((warn_unused_result)) int
epfacts_parse(const char *text, size_t len, const char *name, struct epfacts *f, struct buf *err);
/* Reads the file at path (NULL: epfacts_default_path()). Returns as epfacts_parse,
 * or EPFACTS_ERR_IO. */
__attribute__((warn_unused_result)) int epfacts_load(const char *path, struct epfacts *f,
                                                     struct buf *err);

/* The vLLM image of region into uri (emptied first). Returns 0, or
 * EPFACTS_ERR_FORMAT when the file knows no account for region (err says so). */
__attribute__((warn_unused_result)) int epfacts_image(const struct epfacts *f, const char *region,
                                                      struct buf *uri, struct buf *err);

/* The known price of type in region, or NULL. */
const struct epfacts_price *epfacts_price(const struct epfacts *f, const char *type,
                                          const char *region);

#endif
