/* hlog_import.c - HdrHistogram interval logs as report runs, and merged (hlog_import.h). */
#include "report/hlog_import.h"
#include "lib/jsonx.h"
#include "core/record.h"
#include "lib/util.h"
#include "loadgen/engine.h"
#include "loadgen/hlog.h"
#include "loadgen/intervals.h"
#include "common/version.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* loadgen/report.h's (its name is the harness's report.h too, as in clients.c) */
json_t *mtl_latency_json(const struct mtl_hist *h);
json_t *mtl_buckets_json(const struct mtl_hist *h);
FILE *mtl_open_tmp(const char *path, char **tmp);
int mtl_close_rename(FILE *f, char *tmp, const char *path, int rc);

int mtb_hlog_is_log(const char *path)
{
    struct stat st;
    char line[64] = "";
    size_t n = strlen(path);
    FILE *f;

    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if (n > 5 && !strcmp(path + n - 5, ".hlog"))
        return 1;
    if (!(f = fopen(path, "r")))
        return 0;
    /* the version line among the first comment lines (HdrHistogram_c writes its user's line first) */
    for (int i = 0; i < 8 && fgets(line, sizeof line, f) && line[0] == '#'; i++)
        if (!strncmp(line, "#[Histogram log format version", 30)) {
            fclose(f);
            return 1;
        }
    fclose(f);
    return 0;
}

/* one (tag, interval) histogram, its non-empty buckets only (an hour of
 * seconds x 6 tags stays a few MB): a tag's whole run when sec is unused */
struct slot {
    char tag[64];
    long sec;
    double start, end;
    unsigned intervals;
    struct mtl_sparse sp;
};

struct acc {
    struct slot *s;
    size_t n, cap;
    int by_second;            /* merge: one slot per (tag, second); import: per tag */
    json_t *index;            /* "SECOND TAG" -> slot */
    struct mtl_hist tmp;      /* a slot expanded */
};

static int acc_init(struct acc *a, int by_second)
{
    memset(a, 0, sizeof(*a));
    a->by_second = by_second;
    a->index = json_object();
    return a->index && !mtl_hist_init(&a->tmp, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST) ? 0 : ENOMEM;
}

/* a->tmp := slot i's histogram */
static struct mtl_hist *expanded(struct acc *a, size_t i)
{
    mtl_hist_reset(&a->tmp);
    mtl_sparse_expand(&a->s[i].sp, &a->tmp);
    return &a->tmp;
}

static struct slot *slot_for(struct acc *a, const char *tag, long sec)
{
    char key[96];
    json_t *at;
    snprintf(key, sizeof key, "%ld %s", sec, tag);
    if ((at = json_object_get(a->index, key)))
        return &a->s[json_integer_value(at)];
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        struct slot *ns = realloc(a->s, cap * sizeof(*ns));
        if (!ns)
            return NULL;
        a->s = ns;
        a->cap = cap;
    }
    memset(&a->s[a->n], 0, sizeof(a->s[a->n]));
    snprintf(a->s[a->n].tag, sizeof(a->s[a->n].tag), "%s", tag);
    a->s[a->n].sec = sec;
    json_object_set_new(a->index, key, json_integer((json_int_t)a->n));
    return &a->s[a->n++];
}

static void acc_free(struct acc *a)
{
    size_t i;
    for (i = 0; i < a->n; i++)
        mtl_sparse_free(&a->s[i].sp);
    free(a->s);
    json_decref(a->index);
    mtl_hist_free(&a->tmp);
    memset(a, 0, sizeof(*a));
}

static void add_histogram(struct mtl_hist *h, json_t *hist);

static int on_interval(void *arg, const struct mtl_hlog_interval *iv)
{
    struct acc *a = arg;
    long sec = a->by_second ? lround(iv->start) : 0;
    struct slot *s = slot_for(a, iv->tag, sec);

    if (!s)
        return ENOMEM;
    if (!s->intervals || iv->start < s->start)
        s->start = iv->start;
    if (!s->intervals || iv->start + iv->length > s->end)
        s->end = iv->start + iv->length;
    s->intervals++;
    mtl_hist_reset(&a->tmp);
    mtl_sparse_expand(&s->sp, &a->tmp);
    return mtl_hist_merge(&a->tmp, iv->hist) || mtl_sparse_compact(&a->tmp, &s->sp) ? ENOMEM : 0;
}

