/* Fuzzes the emulator's profile file reader (--profile-file). Input: the
 * file. A file read gives one profile per member of "profiles", named by it,
 * every parameter in range, the wrong answers it lists, and found again by
 * name; a file refused gives one line that starts with the path. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "emucheck.h"
#include "tmpdir.h"

/* The text the profile's answers hold for key: the last string given. */
static const char *fuzz_answer(const cJSON *def, const char *key) {
    const cJSON *a, *answers = cJSON_GetObjectItemCaseSensitive(def, "answers");
    const char *text = NULL;
    cJSON_ArrayForEach(a, answers) {
        if (strcmp(a->string, key) == 0) text = cJSON_IsString(a) ? a->valuestring : NULL;
    }
    return text;
}

static const struct model_profile *fuzz_first(const struct model_library *lib,
                                              const struct model_profile *p) {
    const struct model_profile *q = lib->profiles;
    while (strcmp(q->name, p->name) != 0) q++;
    return q;
}

static void fuzz_check_library(const struct model_library *lib, const cJSON *root) {
    const cJSON *def, *profiles = cJSON_GetObjectItemCaseSensitive(root, "profiles");
    size_t i = 0;
    cJSON_ArrayForEach(def, profiles) {
        if (i == lib->n) abort();
        const struct model_profile *p = &lib->profiles[i++];
        if (strcmp(p->name, def->string) != 0) abort();
        emucheck_profile(p);
        const cJSON *a;
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(def, "answers")) {
            const char *want = fuzz_answer(def, a->string), *got = model_answer(p, a->string);
            if (want && (!got || strcmp(want, got) != 0)) abort();
        }
        struct model_profile found; /* the first of that name */
        if (model_find(lib, p->name, &found) || strcmp(found.name, p->name) != 0 ||
            (fuzz_first(lib, p) == p && found.n_answers != p->n_answers))
            abort();
        model_free(&found);
    }
    if (i != lib->n) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = tmpdir_write("profiles.json", data, size);
    struct model_library lib = {0};
    struct buf err;
    buf_init(&err, 4096);
    if (model_library_load(&lib, path, &err) == 0) {
        cJSON *root = cJSON_ParseWithLength((const char *)data, size);
        fuzz_check_library(&lib, root);
        cJSON_Delete(root);
    } else {
        emucheck_one_line(&err);
        if (strncmp(buf_str(&err), path, strlen(path)) != 0) abort();
    }
    model_library_free(&lib);
    buf_free(&err);
    return 0;
}
