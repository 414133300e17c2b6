/* Signatures per second of the C signer on a SageMaker InvokeEndpoint request
 * (vLLM chat body, session token), signing with a fresh date every call as a
 * long run does. Usage: sigv4_bench [SECONDS] -> prints "signatures_per_second N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sigv4.h"

#define HDR(n, v)                                                                                  \
    { (n), sizeof(n) - 1, (v), sizeof(v) - 1 }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    char *rest = NULL;
    double seconds = argc > 1 ? strtod(argv[1], &rest) : 1.0;
    if (rest && (rest == argv[1] || *rest || !(seconds > 0))) {
        fprintf(stderr, "sigv4_bench: SECONDS '%s' is not a positive number\n", argv[1]);
        return 2;
    }
    static const char body[] =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"Write a long, detailed story about a "
        "lighthouse keeper on a remote island.\"}],\"max_tokens\":512,\"temperature\":0.0,"
        "\"ignore_eos\":true}";
    struct sigv4_header hs[] = {HDR("Host", "runtime.sagemaker.us-east-2.amazonaws.com"),
                                HDR("Content-Type", "application/json"),
                                HDR("Accept", "application/json")};
    const char *target = "/endpoints/gemma-4-e2b/invocations";
    struct sigv4_request req = {"POST", target, strlen(target), hs, 3, body, sizeof body - 1, NULL};
    struct sigv4_credentials c = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                  "FQoGZXIvYXdzEXAMPLETOKEN"};
    char date[SIGV4_DATE_LEN + 1];
    struct sigv4_params p = {"us-east-2", "sagemaker", date, false, false};
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    long n = 0;
    double start = now_s(), end = start;
    time_t t = 1790000000;
    while (end - start < seconds) {
        for (int i = 0; i < 1000; i++, n++) {
            if (sigv4_format_date(t + n, date) || sigv4_sign(s, &req, &c, &p, &r)) {
                fprintf(stderr, "sigv4_bench: signing failed\n");
                return 1;
            }
        }
        end = now_s();
    }
    printf("signatures_per_second %.0f\n", (double)n / (end - start));
    sigv4_result_free(&r);
    sigv4_signer_free(s);
    return 0;
}