static int read_log(const char *path, const char *unit, struct acc *a, double *start_epoch,
                    char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    int rc;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    rc = mtl_hlog_read(f, path, unit, start_epoch, on_interval, a, err, errlen);
    fclose(f);
    if (rc && rc != EINVAL && rc != ENOTSUP)
        snprintf(err, errlen, "%s: %s", path, strerror(rc));
    return rc ? -1 : 0;
}

static int skip_tag(const struct acc *a, const char *tag)
{
    size_t i;
    size_t n = strlen(tag);
    if (n > 12 && !strcmp(tag + n - 12, "-uncorrected"))
        return 1;
    for (i = 0; i < a->n; i++)                 /* a log with "request" or untagged: only that */
        if ((!strcmp(a->s[i].tag, "request") || !a->s[i].tag[0]) && strcmp(tag, a->s[i].tag))
            return 1;
    return 0;
}

static json_t *record_of(const char *path, const struct slot *s, const struct mtl_hist *h, double start_epoch)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double dur = s->end - s->start;
    char *variant = s->tag[0] ? mtb_asprintf("%s:%s", base, s->tag) : mtb_strdup(base);
    json_t *lat = mtl_latency_json(h), *rec;
    double ops = dur > 0 ? (double)h->total / dur : 0;

    rec = json_pack("{s:s,s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:{s:s,s:s,s:s,s:f}},"
                    "s:{s:s,s:b,s:s},s:{s:s},"
                    "s:{s:f,s:O,s:O,s:O,s:I,s:i,s:b},"
                    "s:{s:s,s:f,s:{s:O,s:O},s:o,s:{s:I,s:f}},"
                    "s:{s:s,s:s,s:f,s:i}}",
                    "schema", MTB_RECORD_SCHEMA, "status", "ok", "driver", "hlog", "mtebench_version", mtb_version,
                    "config", "service", "peer", "variant", variant, "mode", "off", "platform", "peer",
                    "kernel", "-", "plan", "hlog", "rep", 1, "index", 1, "total", 1,
                    "workload", "name", "hlog", "source", path, "mix", "from an HdrHistogram log", "duration_s", dur,
                    "platform", "name", "peer", "emulated", 0, "label", "HdrHistogram log of another run",
                    "kernel", "name", "-",
                    "summary", "ops_per_sec", ops, "p50_us", json_object_get(lat, "p50"),
                    "p99_us", json_object_get(lat, "p99"), "p999_us", json_object_get(lat, "p99.9"),
                    "requests", (json_int_t)h->total, "errors", 0, "client_bound", 0,
                    "load", "schema", "mtload/1", "duration_s", dur,
                    "latency_us", "corrected", lat, "uncorrected", lat,
                    "histogram", mtl_buckets_json(h),
                    "totals", "requests", (json_int_t)h->total, "ops_per_sec", ops,
                    "hlog", "file", path, "tag", s->tag, "start_epoch", start_epoch,
                    "intervals", (int)s->intervals);
    json_decref(lat);
    free(variant);
    return rec;
}

json_t *mtb_hlog_records(const char *path, const char *unit, char *err, size_t errlen)
{
    struct acc a;
    double start_epoch = 0;
    json_t *out;
    size_t i;

    err[0] = 0;
    if (acc_init(&a, 0) || read_log(path, unit, &a, &start_epoch, err, errlen)) {
        if (!err[0])
            snprintf(err, errlen, "%s: out of memory", path);
        acc_free(&a);
        return NULL;
    }
    out = json_array();
    for (i = 0; i < a.n; i++)
        if (!skip_tag(&a, a.s[i].tag) && a.s[i].sp.total)
            json_array_append_new(out, record_of(path, &a.s[i], expanded(&a, i), start_epoch));
    acc_free(&a);
    if (!json_array_size(out)) {
        snprintf(err, errlen, "%s: no values in any interval", path);
        json_decref(out);
        return NULL;
    }
    return out;
}

static int cmp_slot(const void *x, const void *y)
{
    const struct slot *a = x, *b = y;
    return a->sec != b->sec ? (a->sec < b->sec ? -1 : 1) : 0;
}

