/* test_hist.c - the histogram's error bound from 1 us to 100 s, merge, .hgrm. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "loadgen/hist.h"
#include "loadgen/engine.h"
#include "loadgen/rng.h"
#include "tap.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* worst relative error of the reported bucket value over values lo..hi step */
static double worst_error(const struct mtl_hist *h, uint64_t lo, uint64_t hi, uint64_t step)
{
    double worst = 0;
    uint64_t v;
    for (v = lo; v <= hi; v += step) {
        uint64_t r = mtl_hist_bucket_value(h, mtl_hist_index(h->sub_bits, v));
        double e = fabs((double)r - (double)v) / (double)v;
        if (e > worst)
            worst = e;
    }
    return worst;
}

int main(void)
{
    struct mtl_hist h, a, b;
    struct mtl_rng r;
    const uint64_t us = 1000, s = 1000000000ULL;
    enum { N = 200000 };
    static uint64_t vals[N];
    double worst = 0, pcts[] = { 1, 10, 50, 90, 99, 99.9, 99.99 };
    size_t i;
    FILE *f;
    char *buf = NULL;
    size_t blen = 0;

    ok(mtl_hist_init(&h, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) == 0, "init");
    ok(mtl_hist_init(&a, 0, 100) != 0, "sub_bits 0 rejected");
    ok(h.highest >= 100 * s, "range reaches 100 s (highest %.1f s)", (double)h.highest / 1e9);

    /* low end: every value from 1 us to 1.1 us, and around each power of two there */
    worst = worst_error(&h, us, us + 100, 1);
    ok(worst <= 0.01, "1 us: max relative error %.4f%% <= 1%%", worst * 100);
    worst = worst_error(&h, 1023, 4097, 1);
    ok(worst <= 0.01, "1-4 us (power-of-two edges): max relative error %.4f%%", worst * 100);
    /* high end: values around 100 s and the top of the range */
    worst = worst_error(&h, 100 * s - 50000, 100 * s + 50000, 7);
    ok(worst <= 0.01, "100 s: max relative error %.4f%%", worst * 100);
    worst = worst_error(&h, h.highest - 1000000, h.highest, 997);
    ok(worst <= 0.01, "top of range: max relative error %.4f%%", worst * 100);
    ok(mtl_hist_index(h.sub_bits, h.highest) < h.nbuckets, "highest value has a bucket");

    /* random values, log-uniform from 1 us to 100 s: percentiles within 1% */
    mtl_rng_seed(&r, 42);
    for (i = 0; i < N; i++) {
        double lv = log(1e3) + mtl_rng_double(&r) * (log(1e11) - log(1e3));
        vals[i] = (uint64_t)exp(lv);
        mtl_hist_record(&h, vals[i]);
    }
    qsort(vals, N, sizeof(vals[0]), cmp_u64);
    worst = 0;
    for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        size_t rank = (size_t)ceil(pcts[i] / 100.0 * N);
        uint64_t exact = vals[rank - 1], got = mtl_hist_percentile(&h, pcts[i]);
        double e = fabs((double)got - (double)exact) / (double)exact;
        if (e > worst)
            worst = e;
    }
    ok(worst <= 0.01, "random values: percentile error %.4f%% <= 1%%", worst * 100);
    ok(mtl_hist_percentile(&h, 100) == vals[N - 1], "p100 is the exact max");
    ok(h.min == vals[0], "min exact");
    {
        double sum = 0;
        for (i = 0; i < N; i++)
            sum += (double)vals[i];
        ok(fabs(mtl_hist_mean(&h) - sum / N) / (sum / N) < 1e-9, "mean exact");
    }

    /* merge: two halves give the same as one */
    mtl_hist_init(&a, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST);
    mtl_hist_init(&b, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST);
    for (i = 0; i < N; i++)
        mtl_hist_record(i % 2 ? &a : &b, vals[i]);
    ok(mtl_hist_merge(&a, &b) == 0, "merge");
    ok(a.total == h.total && memcmp(a.counts, h.counts, h.nbuckets * 8) == 0,
       "merged counts equal the single histogram");
    ok(mtl_hist_percentile(&a, 99) == mtl_hist_percentile(&h, 99), "merged p99 equal");
    {
        struct mtl_hist small;
        mtl_hist_init(&small, 5, MTL_HIST_HIGHEST);
        ok(mtl_hist_merge(&a, &small) == EINVAL, "merging different shapes is refused");
        mtl_hist_free(&small);
    }

    /* clamping above the range */
    mtl_hist_reset(&b);
    mtl_hist_record(&b, UINT64_MAX / 4);
    ok(b.clamped == 1 && b.total == 1, "value above the range is clamped and counted");

    /* .hgrm export */
    f = open_memstream(&buf, &blen);
    ok(mtl_hist_write_hgrm(&h, f, 1e6) == 0, "hgrm written");
    fclose(f);
    ok(strstr(buf, "Value") && strstr(buf, "1/(1-Percentile)"), "hgrm header");
    ok(strstr(buf, "#[Mean    =") && strstr(buf, "StdDeviation") &&
       strstr(buf, "#[Max     =") && strstr(buf, "Total count") && strstr(buf, "#[Buckets"),
       "hgrm trailer");
    ok(strstr(buf, " 1.000000000000 ") != NULL, "hgrm reaches percentile 1.0");
    free(buf);

    mtl_hist_free(&h);
    mtl_hist_free(&a);
    mtl_hist_free(&b);
    return done_testing();
}
