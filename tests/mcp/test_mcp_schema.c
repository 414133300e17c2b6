/* mcp_schema: which schemas pass the subset check, and what validation says
 * about each kind of mismatch (the text a model reads to fix its call). */
#include <stdio.h>

#include "mcp_schema.h"
#include "mcp_test.h"

#define NESTED                                                                                     \
    "{'type':'object','properties':{"                                                              \
    "'name':{'type':'string','minLength':2,'maxLength':4,'description':'d','title':'t'},"          \
    "'count':{'type':'integer','minimum':0,'maximum':10,'default':1},"                             \
    "'ratio':{'type':'number','minimum':0.5,'examples':[1]},"                                      \
    "'size':{'type':'integer','enum':[1,2,4]},"                                                    \
    "'on':{'type':'boolean'},"                                                                     \
    "'pools':{'type':'array','minItems':1,'items':{'type':'object','properties':{"                 \
    "'type':{'type':'string'},'priority':{'type':'integer','minimum':1}},"                         \
    "'required':['type'],'additionalProperties':false}},"                                          \
    "'env':{'type':'object','properties':{'SM_VLLM_MODEL':{'type':'string'}},"                     \
    "'required':['SM_VLLM_MODEL']},"                                                               \
    "'open':{'type':'object'},'prompt':{'type':'string','contentMediaType':'text/plain'}},"        \
    "'required':['name'],'additionalProperties':false}"

#define CTRL ": no NUL or other control character (U+0000-U+001F, U+007F-U+009F) is accepted"

static const struct validate_case {
    const char *value; /* single quotes */
    const char *err;   /* NULL: valid */
} validate_cases[] = {
    {"{'name':'ab'}", NULL},
    {"{'name':'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9'}", NULL}, /* 4 characters in 8 bytes */
    {"{'name':'abcde'}", "argument \"name\": must have at most 4 characters"},
    {"{'name':'a'}", "argument \"name\": must have at least 2 characters"},
    {"{}", "missing required argument \"name\""},
    {"[]", "arguments: expected an object, got an array"},
    {"{'name':'ab','count':10,'ratio':0.5,'size':4,'on':true}", NULL},
    {"{'name':'ab','count':1e1}", NULL}, /* an integer, however written */
    {"{'name':'ab','count':11}", "argument \"count\": must be at most 10"},
    {"{'name':'ab','count':-1}", "argument \"count\": must be at least 0"},
    {"{'name':'ab','count':'3'}", "argument \"count\": expected an integer, got a string"},
    {"{'name':'ab','count':null}", "argument \"count\": expected an integer, got null"},
    {"{'name':'ab','ratio':0.25}", "argument \"ratio\": must be at least 0.5"},
    {"{'name':'ab','ratio':true}", "argument \"ratio\": expected a number, got a boolean"},
    {"{'name':'ab','size':3}", "argument \"size\": must be one of [1,2,4]"},
    {"{'name':'ab','on':1}", "argument \"on\": expected a boolean, got a number"},
    {"{'name':'ab','pools':[]}", "argument \"pools\": must have at least 1 items"},
    {"{'name':'ab','pools':[{'type':'ml.g6.xlarge','priority':1},{'type':'ml.g5.xlarge'}]}", NULL},
    {"{'name':'ab','pools':[{'type':'t'},{'priority':1}]}",
     "missing required argument \"pools[1].type\""},
    {"{'name':'ab','pools':[{'type':'t','priority':0}]}",
     "argument \"pools[0].priority\": must be at least 1"},
    {"{'name':'ab','pools':[{'type':'t','weight':2}]}", "unknown argument \"pools[0].weight\""},
    {"{'name':'ab','pools':{}}", "argument \"pools\": expected an array, got an object"},
    {"{'name':'ab','env':{'SM_VLLM_MODEL':'m','EXTRA':'kept'}}",
     NULL}, /* additionalProperties absent */
    {"{'name':'ab','env':{}}", "missing required argument \"env.SM_VLLM_MODEL\""},
    {"{'name':'ab','open':{'anything':[1,{'deep':[[[]]]}]}}", NULL},
    {"{'name':'ab','other':1}", "unknown argument \"other\""},
    /* NUL (as mcp_rpc_parse marks it) and control characters, anywhere */
    {"{'name':'a\xc0\x80"
     "b'}",
     "argument \"name\" holds a NUL (U+0000) at character 2" CTRL},
    {"{'name':'\xc3\xa9\\u001b'}",
     "argument \"name\" holds the control character U+001B at character 2" CTRL},
    {"{'name':'ab\\t'}",
     "argument \"name\" holds the control character U+0009 at character 3" CTRL},
    {"{'name':'a\\u007f'}",
     "argument \"name\" holds the control character U+007F at character 2" CTRL},
    {"{'name':'a\\u0085'}",
     "argument \"name\" holds the control character U+0085 at character 2" CTRL},
    {"{'name':'a\\u00a0'}", NULL}, /* U+00A0 is no control character */
    {"{'name':'ab','pools':[{'type':'t\xc0\x80'}]}",
     "argument \"pools[0].type\" holds a NUL (U+0000) at character 2" CTRL},
    {"{'name':'ab','x\\u0001':1}",
     "an argument name holds the control character U+0001 at character 2" CTRL},
    {"{'name':'ab','env':{'SM_VLLM_MODEL':'m','A\xc0\x80':'x'}}",
     "an argument name in env holds a NUL (U+0000) at character 2" CTRL},
    {"{'name':'ab','prompt':'line 1\\nline 2\\r\\n\\tend'}", NULL},
    {"{'name':'ab','prompt':'a\\u0007'}",
     "argument \"prompt\" holds the control character U+0007 at character 2: no NUL or other "
     "control character (U+0000-U+001F, U+007F-U+009F) but tab and line breaks is accepted"},
};

