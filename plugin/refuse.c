#include "refuse.h"

#include <stdio.h>
#include <string.h>

#include "rfield.h"

const char *refuse_hint(const char *code) {
    static const struct {
        const char *code, *hint;
    } hints[] = {
        {"InvalidSignatureException", "check the region and credentials"},
        {"UnrecognizedClientException", "check the region and credentials"},
        {"IncompleteSignatureException", "check the region and credentials"},
        {"MissingAuthenticationTokenException", "check the region and credentials"},
        {"ExpiredTokenException", "check the region and credentials"},
        {"AccessDeniedException", "check the credentials' permissions (sagemaker:InvokeEndpoint)"},
        {"ValidationError", "check the endpoint name, variant and region"},
        {"ModelError", "see the container's log"},
        {RFIELD_ERROR_NO_CAPACITY, "the inference component has no copy serving: scale it out, or "
                                   "pass --refuse-after 0 to record its cold start"},
        {"socket", "check the URL and that the server is up"},
    };
    for (size_t i = 0; code && i < sizeof hints / sizeof hints[0]; i++)
        if (strcmp(code, hints[i].code) == 0) return hints[i].hint;
    return NULL;
}

bool refuse_check(const struct rec_counts *c, int refuse_after, const char *endpoint, char *reason,
                  size_t size) {
    if (refuse_after <= 0 || c->ok || c->failed < refuse_after) return false;
    const char *hint = refuse_hint(c->n_errors ? c->errors[0].code : NULL);
    snprintf(reason, size, "refused: %s failed its first %ld requests: %s%s%s", endpoint, c->failed,
             c->first_error ? c->first_error : "", hint ? " \xe2\x80\x94 " : "", hint ? hint : "");
    return true;
}
