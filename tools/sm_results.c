/* sm-results: the result files of a run to S3 and back (README, "More than
 * one client machine"): push uploads a host's result files under
 * s3://BUCKET/PREFIX/RUN_ID/LABEL/ (rkey.h), fetch lists a run's files and
 * downloads them for sm-compare, list tells the runs under a prefix. Over the
 * S3 client aws/s3.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plainhttp.h"
#include "readall.h"
#include "rkey.h"
#include "safeopen.h"
#include "s3.h"
#include "tty.h"

#define RES_EXIT_AWS   1
#define RES_EXIT_USAGE 2
#define RES_MAX_DEPTH  4      /* folders walked below a pushed one */
#define RES_MAX_FILES  100000 /* files of one push or fetch */
#define RES_MAX_LABELS 64     /* labels a fetch names in its sm-compare hint */

static const char res_usage[] =
    "Usage: sm-results [OPTIONS] push s3://BUCKET/PREFIX PATH...\n"
    "       sm-results [OPTIONS] fetch s3://BUCKET/PREFIX RUN_ID DIR\n"
    "       sm-results [OPTIONS] list s3://BUCKET/PREFIX\n"
    "\n"
    "A run's result files to S3 and back, for runs split over several client machines\n"
    "(--shard K/N): each machine pushes its files, one machine fetches them all and\n"
    "sm-compare merges the shards of each run.\n"
    "\n"
    "  push    uploads each result file (and each journal without its result file) of the\n"
    "          PATHs (files, or folders walked) to PREFIX/RUN_ID/LABEL/NAME, with the file's\n"
    "          own run id and label; a shard's NAME gets .shard-K-of-N before .json\n"
    "  fetch   downloads every file under PREFIX/RUN_ID/ to DIR/LABEL/NAME (never over a\n"
    "          file that exists, unless --force; a symbolic link at DIR/LABEL or below\n"
    "          is refused, never followed) and prints the sm-compare command\n"
    "  list    the run ids under PREFIX, with their files and labels\n"
    "\n"
    "Options:\n"
    "  --region REGION      the bucket's region (default: AWS_REGION, AWS_DEFAULT_REGION,\n"
    "                       the profile's region)\n"
    "  --profile NAME       the AWS profile (default AWS_PROFILE, else the usual chain:\n"
    "                       environment, ~/.aws, the container endpoint, the instance)\n"
    "  --endpoint-url URL   send every request there, path-style (sm-emulator's URL)\n"
    "  --allow-plain-http   sign for an http:// --endpoint-url whose host is not loopback\n"
    "                       (the signature and session token cross the network in clear);\n"
    "                       http:// to 127.0.0.0/8, ::1 or localhost needs none\n"
    "  --force              fetch: replace files that exist\n"
    "  --dry-run            push: print the keys, upload nothing\n"
    "  -h, --help           this help\n"
    "\n"
    "The identity needs s3:PutObject (push), s3:ListBucket and s3:GetObject (fetch, list).\n"
    "Exit status: 0 done, 1 S3 refused or could not be reached, 2 bad usage or input.\n";

struct res_opts {
    const char *region, *profile, *endpoint_url;
    bool force, dry_run, allow_plain_http;
};

struct res {
    struct res_opts o;
    struct s3_client *s3;
    struct buf bucket, prefix, err;
    long files;
};

__attribute__((format(printf, 1, 2))) static int res_fail(const char *fmt, ...);

/* "sm-results: line" on stderr, the line escaped (it may quote a key). */
static void res_line(const char *line) {
    fputs("sm-results: ", stderr);
    if (tty_write(stderr, line, strlen(line), 0)) fputs("out of memory", stderr);
    fputc('\n', stderr);
}

static int res_fail(const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    res_line(line);
    return RES_EXIT_USAGE;
}

/* The exit status of an S3 or local failure, its line printed. */
static int res_status(struct res *r, int rc) {
    res_line(r->err.len ? buf_str(&r->err) : "out of memory");
    return rc == S3_ERR_NETWORK || rc == S3_ERR_SERVICE || rc == S3_ERR_CREDS || rc == S3_ERR_REPLY
               ? RES_EXIT_AWS
               : RES_EXIT_USAGE;
}

/* ---- push -------------------------------------------------------------------------------- */

