/* epown: which resources sm-endpoint may delete. Everything it creates (model,
 * endpoint config, endpoint; a swap's new ones) carries two SageMaker tags:
 *   wrk-sagemaker:created-by = wrk-sagemaker
 *   wrk-sagemaker:run        = the run's id (sm-suite's, or one sm-endpoint made)
 * A delete acts only on what a run created (the run's id given), or, asked
 * so, on anything the tool created; never on an endpoint config or a model
 * another endpoint uses. Pure: the tags of requests, the verdict on a
 * ListTags reply, run ids, and who uses a config or a model. */
#ifndef SM_EPOWN_H
#define SM_EPOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define EPOWN_KEY_TOOL "wrk-sagemaker:created-by"
#define EPOWN_KEY_RUN  "wrk-sagemaker:run"
#define EPOWN_TOOL     "wrk-sagemaker"
#define EPOWN_RUN_MAX  64 /* bytes of a run id, with the NUL */

enum epown_error { EPOWN_OK = 0, EPOWN_ERR_INPUT = -1, EPOWN_ERR_NOMEM = -2 };

/* Whether s is a run id: 1 to 63 letters, digits and '-', '_', '.'. */
bool epown_run_ok(const char *s);

/* A new run id from the wall clock (Unix seconds) and a nonce:
 * "YYYYMMDDTHHMMSSZ-xxxxxxxx" (the nonce in hex). */
void epown_run_make(double wall, unsigned nonce, char out[EPOWN_RUN_MAX]);

/* Adds "Tags" (the two above, run's id) to the JSON object in req (a Create
 * call's body, rewritten in place). Returns 0, EPOWN_ERR_INPUT (req is not a
 * JSON object, or run not a run id) or EPOWN_ERR_NOMEM. */
__attribute__((warn_unused_result)) int epown_tag(struct buf *req, const char *run);

/* The verdict on a resource from its ListTags reply json[0..len): 0 when the
 * tool created it and, with run not NULL, that run did; else 1 with why
 * ("it has no wrk-sagemaker:created-by tag: wrk-sagemaker did not create it",
 * "run 'a' created it, not run 'b'"), or EPOWN_ERR_INPUT when the reply is
 * not ListTags' (why says so). */
__attribute__((warn_unused_result)) int epown_judge(const char *json, size_t len, const char *run,
                                                    struct buf *why);

/* What one endpoint uses: its config(s) and their models. */
#define EPOWN_USE_MAX 12
struct epown_use {
    char endpoint[64];
    char configs[2][64]; /* the live one and, while Updating, the next */
    size_t n_configs;
    char models[EPOWN_USE_MAX][64];
    size_t n_models;
};

/* The first endpoint of uses[0..n) other than self that uses the endpoint
 * config (is_model false) or model name, or NULL. */
const char *epown_user(const struct epown_use *uses, size_t n, const char *self, bool is_model,
                       const char *name);

#endif
