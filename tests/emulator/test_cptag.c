/* cptag: a Create call's Tags and AddTags/DeleteTags checked as SageMaker
 * does, the 50-tag limit, ListTags' pages and NextToken, and the ARNs the
 * tag calls name. */
#include <string.h>

#include "check.h"
#include "cptag.h"

static int read_json(const char *json, struct cptag_list *l, struct buf *err) {
    cJSON *req = cJSON_Parse(json);
    buf_reset(err);
    int rc = cptag_read(req, l, err);
    cJSON_Delete(req);
    return rc;
}

static void test_read(void) {
    static const struct {
        const char *json;
        int want;
        const char *err;
    } rows[] = {
        {"{}", CPTAG_OK, ""},
        {"{\"Tags\":[{\"Key\":\"a\",\"Value\":\"1\"},{\"Key\":\"b\"}]}", CPTAG_OK, ""},
        {"{\"Tags\":{}}", CPTAG_ERR_SERIALIZATION, "Tags: expected a list"},
        {"{\"Tags\":[{\"Key\":1}]}", CPTAG_ERR_SERIALIZATION,
         "Tags: expected a list of {\"Key\": string, \"Value\": string}"},
        {"{\"Tags\":[{\"Value\":\"v\"}]}", CPTAG_ERR_VALIDATION,
         "1 validation error detected: Value null at 'tags.1.member.key' failed to satisfy "
         "constraint: Member must not be null"},
        {"{\"Tags\":[{\"Key\":\"a\"},{\"Key\":\"\"}]}", CPTAG_ERR_VALIDATION,
         "1 validation error detected: Value '' at 'tags.2.member.key' failed to satisfy "
         "constraint: Member must have length greater than or equal to 1"},
        {"{\"Tags\":[{\"Key\":\"a;b\"}]}", CPTAG_ERR_VALIDATION,
         "1 validation error detected: Value 'a;b' at 'tags.1.member.key' failed to satisfy "
         "constraint: Member must satisfy regular expression pattern: "
         "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$"},
        {"{\"Tags\":[{\"Key\":\"aws:x\"}]}", CPTAG_ERR_VALIDATION,
         "Tag keys beginning with 'aws:' are reserved for system use (tag 'aws:x')"},
    };
    struct cptag_list l = {0};
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CHECK_INT(read_json(rows[i].json, &l, &err), rows[i].want);
        CHECK_STR(buf_str(&err), rows[i].err);
    }
    CHECK_INT(
        read_json("{\"Tags\":[{\"Key\":\"a\",\"Value\":\"1\"},{\"Key\":\"a\",\"Value\":\"2\"}]}",
                  &l, &err),
        0);
    CHECK(l.n == 1 && strcmp(l.value[0], "2") == 0); /* a key twice keeps its last value */
    cptag_free(&l);
    buf_free(&err);
}

/* {"Tags":[{"Key":"kFIRST"},...]} of n keys. */
static void many(struct buf *b, int first, int n) {
    buf_reset(b);
    CHECK_INT(buf_adds(b, "{\"Tags\":["), 0);
    for (int i = 0; i < n; i++)
        CHECK_INT(buf_addf(b, "%s{\"Key\":\"k%d\",\"Value\":\"v\"}", i ? "," : "", first + i), 0);
    CHECK_INT(buf_adds(b, "]}"), 0);
}

