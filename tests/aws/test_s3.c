/* The S3 client's pure parts (s3.h, s3xml.h): S3 URLs, bucket and key rules,
 * the ListObjectsV2 page and error replies S3 writes (entities decoded, a
 * namespace prefix or none, a truncated page's token), and bad replies refused. */
#include <stdlib.h>

#include "../check.h"
#include "s3.h"
#include "s3xml.h"

static void test_url_and_names(void) {
    static const struct {
        const char *url, *bucket, *prefix;
    } ok[] = {{"s3://results-bucket/runs/", "results-bucket", "runs"},
              {"s3://my.bucket", "my.bucket", ""},
              {"s3://b12/a/b/c", "b12", "a/b/c"}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct buf b, p, err;
        buf_init(&b, 128);
        buf_init(&p, 1024);
        buf_init(&err, 512);
        CHECK_INT(s3_parse_url(ok[i].url, &b, &p, &err), S3_OK);
        CHECK_STR(buf_str(&b), ok[i].bucket);
        CHECK_STR(buf_str(&p), ok[i].prefix);
        buf_free(&b);
        buf_free(&p);
        buf_free(&err);
    }
    static const char *const bad[] = {"https://b/x", "s3://",         "s3://Bad_Bucket/x",
                                      "s3://ab/x",   "s3://b12/a//b", "s3://b12/../x",
                                      "s3://b12/a?b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct buf b, p, err;
        buf_init(&b, 128);
        buf_init(&p, 1024);
        buf_init(&err, 512);
        CHECK_INT(s3_parse_url(bad[i], &b, &p, &err), S3_ERR_INPUT);
        CHECK(err.len > 0);
        buf_free(&b);
        buf_free(&p);
        buf_free(&err);
    }
    CHECK(s3_bucket_ok("a-b.c") && !s3_bucket_ok("a..b") && !s3_bucket_ok("-ab"));
    CHECK(s3_key_ok("runs/r/ep/x y+z.json") && !s3_key_ok("runs//x") && !s3_key_ok("x/.") &&
          !s3_key_ok("x\ny") && !s3_key_ok(""));
}

struct seen {
    char keys[4][64];
    long long sizes[4];
    int n;
};

static int collect(void *ud, const char *key, long long size, struct buf *err) {
    struct seen *s = ud;
    (void)err;
    if (s->n < 4) {
        snprintf(s->keys[s->n], sizeof s->keys[0], "%s", key);
        s->sizes[s->n++] = size;
    }
    return 0;
}

static void test_listing(void) {
    const char *page =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Name>b</Name><Prefix>runs/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>"
        "<IsTruncated>true</IsTruncated><Contents><Key>runs/r/a&amp;b &#x41;&#66;.json</Key>"
        "<LastModified>2026-05-01T12:00:00.000Z</LastModified><ETag>&quot;x&quot;</ETag>"
        "<Size>5412</Size><StorageClass>STANDARD</StorageClass></Contents>"
        "<Contents><Key>runs/r/b.json</Key><Size>0</Size></Contents>"
        "<NextContinuationToken>1ueGc+/=</NextContinuationToken></ListBucketResult>";
    struct seen s = {0};
    struct buf next, err;
    buf_init(&next, 1024);
    buf_init(&err, 512);
    bool truncated = false;
    CHECK_INT(s3_parse_list(page, strlen(page), collect, &s, &truncated, &next, &err), S3_OK);
    CHECK_INT(s.n, 2);
    CHECK_STR(s.keys[0], "runs/r/a&b AB.json");
    CHECK_INT(s.sizes[0], 5412);
    CHECK_STR(s.keys[1], "runs/r/b.json");
    CHECK(truncated);
    CHECK_STR(buf_str(&next), "1ueGc+/=");
    /* With a namespace prefix, and the last page. */
    const char *last = "<s3:ListBucketResult><s3:IsTruncated>false</s3:IsTruncated>"
                       "<s3:Contents><s3:Key>k</s3:Key><s3:Size>7</s3:Size></s3:Contents>"
                       "</s3:ListBucketResult>";
    s.n = 0;
    buf_reset(&next);
    CHECK_INT(s3_parse_list(last, strlen(last), collect, &s, &truncated, &next, &err), S3_OK);
    CHECK(!truncated && s.n == 1 && s.sizes[0] == 7);
    /* Not a listing; a Size that is no number; a truncated page without a token;
     * an element that never closes. */
    static const char *const bad[] = {
        "<Error><Code>AccessDenied</Code></Error>",
        "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&err);
        CHECK_INT(s3_parse_list(bad[i], strlen(bad[i]), collect, &s, &truncated, &next, &err),
                  S3_ERR_REPLY);
        CHECK(err.len > 0);
    }
    buf_free(&next);
    buf_free(&err);
}

static void test_error_reply(void) {
    const char *xml = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified "
                      "key does not exist.\n&lt;x&gt;</Message><Key>a</Key></Error>";
    char code[128], msg[512];
    s3_parse_error(xml, strlen(xml), code, msg);
    CHECK_STR(code, "NoSuchKey");
    CHECK_STR(msg, "The specified key does not exist. <x>"); /* one line */
    s3_parse_error("not xml", 7, code, msg);
    CHECK_STR(code, "");
    CHECK_STR(msg, "");
    struct buf out;
    buf_init(&out, 64);
    CHECK_INT(s3xml_escape(&out, "a<&>\"'", 6), BUF_OK);
    CHECK_STR(buf_str(&out), "a&lt;&amp;&gt;&quot;&apos;");
    buf_free(&out);
}

int main(void) {
    test_url_and_names();
    test_listing();
    test_error_reply();
    return check_exit();
}
