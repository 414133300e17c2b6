/* suite_spec: a scenario's options as the scenario itself describes them.
 *
 * `wrk -t1 -c1 -d1s -s SCENARIO URL -- --options-json` makes a scenario print
 * its name and every option it takes (lua/sm/run.lua) as one JSON document:
 *   {"format": "wrk-sagemaker-options", "version": 1, "scenario": "decode",
 *    "options": [{"name": "--repeats", "arg": "N", "type": "int", "many": false,
 *                 "default": 5, "min": 1, "help": "..."}, ...]}
 * sm-suite checks and passes the scenarios' options by these specs, so an
 * option added to a scenario reaches sm-suite with no change to it. The text
 * comes from another program: it is bounded and checked before use. */
#ifndef SM_SUITE_SPEC_H
#define SM_SUITE_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define SUITE_SPEC_FORMAT      "wrk-sagemaker-options"
#define SUITE_SPEC_MAX_BYTES   ((size_t)256 * 1024) /* the largest document read */
#define SUITE_SPEC_MAX_OPTIONS 128
#define SUITE_SPEC_NAME_MAX    64 /* an option's name with its "--", and a scenario's name */

enum suite_spec_error {
    SUITE_SPEC_OK = 0,
    SUITE_SPEC_ERR_FORMAT = -1, /* the document is not a spec */
    SUITE_SPEC_ERR_VALUE = -2,  /* a value the option does not take */
    SUITE_SPEC_ERR_NOMEM = -3,
};

/* What an option's value must be (lua/sm/args.lua's types). */
enum suite_spec_type {
    SUITE_SPEC_STRING,  /* any text but "" */
    SUITE_SPEC_INT,     /* a whole number >= min (0 when none) */
    SUITE_SPEC_NUMBER,  /* a number >= min, or > 0 when there is no min */
    SUITE_SPEC_BOOL,    /* a flag: --NAME, or --no-NAME to turn it off */
    SUITE_SPEC_INTS,    /* whole numbers >= 1 separated by commas */
    SUITE_SPEC_NUMBERS, /* numbers > 0 separated by commas */
};

struct suite_spec_opt {
    char *name; /* "--repeats" */
    char *arg;  /* "N" (for the help), or NULL */
    char *help; /* or NULL */
    char *dflt; /* the default as a value the option takes ("16,512", "5"), or NULL:
                   none, and always for a flag */
    enum suite_spec_type type;
    bool many; /* every use counts (the scenario collects a list) */
    bool has_min;
    double min;
};

/* A scenario's options (all owned). */
struct suite_spec {
    char *scenario; /* its name, as it says */
    struct suite_spec_opt *opts;
    size_t n;
};

/* Reads the JSON document text[0..len) into s (freed with suite_spec_free, also
 * after a failure). Returns 0, SUITE_SPEC_ERR_FORMAT with a one-line message
 * in err naming what is wrong, or SUITE_SPEC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_spec_parse(const char *text, size_t len,
                                                         struct suite_spec *s, struct buf *err);
/* Frees what suite_spec_parse made. */
void suite_spec_free(struct suite_spec *s);

/* The option named name ("--repeats"), or NULL. */
const struct suite_spec_opt *suite_spec_find(const struct suite_spec *s, const char *name);

/* Checks value against the option's type: 0, or SUITE_SPEC_ERR_VALUE with the
 * message "--GIVEN wants ..., got 'VALUE'" in err (given: the option as the
 * user wrote it, without "--"). A flag takes no value: never call it for one. */
__attribute__((warn_unused_result)) int suite_spec_check(const struct suite_spec_opt *o,
                                                         const char *given, const char *value,
                                                         struct buf *err);

/* The type's name in a spec ("int"). */
const char *suite_spec_type_name(enum suite_spec_type t);

#endif
