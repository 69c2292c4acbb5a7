/* Adapters: real outputs of pgbench 15 (a -l transaction log, open loop at
 * 500/s) and db_bench 7.8.3 (--histogram=1), saved under tests/fixtures,
 * folded into mtload's format; and wrk's report lines. */
#include <errno.h>
#include <math.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen/adapt.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

static void test_pgbench(void)
{
    struct mtl_adapt a;
    ok(mtl_adapt_init(&a) == 0, "init");
    char *path = mtb_asprintf("%s/tests/fixtures/pgbench-15-rate.log", mtb_root());
    FILE *f = fopen(path, "r");
    long bad = 0;
    ok(f && mtl_adapt_pgbench_log(&a, f, 0, &bad) == 0, "pgbench log parsed");
    if (f)
        fclose(f);
    /* count lines independently */
    char *text = mtb_read_file(path, NULL);
    long lines = 0;
    for (char *p = text; p && *p; p++)
        lines += *p == '\n';
    ok((long)a.requests == lines, "one transaction per line (%llu of %ld)", (unsigned long long)a.requests, lines);
    /* first line: "3 1 17028 0 1796039127 75132 757": 17028 us from the
     * scheduled start, of which 757 us were schedule lag (pgbench counts a
     * transaction's latency from its scheduled start under --rate) */
    ok(a.corrected.max >= a.uncorrected.max, "corrected (with schedule lag) >= uncorrected");
    ok(mtl_hist_mean(&a.corrected) > mtl_hist_mean(&a.uncorrected), "lag adds to the corrected mean");
    /* pgbench's own "latency average" is the mean of the logged latencies, its
     * "schedule lag" average the mean of the lags: the corrected mean is the
     * former (not the two added), the uncorrected one their difference */
    double sum_lat = 0, sum_lag = 0;
    long nlat = 0;
    for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        long long c, tx, lat, sc, ep, us, lag = 0;
        if (sscanf(l, "%lld %lld %lld %lld %lld %lld %lld", &c, &tx, &lat, &sc, &ep, &us, &lag) >= 6) {
            sum_lat += (double)lat;
            sum_lag += (double)lag;
            nlat++;
        }
    }
    double pg_avg = sum_lat / nlat, pg_lag = sum_lag / nlat;
    double corr = mtl_hist_mean(&a.corrected) / 1e3, unc = mtl_hist_mean(&a.uncorrected) / 1e3;
    ok(pg_lag > 0.2 * pg_avg, "the fixture's schedule lag is large: %.0f us of a %.0f us average", pg_lag, pg_avg);
    ok(fabs(corr - pg_avg) <= 0.01 * pg_avg, "corrected mean %.0f us = pgbench's latency average %.0f us (1%%)", corr,
       pg_avg);
    ok(fabs(unc - (pg_avg - pg_lag)) <= 0.01 * pg_avg,
       "uncorrected mean %.0f us = pgbench's average less its schedule lag %.0f us (1%%)", unc, pg_avg - pg_lag);
    ok(a.nsec >= 2 && a.nsec <= 4, "per-second series over the ~2 s run (%zu s)", a.nsec);
    uint64_t sum = 0;
    for (size_t s = 0; s < a.nsec; s++)
        sum += a.sec_ops[s];
    ok(sum == a.requests, "series adds up to the total");
    json_t *j = mtl_adapt_json(&a, "pgbench", 2.0, NULL, NULL);
    ok(json_integer_value(json_object_get(json_object_get(j, "totals"), "requests")) == lines, "JSON totals");
    double p50 = json_number_value(json_object_get(json_object_get(json_object_get(j, "latency_us"), "corrected"), "p50"));
    ok(p50 > 100 && p50 < 1e6, "p50 in µs is plausible (%.0f)", p50);
    json_decref(j);
    mtl_adapt_free(&a);
    /* warm-up skipping: entries before a cut-off are dropped */
    mtl_adapt_init(&a);
    f = fopen(path, "r");
    mtl_adapt_pgbench_log(&a, f, 1796039128.0, NULL);
    fclose(f);
    ok(a.requests > 0 && (long)a.requests < lines, "warm-up entries skipped (%llu left)", (unsigned long long)a.requests);
    mtl_adapt_free(&a);
    /* malformed */
    mtl_adapt_init(&a);
    FILE *m = fmemopen("1 2 3\n", 6, "r");
    ok(mtl_adapt_pgbench_log(&a, m, 0, &bad) == EINVAL && bad == 1, "malformed line reported with its number");
    fclose(m);
    mtl_adapt_free(&a);
    free(text);
    free(path);
}

