/* hlog_import.c - HdrHistogram interval logs as report runs (hlog_import.h). */
#include "report/hlog_import.h"
#include "core/loadlog.h"
#include "common/atomicfile.h"
#include "loadgen/report.h"
#include "lib/jsonx.h"
#include "core/record.h"
#include "lib/util.h"
#include "loadgen/engine.h"
#include "loadgen/hlog.h"
#include "loadgen/intervals.h"
#include "common/version.h"
#include "lib/files.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/** Does path name an HdrHistogram log (a regular file ending in .hlog, or
 *  with "#[Histogram log format version ...]" among its first comment lines)? */
static int mtb_hlog_is_log(const char *path)
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

static int skip_tag(const struct mtb_hlog_acc *a, const char *tag)
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

static json_t *record_of(const char *path, const struct mtb_hlog_slot *s, const struct mtl_hist *h, double start_epoch)
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

/**
 * The runs of one log as run records (schema mtebench-run/1, driver "hlog",
 * config.service "peer", config.variant the file's name and the tag): one per
 * tag of the log, or only "request"/untagged when it has one, uncorrected
 * tags left out. Every interval of a tag is summed bucket by bucket.
 * @param unit  the unit of a log without "#[ValueUnit: X]" (NULL: ns)
 * @return a new array of records, or NULL with why in err (named: file, line).
 */
static json_t *mtb_hlog_records(const char *path, const char *unit, char *err, size_t errlen)
{
    struct mtb_hlog_acc a;
    double start_epoch = 0;
    json_t *out;
    size_t i;

    err[0] = 0;
    if (mtb_hlog_acc_init(&a, 0) || mtb_hlog_acc_read(path, unit, &a, &start_epoch, err, errlen)) {
        if (!err[0])
            snprintf(err, errlen, "%s: out of memory", path);
        mtb_hlog_acc_free(&a);
        return NULL;
    }
    out = json_array();
    for (i = 0; i < a.n; i++)
        if (!skip_tag(&a, a.s[i].tag) && a.s[i].sp.total)
            json_array_append_new(out, record_of(path, &a.s[i], mtb_hlog_acc_slot(&a, i), start_epoch));
    mtb_hlog_acc_free(&a);
    if (!json_array_size(out)) {
        snprintf(err, errlen, "%s: no values in any interval", path);
        json_decref(out);
        return NULL;
    }
    return out;
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