int mtb_hlog_merge(char *const paths[], size_t n, const char *out, char *err, size_t errlen)
{
    struct acc a;
    double base = 0, start;
    size_t i;
    char *tmp, who[200];
    FILE *f;
    int rc = 0;

    err[0] = 0;
    if (acc_init(&a, 1)) {
        snprintf(err, errlen, "out of memory");
        acc_free(&a);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (read_log(paths[i], NULL, &a, &start, err, errlen)) {
            acc_free(&a);
            return -1;
        }
        if (!i || start < base)
            base = start;
    }
    /* stable order: by second, tags in first-seen order (qsort is not stable: insertion sort) */
    for (i = 1; i < a.n; i++) {
        struct slot s = a.s[i];
        size_t j = i;
        while (j > 0 && cmp_slot(&a.s[j - 1], &s) > 0) {
            a.s[j] = a.s[j - 1];
            j--;
        }
        a.s[j] = s;
    }
    if (!(f = mtl_open_tmp(out, &tmp))) {
        snprintf(err, errlen, "%s: cannot write: %s", out, strerror(errno));
        acc_free(&a);
        return -1;
    }
    snprintf(who, sizeof who, "mtebench %s: %zu hosts' logs merged bucket by bucket", mtb_version, n);
    rc = mtl_hlog_write_header(f, base, who);
    for (i = 0; i < a.n && !rc; i++)
        rc = mtl_hlog_write_interval(f, a.s[i].tag, (double)a.s[i].sec, a.s[i].end - a.s[i].start, expanded(&a, i));
    acc_free(&a);
    if ((rc = mtl_close_rename(f, tmp, out, rc)) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", out, strerror(rc));
        return -1;
    }
    return 0;
}

int mtb_hlog_split(char **args, int n)
{
    char **tmp = calloc((size_t)n + 1, sizeof(*tmp));
    int i, k = 0, dirs;
    if (!tmp)
        return n;
    for (i = 0; i < n; i++)
        if (!mtb_hlog_is_log(args[i]))
            tmp[k++] = args[i];
    dirs = k;
    for (i = 0; i < n; i++)
        if (mtb_hlog_is_log(args[i]))
            tmp[k++] = args[i];
    memcpy(args, tmp, (size_t)n * sizeof(*args));
    free(tmp);
    return dirs;
}

int mtb_hlog_add_records(char **args, int n, const char *unit, struct mtb_record_set *set)
{
    char err[MTB_ERRLEN];
    int i;

    if (unit && !mtl_hlog_unit_ns(unit)) {
        fprintf(stderr, "mtebench report: --hlog-unit '%s' is not a time unit (ns, us, ms, s)\n", unit);
        return -1;
    }
    for (i = 0; i < n; i++) {
        json_t *recs = mtb_hlog_records(args[i], unit, err, sizeof err), *r;
        size_t k;
        if (!recs) {
            fprintf(stderr, "mtebench report: %s\n", err);
            return -1;
        }
        json_array_append_new(set->dirs, json_string(args[i]));
        json_array_foreach(recs, k, r) {
            json_array_append(set->records, r);
            json_array_append_new(set->files, json_string(args[i]));
        }
        json_decref(recs);
    }
    return 0;
}

