/* adapt.c - see adapt.h */
#include "loadgen/adapt.h"
#include "loadgen/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_BITS 7
#define HIGHEST (200ULL * 1000 * 1000 * 1000) /* 200 s in ns */


int mtl_adapt_init(struct mtl_adapt *a)
{
    memset(a, 0, sizeof *a);
    if (mtl_hist_init(&a->corrected, SUB_BITS, HIGHEST) || mtl_hist_init(&a->uncorrected, SUB_BITS, HIGHEST))
        return ENOMEM;
    a->first_s = -1;
    return 0;
}

void mtl_adapt_free(struct mtl_adapt *a)
{
    mtl_hist_free(&a->corrected);
    mtl_hist_free(&a->uncorrected);
    for (size_t i = 0; i < a->nsec; i++)
        mtl_hist_free(&a->sec_hist[i]);
    free(a->sec_hist);
    a->sec_hist = NULL;
    a->nsec = 0;
}

static struct mtl_hist *second(struct mtl_adapt *a, size_t s)
{
    if (s >= MTL_ADAPT_MAX_SECONDS)
        return NULL;
    if (s >= a->nsec) {
        struct mtl_hist *n = realloc(a->sec_hist, (s + 1) * sizeof *n);
        if (!n)
            return NULL;
        a->sec_hist = n;
        for (size_t i = a->nsec; i <= s; i++)
            if (mtl_hist_init(&a->sec_hist[i], 5, HIGHEST)) /* ~3% buckets are enough per second */
                return NULL;
        a->nsec = s + 1;
    }
    return &a->sec_hist[s];
}

void mtl_adapt_record(struct mtl_adapt *a, double t, uint64_t lat_ns, uint64_t lag_ns)
{
    if (a->first_s < 0 || t < a->first_s)
        a->first_s = t;
    if (t > a->last_s)
        a->last_s = t;
    mtl_hist_record(&a->corrected, lat_ns + lag_ns);
    mtl_hist_record(&a->uncorrected, lat_ns);
    a->requests++;
    size_t s = (size_t)(t - a->first_s);
    struct mtl_hist *h = second(a, s);
    if (h) {
        mtl_hist_record(h, lat_ns + lag_ns);
        a->sec_ops[s]++;
    }
}

int mtl_adapt_pgbench_log(struct mtl_adapt *a, FILE *f, double skip_before, long *bad_line)
{
    char line[512];
    long no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        long client, tx, script;
        char tbuf[32];
        long long epoch, usec, lag = 0;
        int n = sscanf(line, "%ld %ld %31s %ld %lld %lld %lld", &client, &tx, tbuf, &script, &epoch, &usec, &lag);
        if (n < 6) {
            if (bad_line)
                *bad_line = no;
            return EINVAL;
        }
        double t = (double)epoch + (double)usec / 1e6;
        if (skip_before > 0 && t < skip_before)
            continue;
        if (!strcmp(tbuf, "failed") || !strcmp(tbuf, "skipped")) {
            if (tbuf[0] == 'f')
                a->failed++;
            else
                a->skipped++;
            if (a->first_s >= 0 && t >= a->first_s && (size_t)(t - a->first_s) < MTL_ADAPT_MAX_SECONDS)
                a->sec_err[(size_t)(t - a->first_s)]++;
            continue;
        }
        char *end;
        long long lat_us = strtoll(tbuf, &end, 10);
        if (*end || lat_us < 0) {
            if (bad_line)
                *bad_line = no;
            return EINVAL;
        }
        /* pgbench's time is counted from the transaction's scheduled start,
         * its schedule lag included (pgbench.c: latency = now - txn_scheduled;
         * lag = txn_begin - txn_scheduled): already the corrected latency.
         * From the actual start (uncorrected) it is time - lag. The log's
         * time stamp is the transaction's end; its scheduled start is earlier. */
        long long lag_us = n >= 7 && lag > 0 ? (lag < lat_us ? lag : lat_us) : 0;
        double start = t - (double)lat_us / 1e6;
        mtl_adapt_record(a, start, (uint64_t)(lat_us - lag_us) * 1000, (uint64_t)lag_us * 1000);
    }
    return 0;
}

/* Find the section of db_bench output that belongs to one benchmark: from
 * its summary line to the next summary line. A line starts after '\n', or
 * after the '\r' that ends db_bench's progress ("... finished N ops\r" on
 * stderr, which the summary on stdout follows directly in a shared log). */