static bool res_ends(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Uploads one result file or journal. */
static int res_push_file(struct res *r, const char *path) {
    struct buf data, key;
    struct rkey_head h;
    buf_init(&data, S3_PUT_MAX);
    buf_init(&key, BUF_NO_CAP);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int rc = readall_path(path, &data);
    if (rc) {
        rc = buf_fail(&r->err, S3_ERR_IO, "%s: cannot read: %s", path,
                      rc > 0 ? strerror(rc) : "too large or out of memory");
    } else if (!(rc = rkey_head_of(path, data.data ? data.data : "", data.len, &h, &r->err)) &&
               !(rc = rkey_key(buf_str(&r->prefix), &h, name, &key, &r->err))) {
        if (r->o.dry_run)
            printf("%s -> s3://%s/%s\n", path, buf_str(&r->bucket), buf_str(&key));
        else if (!(rc = s3_put(r->s3, buf_str(&r->bucket), buf_str(&key), data.data, data.len,
                               "application/json", &r->err)))
            printf("%s -> s3://%s/%s (%zu bytes)\n", path, buf_str(&r->bucket), buf_str(&key),
                   data.len);
        r->files++;
    }
    if (rc == RKEY_ERR_INPUT) rc = S3_ERR_INPUT;
    buf_free(&data);
    buf_free(&key);
    return rc;
}

/* Whether dir holds the result file of the journal called name. */
static bool res_has_result(const char *dir, const char *name) {
    char path[4096];
    size_t stem = strlen(name) - strlen(".journal.jsonl");
    snprintf(path, sizeof path, "%s/%.*s.json", dir, (int)stem, name);
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int res_push_path(struct res *r, const char *path, int depth);

/* The result files of a folder and its folders. */
static int res_push_dir(struct res *r, const char *dir, int depth) {
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), rc = S3_OK;
    if (n < 0) return buf_fail(&r->err, S3_ERR_IO, "%s: cannot read: %s", dir, strerror(errno));
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e);
        if (rc || e[0] == '.' || lstat(path, &st) < 0) continue;
        if (S_ISDIR(st.st_mode) && depth < RES_MAX_DEPTH)
            rc = res_push_path(r, path, depth + 1);
        else if (S_ISREG(st.st_mode) && (res_ends(e, ".json") || (res_ends(e, ".journal.jsonl") &&
                                                                  !res_has_result(dir, e))))
            rc = res_push_file(r, path);
    }
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    return rc;
}

static int res_push_path(struct res *r, const char *path, int depth) {
    struct stat st;
    if (lstat(path, &st) < 0) return buf_fail(&r->err, S3_ERR_IO, "%s: %s", path, strerror(errno));
    if (r->files >= RES_MAX_FILES)
        return buf_fail(&r->err, S3_ERR_INPUT, "more than %d files", RES_MAX_FILES);
    if (S_ISDIR(st.st_mode)) return res_push_dir(r, path, depth);
    if (!S_ISREG(st.st_mode))
        return buf_fail(&r->err, S3_ERR_INPUT, "%s: not a regular file or folder", path);
    return res_push_file(r, path);
}

static int res_push(struct res *r, char **paths, int n) {
    for (int i = 0; i < n; i++) {
        int rc = res_push_path(r, paths[i], 0);
        if (rc) return res_status(r, rc);
    }
    if (!r->files) return res_fail("no result files in what was given");
    fprintf(stderr, "sm-results: %ld file(s) %s s3://%s/%s\n", r->files,
            r->o.dry_run ? "would go to" : "uploaded to", buf_str(&r->bucket), buf_str(&r->prefix));
    return 0;
}

/* ---- fetch ------------------------------------------------------------------------------- */

struct res_fetch {
    struct res *r;
    const char *dir;
    struct buf run_prefix;
    char *labels[RES_MAX_LABELS];
    int n_labels;
};

/* Creates the folder (and dir above it) when missing. */
static int res_mkdir(const char *folder, struct buf *err) {
    char *copy = strdup(folder);
    int rc = copy ? S3_OK : S3_ERR_NOMEM;
    for (char *p = copy ? strchr(copy + 1, '/') : NULL; !rc; p = strchr(p + 1, '/')) {
        if (p) *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST)
            rc = buf_fail(err, S3_ERR_IO, "cannot create %s: %s", copy, strerror(errno));
        if (!p) break;
        *p = '/';
    }
    free(copy);
    return rc;
}

static void res_label(struct res_fetch *f, const char *folder) {
    const char *label = strrchr(folder, '/') ? strrchr(folder, '/') + 1 : folder;
    for (int i = 0; i < f->n_labels; i++)
        if (strcmp(f->labels[i], label) == 0) return;
    if (f->n_labels < RES_MAX_LABELS && (f->labels[f->n_labels] = strdup(label))) f->n_labels++;
}