static double mtl_test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_dbbench(void)
{
    char *path = mtb_asprintf("%s/tests/fixtures/db_bench-7.8.3.txt", mtb_root());
    char *text = mtb_read_file(path, NULL);
    struct mtl_adapt a;
    mtl_adapt_init(&a);
    double ops = 0, secs = 0;
    uint64_t n = 0;
    ok(text && mtl_adapt_dbbench(&a, text, "readrandomwriterandom", &ops, &secs, &n) == 0, "db_bench parsed");
    ok(ops == 92048 && n == 186999 && fabs(secs - 2.032) < 1e-9, "summary line: %.0f ops/s, %llu ops, %.3f s", ops,
       (unsigned long long)n, secs);
    /* the read histogram alone has 168300 entries; writes 18699 */
    ok(a.corrected.total == 168300 + 18699, "histogram holds the benchmark's reads and writes (%llu)",
       (unsigned long long)a.corrected.total);
    uint64_t p50 = mtl_hist_percentile(&a.corrected, 50);
    ok(p50 >= 1000 && p50 <= 4000, "p50 between 1 and 4 µs as the table says (%llu ns)", (unsigned long long)p50);
    mtl_adapt_free(&a);
    mtl_adapt_init(&a);
    int rc = mtl_adapt_dbbench(&a, text, "fillseq", &ops, &secs, &n);
    ok(rc == 0 && a.corrected.total == 20000, "fillseq's own section only (%llu)", (unsigned long long)a.corrected.total);
    mtl_adapt_free(&a);
    mtl_adapt_init(&a);
    ok(mtl_adapt_dbbench(&a, text, "readrandom", &ops, &secs, &n) == ENOENT, "a benchmark not run is ENOENT");
    mtl_adapt_free(&a);
    /* the summary right after db_bench's progress on stderr, which ends in '\r' */
    mtl_adapt_init(&a);
    const char *cr = "... finished 1500 ops                              \rreadrandom :    1258.776 micros/op 794 "
                     "ops/sec 2.516 seconds 1999 operations; ( reads:1800 found:1800)\n";
    rc = mtl_adapt_dbbench(&a, cr, "readrandom", &ops, &secs, &n);
    ok(rc == 0 && n == 1999 && ops == 794, "a summary line after a progress line's carriage return (%llu ops)",
       (unsigned long long)n);
    mtl_adapt_free(&a);
    /* a corrupt bucket count (found by fuzz_adapt: it looped once per count) */
    mtl_adapt_init(&a);
    const char *huge = "readrandom   :       2.0 micros/op 500000 ops/sec 1.0 seconds 5 operations;\n"
                       "[       1,       2 ]  18446744073709551615 100.000% 100.000% ####\n";
    double t0 = mtl_test_now();
    ok(mtl_adapt_dbbench(&a, huge, "readrandom", &ops, &secs, &n) == 0 && a.corrected.total == UINT64_MAX &&
           mtl_test_now() - t0 < 1.0,
       "a bucket count of 2^64-1 is one step (%.3f s)", mtl_test_now() - t0);
    mtl_adapt_free(&a);
    free(text);
    free(path);
}

static void test_wrk(void)
{
    const char *out = "Running 2s test\nP 50 100\nP 90 200\nP 99 1000\nP 100 5000\nREQ 1000\nDUR 2000000\nERR timeout 3\n";
    struct mtl_adapt a;
    mtl_adapt_init(&a);
    double secs = 0;
    json_t *errs = json_object();
    ok(mtl_adapt_wrk(&a, out, &secs, errs) == 0 && a.requests == 1000 && secs == 2.0, "wrk report parsed");
    ok(a.corrected.total == 1000, "all requests in the histogram");
    uint64_t p50 = mtl_hist_percentile(&a.corrected, 50), p99 = mtl_hist_percentile(&a.corrected, 99);
    ok(llabs((long long)p50 - 100000) < 1000 && llabs((long long)p99 - 1000000) < 10000,
       "percentile points kept (p50 %llu ns, p99 %llu ns)", (unsigned long long)p50, (unsigned long long)p99);
    ok(json_integer_value(json_object_get(errs, "timeout")) == 3, "errors by kind");
    ok(mtl_adapt_wrk(&a, "nothing\n", &secs, NULL) == EINVAL, "no report lines is EINVAL");
    json_decref(errs);
    mtl_adapt_free(&a);
}

/* found by fuzz_adapt: a REQ of 2^64-1 once recorded the requests one by
 * one (for ever); a negative or NaN latency was converted to an integer */
static void test_wrk_hostile(void)
{
    struct mtl_adapt a;
    double secs = 0;
    mtl_adapt_init(&a);
    int rc = mtl_adapt_wrk(&a, "P 50 100\nP 100 200\nREQ 18446744073709551615\nDUR 1000000\n", &secs, NULL);
    ok(rc == 0 && a.corrected.total == 18446744073709551615ULL, "REQ 2^64-1: recorded at once (%llu)",
       (unsigned long long)a.corrected.total);
    mtl_adapt_free(&a);
    mtl_adapt_init(&a);
    ok(mtl_adapt_wrk(&a, "P 50 -5\nREQ 10\n", &secs, NULL) == EINVAL, "a negative latency is EINVAL");
    ok(mtl_adapt_wrk(&a, "P nan 5\nREQ 10\n", &secs, NULL) == EINVAL, "a NaN percentile is EINVAL");
    mtl_adapt_free(&a);
}

int main(void)
{
    test_wrk_hostile();
    test_pgbench();
    test_dbbench();
    test_wrk();
    return done_testing();
}
