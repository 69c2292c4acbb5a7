/* test_hlog.c - HdrHistogram V2 encoding and interval logs (loadgen/hlog.c):
 * round trips of mtload's layout (exact) and of other layouts (within one
 * bucket), the header's fields, varint edge values, named errors for bad
 * input, intervals folded per second. Java's reader is in hdrhistogram.t. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loadgen/engine.h"
#include "loadgen/hist.h"
#include "loadgen/hlog.h"
#include "loadgen/intervals.h"
#include "loadgen/rng.h"
#include "tap.h"

static int same_counts(const struct mtl_hist *a, const struct mtl_hist *b)
{
    return a->nbuckets == b->nbuckets && a->total == b->total &&
           !memcmp(a->counts, b->counts, a->nbuckets * sizeof(*a->counts));
}

static int count_cb(void *arg, const struct mtl_hlog_interval *iv)
{
    struct mtl_hist *sum = arg;
    return mtl_hist_merge(sum, iv->hist);
}

int main(void)
{
    struct mtl_hist h, d;
    struct mtl_rng r;
    char *b64 = NULL, err[256];
    uint64_t i;

    mtl_rng_seed(&r, 7);
    mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST);
    mtl_hist_init(&d, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST);
    ok(mtl_hlog_digits(7) == 2 && mtl_hlog_digits(10) == 3 && mtl_hlog_digits(4) == 1 && mtl_hlog_digits(5) == -1,
       "sub_bits 4/7/10 are HdrHistogram's 1/2/3 digits; 5 has no equivalent");

    /* empty histogram */
    ok(mtl_hlog_encode(&h, &b64) == 0 && b64 && !strncmp(b64, "HISTBAAA", 8), "empty histogram encodes, cookie 0x1c849304");
    ok(mtl_hlog_decode(b64, strlen(b64), 1, &d, err, sizeof err) == 0 && d.total == 0, "... and decodes empty");
    free(b64);

    /* values across the range, huge counts (9-byte varints), long zero runs */
    for (i = 0; i < 200000; i++)
        mtl_hist_record(&h, 1 + (mtl_rng_next(&r) % 50000000) * (1 + (i % 7 == 0) * 1000));
    mtl_hist_record_n(&h, 5, (uint64_t)1 << 62);
    mtl_hist_record_n(&h, (uint64_t)1 << 37, 1);
    ok(mtl_hlog_encode(&h, &b64) == 0, "a full histogram encodes");
    ok(mtl_hlog_decode(b64, strlen(b64), 1, &d, err, sizeof err) == 0, "... decodes");
    ok(same_counts(&h, &d), "... to the same counts, bucket for bucket (2^62 included)");
    {   /* min/max as HdrHistogram reports them: the buckets' extremes */
        uint64_t w, lo = mtl_hist_bucket_low(&h, mtl_hist_index(7, (uint64_t)1 << 37), &w);
        ok(d.max == lo + w - 1, "decoded max is the highest value of the top bucket");
    }
    /* the same values read as microseconds: scaled by 1000, within one bucket */
    {
        struct mtl_hist us;
        mtl_hist_init(&us, 7, MTL_HIST_HIGHEST);
        mtl_hist_reset(&h);
        for (i = 1; i < 20000; i += 7)
            mtl_hist_record(&h, i);
        free(b64);
        mtl_hlog_encode(&h, &b64);
        ok(mtl_hlog_decode(b64, strlen(b64), 1000, &us, err, sizeof err) == 0 && us.total == h.total, "us log: count kept");
        double p = (double)mtl_hist_percentile(&us, 99), q = (double)mtl_hist_percentile(&h, 99) * 1000;
        ok(fabs(p - q) <= q / 128 + 1000, "us log: p99 x 1000 within one bucket (%.0f vs %.0f)", p, q);
        mtl_hist_free(&us);
    }
    /* bad input: named errors */
    ok(mtl_hlog_decode("HIST!!!!", 8, 1, &d, err, sizeof err) == EINVAL && strstr(err, "base64"), "not base64: %s", err);
    {
        size_t n = strlen(b64);
        char *cut = strndup(b64, n - 12 - (n - 12) % 4);
        ok(mtl_hlog_decode(cut, strlen(cut), 1, &d, err, sizeof err) == EINVAL && strstr(err, "truncated"), "cut: %s", err);
        free(cut);
    }
    ok(mtl_hlog_decode("AAAAAAAAAAAA", 12, 1, &d, err, sizeof err) == EINVAL && strstr(err, "not an HdrHistogram V2"),
       "wrong cookie: %s", err);
    ok(mtl_hlog_decode("HISTAgAAAAAA", 12, 1, &d, err, sizeof err) == EINVAL && strstr(err, "V1"), "V1 named: %s", err);
    ok(mtl_hlog_unit_ns("us") == 1e3 && mtl_hlog_unit_ns("bytes") == 0, "units: us known, bytes not");
    free(b64);

    /* intervals: records of three seconds folded, a log written and read back */
    {
        struct mtl_intervals iv, sum;
        struct mtl_hist all;
        FILE *f;
        char path[] = "/tmp/test_hlog.XXXXXX";
        int fd = mkstemp(path);
        double start = 0;
        mtl_iv_init(&iv);
        mtl_iv_init(&sum);
        mtl_hist_init(&all, 7, MTL_HIST_HIGHEST);
        for (i = 0; i < 3000; i++)
            mtl_iv_record(&iv, i / 1000, i % 5 == 0, 1000 + i, 900 + i);
        ok(mtl_iv_add(&sum, &iv) == 0 && sum.len == 3, "three seconds kept");
        mtl_hist_reset(&h);
        mtl_iv_get(&sum, 1, MTL_IV_SET, &h);
        ok(h.total == 200, "second 2 has its 200 SETs");
        ok(mtl_iv_write_log(path, &sum, 1700000000.0, 2.5, NULL) == 0, "the log is written");
        f = fopen(path, "r");
        ok(f && mtl_hlog_read(f, path, NULL, &start, count_cb, &all, err, sizeof err) == 0, "... and read back");
        ok(all.total == 2 * (3000 + 3000), "6 tags: request (3000) + GET and SET (3000), corrected and uncorrected (%llu)",
           (unsigned long long)all.total);
        ok(start == 1700000000.0, "StartTime read back");
        if (f)
            fclose(f);
        close(fd);
        unlink(path);
        mtl_hist_free(&all);
        mtl_iv_free(&iv);
        mtl_iv_free(&sum);
    }
    mtl_hist_free(&h);
    mtl_hist_free(&d);
    return done_testing();
}