/* Downloads one listed object into its file (never following a link). */
static int res_fetch_one(void *ud, const char *key, long long size, struct buf *err) {
    struct res_fetch *f = ud;
    struct buf path, folder;
    buf_init(&path, BUF_NO_CAP);
    buf_init(&folder, BUF_NO_CAP);
    int rc = rkey_local(buf_str(&f->run_prefix), key, f->dir, &path, &folder, err);
    if (rc == RKEY_ERR_INPUT) { /* not a file of ours: said, and left alone */
        res_line(buf_str(err));
        buf_reset(err);
        rc = S3_OK;
        goto done;
    }
    if (rc || (rc = res_mkdir(f->dir, err))) goto done;
    if (f->r->files >= RES_MAX_FILES) {
        rc = buf_fail(err, S3_ERR_INPUT, "more than %d files under the run", RES_MAX_FILES);
        goto done;
    }
    size_t dl = strlen(f->dir);
    while (dl > 1 && f->dir[dl - 1] == '/') dl--; /* as rkey_local writes it */
    if (strncmp(buf_str(&path), f->dir, dl) != 0 || buf_str(&path)[dl] != '/') {
        rc = buf_fail(err, S3_ERR_IO, "%s: not under %s", buf_str(&path), f->dir);
        goto done;
    }
    /* DIR/LABEL/... walked without following a link (safeopen.h) */
    int fd = safeopen_create(f->dir, buf_str(&path) + dl + 1, 0666, f->r->o.force, err);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        rc = fd == SAFEOPEN_ERR_EXISTS
                 ? buf_fail(err, S3_ERR_IO, "%s: %s (fetch --force replaces it)", buf_str(&path),
                            strerror(EEXIST))
             : fd < 0 ? S3_ERR_IO
                      : buf_fail(err, S3_ERR_IO, "%s: %s", buf_str(&path), strerror(errno));
        if (fd >= 0) close(fd);
        goto done;
    }
    rc = s3_get(f->r->s3, buf_str(&f->r->bucket), key, out, S3_GET_MAX, err);
    if (fclose(out) != 0 && !rc)
        rc = buf_fail(err, S3_ERR_IO, "%s: %s", buf_str(&path), strerror(errno));
    if (rc) {
        unlink(buf_str(&path));
        goto done;
    }
    printf("s3://%s/", buf_str(&f->r->bucket)); /* the key and the path from it, escaped */
    if (tty_write(stdout, key, strlen(key), 0) || fputs(" -> ", stdout) == EOF ||
        tty_write(stdout, buf_str(&path), path.len, 0))
        rc = buf_fail(err, S3_ERR_NOMEM, "out of memory");
    printf(" (%lld bytes)\n", size);
    res_label(f, buf_str(&folder));
    f->r->files++;
done:
    buf_free(&path);
    buf_free(&folder);
    return rc;
}

static int res_fetch(struct res *r, const char *run_id, const char *dir) {
    struct res_fetch f = {.r = r, .dir = dir};
    buf_init(&f.run_prefix, BUF_NO_CAP);
    if (!*run_id || strchr(run_id, '/')) return res_fail("'%s' is not a run id", run_id);
    if (buf_addf(&f.run_prefix, "%s%s%s/", buf_str(&r->prefix), r->prefix.len ? "/" : "", run_id))
        return res_fail("out of memory");
    int rc =
        s3_list(r->s3, buf_str(&r->bucket), buf_str(&f.run_prefix), res_fetch_one, &f, &r->err);
    int status = rc ? res_status(r, rc) : 0;
    if (!rc && !r->files)
        status = res_fail("no files under s3://%s/%s", buf_str(&r->bucket), buf_str(&f.run_prefix));
    if (!status) {
        fprintf(stderr, "sm-results: %ld file(s) of run %s in %s; compare with:\n  sm-compare",
                r->files, run_id, dir);
        for (int i = 0; i < f.n_labels && !status; i++) {
            fprintf(stderr, " %s/", dir);
            if (tty_write(stderr, f.labels[i], strlen(f.labels[i]), 0))
                status = res_fail("out of memory");
        }
        fputc('\n', stderr);
    }
    for (int i = 0; i < f.n_labels; i++) free(f.labels[i]);
    buf_free(&f.run_prefix);
    return status;
}

/* ---- list --------------------------------------------------------------------------------- */

struct res_run {
    char id[128];
    long files;
    long long bytes;
};

struct res_list {
    size_t pre;
    struct res_run runs[256];
    int n;
    bool more;
};

static int res_list_one(void *ud, const char *key, long long size, struct buf *err) {
    struct res_list *l = ud;
    const char *rest = key + l->pre, *slash = strchr(rest, '/');
    size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
    (void)err;
    if (strlen(key) < l->pre || n == 0 || n >= sizeof l->runs[0].id) return 0;
    int i = 0;
    while (i < l->n && (strlen(l->runs[i].id) != n || strncmp(l->runs[i].id, rest, n) != 0)) i++;
    if (i == l->n) {
        if (l->n == 256) return l->more = true, 0;
        snprintf(l->runs[l->n++].id, sizeof l->runs[0].id, "%.*s", (int)n, rest);
    }
    l->runs[i].files++;
    l->runs[i].bytes += size;
    return 0;
}