int mtl_adapt_dbbench(struct mtl_adapt *a, const char *text, const char *bench, double *ops_per_sec,
                      double *seconds, uint64_t *operations)
{
    size_t bl = strlen(bench);
    const char *p = text, *sum = NULL;
    while ((p = strstr(p, bench))) {
        if ((p == text || p[-1] == '\n' || p[-1] == '\r') && (p[bl] == ' ' || p[bl] == '\t')) {
            /* look only within this line: a scan to the end of the text per
             * candidate line would make the search quadratic */
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            const char *colon = memchr(p, ':', len);
            if (colon && memmem(colon, len - (size_t)(colon - p), "micros/op", 9)) {
                sum = p;
                break;
            }
        }
        p += bl;
    }
    if (!sum)
        return ENOENT;
    double us_op = 0, ops = 0, secs = 0;
    unsigned long long nops = 0;
    const char *colon = strchr(sum, ':');
    if (sscanf(colon + 1, " %lf micros/op %lf ops/sec %lf seconds %llu operations", &us_op, &ops, &secs, &nops) < 2)
        return EINVAL;
    *ops_per_sec = ops;
    *seconds = secs;
    *operations = nops;
    /* the histogram sections follow the summary line, up to the next
     * benchmark's summary line; bucket lines are "( lo, hi ] count pct cum" */
    const char *q = strchr(sum, '\n');
    while (q && *++q) {
        const char *nl = strchr(q, '\n');
        size_t len = nl ? (size_t)(nl - q) : strlen(q);
        if (memmem(q, len, " micros/op ", 11) && memmem(q, len, " ops/sec", 8))
            break;
        double lo, hi;
        unsigned long long cnt;
        if ((*q == '[' || *q == '(') && sscanf(q + 1, " %lf , %lf %*c %llu", &lo, &hi, &cnt) == 3 && lo >= 0 &&
            hi >= lo && hi <= 1e12) { /* micros: a bucket beyond 11 days is not db_bench's */
            /* a bucket's count in one step: linear in the lines, not in the
             * count (a corrupt count of 2^64-1 once looped for ever) */
            uint64_t mid_ns = (uint64_t)((lo + hi) / 2 * 1000);
            mtl_hist_record_n(&a->corrected, mid_ns, cnt);
            mtl_hist_record_n(&a->uncorrected, mid_ns, cnt);
        }
        q = nl;
    }
    a->requests = nops;
    return 0;
}

int mtl_adapt_wrk(struct mtl_adapt *a, const char *text, double *seconds, json_t *errors)
{
    double pts_p[256], pts_v[256];
    int np = 0;
    unsigned long long req = 0, dur = 0;
    const char *p = text;
    while (p && *p) {
        double x, y;
        char kind[32];
        unsigned long long n;
        if (sscanf(p, "P %lf %lf", &x, &y) == 2 && np < 256) {
            /* a percentile in 0..100 and a latency in 0..1e9 us, or the report is not wrk's */
            if (!(x >= 0 && x <= 100) || !(y >= 0 && y <= 1e9))
                return EINVAL;
            pts_p[np] = x;
            pts_v[np] = y;
            np++;
        } else if (sscanf(p, "REQ %llu", &n) == 1) {
            req = n;
        } else if (sscanf(p, "DUR %llu", &n) == 1) {
            dur = n;
        } else if (sscanf(p, "ERR %31s %llu", kind, &n) == 2 && errors) {
            json_object_set_new(errors, kind, json_integer((json_int_t)n));
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (np == 0 || req == 0)
        return EINVAL;
    /* spread the requests over the percentile points: the share between two
     * points gets the upper point's latency */
    double prev = 0;
    uint64_t done = 0;
    for (int i = 0; i < np; i++) {
        double share = (double)req * pts_p[i] / 100.0 + 0.5;
        uint64_t upto = share >= (double)req ? req : (uint64_t)share; /* no llround: req may pass 2^63 */
        if (i == np - 1)
            upto = req;
        if (upto > done) { /* in one step: REQ may be any count (linear in the points, not the requests) */
            mtl_hist_record_n(&a->corrected, (uint64_t)(pts_v[i] * 1000), upto - done);
            mtl_hist_record_n(&a->uncorrected, (uint64_t)(pts_v[i] * 1000), upto - done);
            done = upto;
        }
        prev = pts_p[i];
    }
    (void)prev;
    a->requests = req;
    *seconds = (double)dur / 1e6;
    return 0;
}

json_t *mtl_adapt_json(const struct mtl_adapt *a, const char *driver, double duration_s, json_t *config,
                       json_t *errors)
{
    json_t *ts = json_array();
    for (size_t s = 0; s < a->nsec; s++)
        json_array_append_new(ts, json_pack("{s:I,s:I,s:f,s:f,s:I}", "t", (json_int_t)s + 1, "ops",
                                            (json_int_t)a->sec_ops[s], "p50_us",
                                            (double)mtl_hist_percentile(&a->sec_hist[s], 50) / 1e3, "p99_us",
                                            (double)mtl_hist_percentile(&a->sec_hist[s], 99) / 1e3, "errors",
                                            (json_int_t)a->sec_err[s]));
    if (!errors)
        errors = json_object();
    json_object_set_new(errors, "failed", json_integer((json_int_t)a->failed));
    json_object_set_new(errors, "skipped", json_integer((json_int_t)a->skipped));
    double ops = duration_s > 0 ? (double)a->requests / duration_s : 0;
    return json_pack("{s:s,s:s,s:o,s:f,s:{s:I,s:f,s:o},s:{s:o,s:o},s:o,s:o,s:o,s:{s:b}}", "schema", "mtload/1",
                     "driver", driver, "config", config ? config : json_object(), "duration_s", duration_s,
                     "totals", "requests", (json_int_t)a->requests, "ops_per_sec", ops, "errors", errors,
                     "latency_us", "corrected", mtl_latency_json(&a->corrected), "uncorrected",
                     mtl_latency_json(&a->uncorrected), "histogram", mtl_buckets_json(&a->corrected),
                     "histogram_uncorrected", mtl_buckets_json(&a->uncorrected), "timeseries", ts, "cpu", "client_bound", 0);
}