static void test_merge_delete_page(void) {
    struct cptag_list l = {0}, add = {0};
    struct buf err, b, out;
    buf_init(&err, 1024);
    buf_init(&b, BUF_NO_CAP);
    buf_init(&out, BUF_NO_CAP);
    many(&b, 0, 49);
    CHECK_INT(read_json(buf_str(&b), &l, &err), 0);
    many(&b, 48, 2); /* k48 again and k49: 50 in all */
    CHECK_INT(read_json(buf_str(&b), &add, &err), 0);
    CHECK_INT(cptag_merge(&l, &add, &err), 0);
    CHECK(l.n == 50 && add.n == 0);
    many(&b, 50, 1); /* a 51st */
    CHECK_INT(read_json(buf_str(&b), &add, &err), 0);
    CHECK_INT(cptag_merge(&l, &add, &err), CPTAG_ERR_VALIDATION);
    CHECK_STR(buf_str(&err), "The resource would have 51 tags: a resource has at most 50");
    CHECK(l.n == 50);
    cptag_free(&add);
    /* pages: 50 keys, 20 a page: two tokens */
    CHECK_INT(cptag_json(&out, &l, 0, 20), 0);
    CHECK(strstr(buf_str(&out), "{\"Key\":\"k19\",\"Value\":\"v\"}],\"NextToken\":\"g20\"") !=
          NULL);
    buf_reset(&out);
    CHECK_INT(cptag_json(&out, &l, 40, 20), 0);
    CHECK(strstr(buf_str(&out), "\"NextToken\"") == NULL && strstr(buf_str(&out), "k49") != NULL);
    long start, max;
    cJSON *req = cJSON_Parse("{\"NextToken\":\"g20\",\"MaxResults\":60}");
    CHECK_INT(cptag_page(req, &start, &max, &err), 0);
    CHECK(start == 20 && max == 60);
    cJSON_Delete(req);
    req = cJSON_Parse("{\"MaxResults\":10}");
    buf_reset(&err);
    CHECK_INT(cptag_page(req, &start, &max, &err), CPTAG_ERR_VALIDATION);
    CHECK_STR(buf_str(&err),
              "1 validation error detected: Value '10' at 'maxResults' failed to "
              "satisfy constraint: Member must have value greater than or equal to 50");
    cJSON_Delete(req);
    req = cJSON_Parse("{\"NextToken\":\"x\"}");
    CHECK_INT(cptag_page(req, &start, &max, &err), CPTAG_ERR_VALIDATION);
    cJSON_Delete(req);
    /* DeleteTags: the keys go, one it lacks is no error */
    req = cJSON_Parse("{\"TagKeys\":[\"k0\",\"nope\",\"k49\"]}");
    CHECK_INT(cptag_delete(req, &l, &err), 0);
    CHECK(l.n == 48 && strcmp(l.key[0], "k1") == 0 && strcmp(l.key[47], "k48") == 0);
    cJSON_Delete(req);
    req = cJSON_Parse("{\"TagKeys\":[]}");
    CHECK_INT(cptag_delete(req, &l, &err), CPTAG_ERR_VALIDATION);
    cJSON_Delete(req);
    cptag_free(&l);
    buf_free(&err);
    buf_free(&b);
    buf_free(&out);
}

static void test_arn(void) {
    struct cptag_arn a;
    struct buf err;
    buf_init(&err, 1024);
    cJSON *req =
        cJSON_Parse("{\"ResourceArn\":\"arn:aws:sagemaker:us-east-1:123456789012:endpoint-config/"
                    "my-cfg\"}");
    CHECK_INT(cptag_resource(req, &a, &err), 0);
    CHECK_STR(a.region, "us-east-1");
    CHECK_STR(a.account, "123456789012");
    CHECK_STR(a.type, "endpoint-config");
    CHECK_STR(a.name, "my-cfg");
    cJSON_Delete(req);
    static const char *const bad[] = {
        "{}", "{\"ResourceArn\":\"arn:aws:s3:::bucket/x\"}",
        "{\"ResourceArn\":\"arn:aws:sagemaker:us-east-1:1234:model/m\"}",
        "{\"ResourceArn\":\"arn:aws:sagemaker:us-east-1:123456789012:model\"}",
        "{\"ResourceArn\":\"arn:aws:sagemaker:us-east-1:123456789012:model/\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        req = cJSON_Parse(bad[i]);
        CHECK_INT(cptag_resource(req, &a, &err), CPTAG_ERR_VALIDATION);
        cJSON_Delete(req);
    }
    buf_free(&err);
}

int main(void) {
    test_read();
    test_merge_delete_page();
    test_arn();
    return check_exit();
}