static int res_list(struct res *r) {
    struct res_list l = {0};
    struct buf pre;
    buf_init(&pre, BUF_NO_CAP);
    if (r->prefix.len && buf_addf(&pre, "%s/", buf_str(&r->prefix))) return res_fail("no memory");
    l.pre = pre.len;
    int rc = s3_list(r->s3, buf_str(&r->bucket), buf_str(&pre), res_list_one, &l, &r->err);
    buf_free(&pre);
    if (rc) return res_status(r, rc);
    for (int i = 0; i < l.n; i++) { /* a run id is a part of a key: escaped (tty.h) */
        if (tty_write(stdout, l.runs[i].id, strlen(l.runs[i].id), 0)) return res_fail("no memory");
        printf("\t%ld file(s)\t%lld bytes\n", l.runs[i].files, l.runs[i].bytes);
    }
    if (l.more) fprintf(stderr, "sm-results: more than 256 runs; the first 256 are listed\n");
    return 0;
}

/* ---- main --------------------------------------------------------------------------------- */

static int res_options(int argc, char **argv, struct res_opts *o) {
    static const struct option opts[] = {{"region", required_argument, NULL, 'r'},
                                         {"profile", required_argument, NULL, 'p'},
                                         {"endpoint-url", required_argument, NULL, 'e'},
                                         {"allow-plain-http", no_argument, NULL, 'P'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"dry-run", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) switch (c) {
        case 'r':
            o->region = optarg;
            break;
        case 'p':
            o->profile = optarg;
            break;
        case 'e':
            o->endpoint_url = optarg;
            break;
        case 'P':
            o->allow_plain_http = true;
            break;
        case 'f':
            o->force = true;
            break;
        case 'n':
            o->dry_run = true;
            break;
        case 'h':
            fputs(res_usage, stdout);
            exit(0);
        default:
            fputs(res_usage, stderr);
            return RES_EXIT_USAGE;
        }
    return 0;
}

/* The client for the options; 0 or an exit status. */
static int res_client(struct res *r) {
    struct creds_options co = {.profile = r->o.profile};
    struct buf region;
    buf_init(&region, 128);
    if (!r->o.region && creds_region(&co, &region, &r->err))
        return res_fail("no region: give --region or set AWS_REGION (%s)", buf_str(&r->err));
    struct s3_config cfg = {.region = r->o.region ? r->o.region : buf_str(&region),
                            .endpoint_url = r->o.endpoint_url,
                            .allow_plain_http = r->o.allow_plain_http,
                            .creds = co};
    int rc = s3_client_new(&cfg, &r->s3, &r->err);
    buf_free(&region);
    return rc ? res_status(r, rc) : 0;
}

int main(int argc, char **argv) {
    struct res r = {0};
    buf_init(&r.bucket, 128);
    buf_init(&r.prefix, S3_KEY_MAX);
    buf_init(&r.err, 2048);
    int rc = res_options(argc, argv, &r.o);
    if (!rc && r.o.endpoint_url && plainhttp_check(r.o.endpoint_url, r.o.allow_plain_http, &r.err))
        rc = res_fail("--endpoint-url: %s", buf_str(&r.err));
    if (!rc && optind >= argc) rc = res_fail("no command (push, fetch or list; see --help)");
    const char *cmd = rc ? "" : argv[optind];
    int rest = argc - optind - 1;
    if (!rc &&
        !((strcmp(cmd, "push") == 0 && rest >= 2) || (strcmp(cmd, "fetch") == 0 && rest == 3) ||
          (strcmp(cmd, "list") == 0 && rest == 1)))
        rc = res_fail("%s: wrong arguments (see --help)", cmd);
    if (!rc && s3_parse_url(argv[optind + 1], &r.bucket, &r.prefix, &r.err))
        rc = res_fail("%s", buf_str(&r.err));
    if (!rc && !(strcmp(cmd, "push") == 0 && r.o.dry_run)) rc = res_client(&r);
    if (!rc && strcmp(cmd, "push") == 0) rc = res_push(&r, argv + optind + 2, rest - 1);
    if (!rc && strcmp(cmd, "fetch") == 0) rc = res_fetch(&r, argv[optind + 2], argv[optind + 3]);
    if (!rc && strcmp(cmd, "list") == 0) rc = res_list(&r);
    s3_client_free(r.s3);
    buf_free(&r.bucket);
    buf_free(&r.prefix);
    buf_free(&r.err);
    return rc;
}