static void test_validate(void) {
    char *text = mt_q(NESTED);
    cJSON *schema = cJSON_Parse(text);
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(mcp_schema_check(schema, &err), MCP_SCHEMA_OK);
    for (size_t i = 0; i < sizeof validate_cases / sizeof validate_cases[0]; i++) {
        const struct validate_case *c = &validate_cases[i];
        char *vt = mt_q(c->value);
        cJSON *v = cJSON_Parse(vt);
        CHECK(v != NULL);
        buf_reset(&err);
        int rc = mcp_schema_validate(schema, v, &err);
        if ((rc != 0) != (c->err != NULL)) fprintf(stderr, "-- value %s: %s\n", vt, buf_str(&err));
        CHECK_INT(rc, c->err ? MCP_SCHEMA_ERR_INVALID : MCP_SCHEMA_OK);
        if (c->err) CHECK_STR(buf_str(&err), c->err);
        cJSON_Delete(v);
        free(vt);
    }
    buf_free(&err);
    cJSON_Delete(schema);
    free(text);
}

static const struct check_case {
    const char *schema; /* single quotes */
    const char *err;    /* NULL: within the subset */
} check_cases[] = {
    {NESTED, NULL},
    {"{'type':'object','properties':{'a':{'type':'array'}}}", NULL},
    {"{'type':'object','$schema':'https://json-schema.org/draft/2020-12/schema'}",
     "schema: keyword \"$schema\" is not supported for type object"},
    {"{'type':['string','null']}", "schema: type must be one of the supported types"},
    {"{'type':'null'}", "schema: type must be one of the supported types"},
    {"[]", "schema: must be an object"},
    {"{'type':'object','properties':[]}", "schema: properties must be an object"},
    {"{'type':'object','properties':{'a':5}}", "schema node \"a\": must be an object"},
    {"{'type':'object','required':'a','properties':{'a':{'type':'string'}}}",
     "schema: required must be an array"},
    {"{'type':'object','required':[1],'properties':{'a':{'type':'string'}}}",
     "schema: required must list names"},
    {"{'type':'object','additionalProperties':{'type':'string'}}",
     "schema: additionalProperties must be true or false"},
    {"{'type':'string','enum':[]}", "schema: enum must be a non-empty array"},
    {"{'type':'string','enum':['a',1]}", "schema: an enum value has the wrong type"},
    {"{'type':'integer','enum':[1.5]}", "schema: an enum value has the wrong type"},
    {"{'type':'string','maxLength':-1}", "schema: a length limit must be a count"},
    {"{'type':'string','maxLength':1.5}", "schema: a length limit must be a count"},
    {"{'type':'number','maximum':'9'}", "schema: minimum and maximum must be numbers"},
    {"{'type':'array','items':{'type':'object','properties':{'x':{'type':'string','format':'uri'}}}"
     "}",
     "schema node \"[].x\": keyword \"format\" is not supported for type string"},
    {"{'type':'string','contentMediaType':'text/html'}",
     "schema: contentMediaType must be \"text/plain\""},
    {"{'type':'boolean','enum':[true]}",
     "schema: keyword \"enum\" is not supported for type boolean"},
    {"{'type':'object','properties':{'a':{'type':'object','properties':{'b':{'type':'object',"
     "'properties':{'c':{'type':'object','properties':{'d':{'type':'object','properties':{'e':{"
     "'type':'object','properties':{'f':{'type':'object','properties':{'g':{'type':'object',"
     "'properties':{'h':{'type':'string'}}}}}}}}}}}}}}}}}",
     "schema node \"a.b.c.d.e.f.g.h\": nested too deep"},
};

static void test_check(void) {
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof check_cases / sizeof check_cases[0]; i++) {
        const struct check_case *c = &check_cases[i];
        char *text = mt_q(c->schema);
        cJSON *schema = cJSON_Parse(text);
        CHECK(schema != NULL);
        buf_reset(&err);
        int rc = mcp_schema_check(schema, &err);
        if ((rc != 0) != (c->err != NULL))
            fprintf(stderr, "-- schema %s: %s\n", text, buf_str(&err));
        CHECK_INT(rc, c->err ? MCP_SCHEMA_ERR_SCHEMA : MCP_SCHEMA_OK);
        if (c->err) CHECK_STR(buf_str(&err), c->err);
        cJSON_Delete(schema);
        free(text);
    }
    buf_free(&err);
}

int main(void) {
    test_validate();
    test_check();
    return check_exit();
}
