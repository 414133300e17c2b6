/* The capacity the emulator's profiles imply, for the demo's test: sm-emulator's
 * model (emulator/model/model.h) serves up to max_seqs sequences in flight, each
 * TOKENS decode steps of step(B) with B in flight, after the call's fixed cost, so
 * the first token's wait grows without bound once arrivals pass what max_seqs in
 * flight can finish: max_seqs / (overhead_s + client_s + TOKENS x step(max_seqs))
 * requests a second. Prints, for each PROFILE=PRICE, one line "PROFILE CAPACITY
 * USD_PER_MILLION_TOKENS" (prefill and jitter left out: they move no ranking).
 *
 *     profile_capacity TOKENS PROFILE=PRICE ... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: profile_capacity TOKENS PROFILE=PRICE ...\n");
        return 2;
    }
    double tokens = strtod(argv[1], NULL);
    for (int i = 2; i < argc; i++) {
        char name[MODEL_NAME_MAX];
        const char *eq = strchr(argv[i], '=');
        struct model_profile p;
        if (!eq || eq - argv[i] >= (long)sizeof name) return 2;
        snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (model_builtin(name, &p)) {
            fprintf(stderr, "profile_capacity: unknown profile %s\n", name);
            return 2;
        }
        double busy = p.overhead_s + p.client_s + tokens * model_step_s(&p, p.max_seqs);
        double rps = p.max_seqs / busy;
        printf("%s %.6f %.6f\n", name, rps, strtod(eq + 1, NULL) / 3600.0 / (rps * tokens) * 1e6);
        model_free(&p);
    }
    return 0;
}