int mtb_hlog_merge_hosts(json_t *clients, const char *dir)
{
    char **paths = calloc(json_array_size(clients) + 1, sizeof(*paths)), err[MTB_ERRLEN];
    size_t i, n = 0;
    json_t *c;
    int rc = -1;

    if (!paths)
        return -1;
    json_array_foreach(clients, i, c) {
        char *p = mtb_asprintf("%s/load.hlog", mtb_jstr(c, "dir"));
        if (!strcmp(mtb_jstr(c, "status"), "ok") && mtb_file_exists(p))
            paths[n++] = p;
        else
            free(p);
    }
    if (n && n == json_array_size(clients)) {
        char *out = mtb_asprintf("%s/load.hlog", dir);
        if ((rc = mtb_hlog_merge(paths, n, out, err, sizeof err)) != 0)
            fprintf(stderr, "mtebench: merged interval log not written: %s\n", err);
        free(out);
    } else if (json_array_size(clients)) {
        fprintf(stderr, "mtebench: merged interval log not written: %zu of %zu hosts' load.hlog came back\n", n,
                json_array_size(clients));
    }
    for (i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

int mtb_cmd_hlog_merge(int argc, char **argv)
{
    char err[MTB_ERRLEN];
    int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (help || argc < 3) {
        fprintf(help ? stdout : stderr, "usage: mtebench hlog-merge OUT.hlog IN.hlog...\n"
                "  Adds the intervals of the same tag and second of every IN bucket by bucket\n"
                "  (never averaging percentiles) and writes OUT atomically.\n");
        return help ? 0 : 2;
    }
    if (mtb_hlog_merge(argv + 2, (size_t)argc - 2, argv[1], err, sizeof err)) {
        fprintf(stderr, "mtebench hlog-merge: %s\n", err);
        return 2;
    }
    return 0;
}

void mtb_hlog_from_load(const char *dir, json_t *load)
{
    json_t *hist = json_object_get(load, "histogram");
    struct mtl_hist h;
    double dur = mtb_jnum(load, "duration_s");
    char *path, *tmp;
    FILE *f;
    int rc;

    if (!json_is_object(load) || json_object_get(load, "hlog") || !json_array_size(hist) ||
        mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST))
        return;
    add_histogram(&h, hist);
    path = mtb_asprintf("%s/driver.hlog", dir);
    if ((f = mtl_open_tmp(path, &tmp)) != NULL) {
        char who[160];
        snprintf(who, sizeof who, "mtebench %s: the driver's latency histogram, one interval over the measured "
                 "window, tag request", mtb_version);
        rc = mtl_hlog_write_header(f, (double)time(NULL) - (isfinite(dur) && dur > 0 ? dur : 0), who);
        if (!rc)
            rc = mtl_hlog_write_interval(f, "request", 0.0, isfinite(dur) && dur > 0 ? dur : 0, &h);
        if (mtl_close_rename(f, tmp, path, rc) == 0)
            json_object_set_new(load, "hlog", json_string("driver.hlog"));
    }
    free(path);
    path = mtb_asprintf("%s/driver.hgrm", dir);
    if ((f = mtl_open_tmp(path, &tmp)) != NULL)
        mtl_close_rename(f, tmp, path, mtl_hist_write_hgrm(&h, f, 1e6));
    free(path);
    mtl_hist_free(&h);
}

/* a record's load histogram ([[value_us, count], ...]) added into h */
static void add_histogram(struct mtl_hist *h, json_t *hist)
{
    size_t i;
    json_t *b;
    json_array_foreach(hist, i, b) {
        double us = json_number_value(json_array_get(b, 0));
        json_int_t n = json_integer_value(json_array_get(b, 1));
        if (us >= 0 && n > 0)
            mtl_hist_record_n(h, (uint64_t)llround(us * 1000.0), (uint64_t)n);
    }
}

/* SERVICE-VARIANT-MODE-PLATFORM-KERNEL-WORKLOAD[-HOST] of safe characters */
static char *config_file_name(json_t *rec)
{
    json_t *c = json_object_get(rec, "config");
    const char *host = mtb_jstr(json_object_get(rec, "environment"), "hostname");
    char *n = mtb_asprintf("%s-%s-%s-%s-%s-%s%s%s", mtb_jstr(c, "service"), mtb_jstr(c, "variant"), mtb_jstr(c, "mode"),
                           mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"),
                           mtb_jstr(json_object_get(c, "workload"), "name"), *host ? "-" : "", host);
    for (char *p = n; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
    return n;
}

int mtb_hgrm_write_configs(const struct mtb_record_set *set, const char *dir, char *err, size_t errlen)
{
    json_t *groups = json_object(), *rec, *g;
    const char *name;
    size_t i;
    int rc = 0;
    char *hdir = mtb_asprintf("%s/hgrm", dir);

    json_array_foreach(set->records, i, rec) {
        char *n;
        if (strcmp(mtb_jstr(rec, "status"), "ok") || !json_array_size(json_object_get(json_object_get(rec, "load"), "histogram")))
            continue;
        n = config_file_name(rec);
        if (!json_object_get(groups, n))
            json_object_set_new(groups, n, json_array());
        json_array_append(json_object_get(groups, n), rec);
        free(n);
    }
    if (json_object_size(groups) && mtb_mkdir_p(hdir) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", hdir, strerror(errno));
        rc = -1;
    }
    json_object_foreach(groups, name, g) {
        struct mtl_hist h;
        char *path, *tmp;
        FILE *f;
        size_t k;
        json_t *r;
        if (rc || mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST))
            break;
        json_array_foreach(g, k, r) add_histogram(&h, json_object_get(json_object_get(r, "load"), "histogram"));
        path = mtb_asprintf("%s/%s.hgrm", hdir, name);
        if (!(f = mtl_open_tmp(path, &tmp)) || mtl_close_rename(f, tmp, path, mtl_hist_write_hgrm(&h, f, 1e6))) {
            snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
            rc = -1;
        }
        free(path);
        mtl_hist_free(&h);
    }
    json_decref(groups);
    free(hdir);
    return rc;
}
