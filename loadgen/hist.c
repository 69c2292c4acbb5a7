/* hist.c - log-linear latency histogram. */
#include "loadgen/hist.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mtl_hist_init(struct mtl_hist *h, unsigned sub_bits, uint64_t highest)
{
    memset(h, 0, sizeof(*h));
    if (sub_bits < 1 || sub_bits > 16 || highest < (1ULL << sub_bits) ||
        highest > (UINT64_MAX >> 1))
        return EINVAL;
    h->sub_bits = sub_bits;
    h->highest = highest;
    h->nbuckets = mtl_hist_index(sub_bits, highest) + 1;
    h->counts = calloc(h->nbuckets, sizeof(*h->counts));
    if (!h->counts)
        return ENOMEM;
    h->min = UINT64_MAX;
    return 0;
}

void mtl_hist_free(struct mtl_hist *h)
{
    free(h->counts);
    h->counts = NULL;
    h->nbuckets = 0;
}

void mtl_hist_reset(struct mtl_hist *h)
{
    memset(h->counts, 0, h->nbuckets * sizeof(*h->counts));
    h->total = h->clamped = h->max = 0;
    h->min = UINT64_MAX;
    h->sum = h->sumsq = 0;
}

uint64_t mtl_hist_bucket_low(const struct mtl_hist *h, size_t idx, uint64_t *width)
{
    size_t q = idx >> h->sub_bits;
    unsigned shift;

    if (q == 0) {
        *width = 1;
        return idx;
    }
    shift = (unsigned)q - 1;
    *width = 1ULL << shift;
    return (uint64_t)(idx - ((size_t)shift << h->sub_bits)) << shift;
}

uint64_t mtl_hist_bucket_value(const struct mtl_hist *h, size_t idx)
{
    uint64_t w, lo = mtl_hist_bucket_low(h, idx, &w);
    return lo + w / 2;
}

int mtl_hist_merge(struct mtl_hist *dst, const struct mtl_hist *src)
{
    size_t i;

    if (dst->sub_bits != src->sub_bits || dst->nbuckets != src->nbuckets)
        return EINVAL;
    for (i = 0; i < src->nbuckets; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->clamped += src->clamped;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    dst->sum += src->sum;
    dst->sumsq += src->sumsq;
    return 0;
}

static uint64_t clamp_value(const struct mtl_hist *h, uint64_t v)
{
    if (v < h->min) return h->min;
    if (v > h->max) return h->max;
    return v;
}

uint64_t mtl_hist_percentile(const struct mtl_hist *h, double pct)
{
    uint64_t want, seen = 0;
    size_t i;

    if (h->total == 0)
        return 0;
    if (pct >= 100.0)
        return h->max;
    if (pct < 0)
        pct = 0;
    /* the rank ceil(pct% of total); pct / 100 is inexact (99.9 / 100 * 60000 is
     * 59940.000000000007), so a relative 1e-12 is taken off before rounding up */
    {
        double x = pct / 100.0 * (double)h->total;
        want = (uint64_t)ceil(x - x * 1e-12);
    }
    if (want < 1)
        want = 1;
    for (i = 0; i < h->nbuckets; i++) {
        seen += h->counts[i];
        if (seen >= want)
            return clamp_value(h, mtl_hist_bucket_value(h, i));
    }
    return h->max;
}

double mtl_hist_mean(const struct mtl_hist *h)
{
    return h->total ? h->sum / (double)h->total : 0.0;
}

double mtl_hist_stddev(const struct mtl_hist *h)
{
    double m, var;
    if (h->total < 2)
        return 0.0;
    m = mtl_hist_mean(h);
    var = h->sumsq / (double)h->total - m * m;
    return var > 0 ? sqrt(var) : 0.0;
}

/* The HdrHistogram layout an mtl_hist of sub_bits has (hlog.h): its
 * significant digits (-1: none), bucket count and sub-bucket count. */
int mtl_hist_hdr_digits(unsigned sub_bits)
{
    static const unsigned mag[] = { 0, 4, 7, 10, 14, 17 };
    int d;
    for (d = 1; d <= 5; d++)
        if (mag[d] == sub_bits)
            return d;
    return -1;
}

static unsigned hdr_buckets(const struct mtl_hist *h)
{
    uint64_t smallest_untrackable = 2ULL << h->sub_bits;
    unsigned n = 1;
    while (smallest_untrackable <= h->highest && smallest_untrackable <= (UINT64_MAX >> 2)) {
        smallest_untrackable <<= 1;
        n++;
    }
    return n;
}

/* The highest value of bucket i, as HdrHistogram reports a bucket. */
static uint64_t bucket_high(const struct mtl_hist *h, size_t i)
{
    uint64_t w, lo = mtl_hist_bucket_low(h, i, &w);
    return lo + w - 1;
}

/* Mean and standard deviation over the buckets' middle values, as HdrHistogram
 * computes them (the .hgrm's footer; the JSON's come from exact sums). */
static void bucket_moments(const struct mtl_hist *h, double *mean, double *sd)
{
    double total = 0, dev = 0;
    size_t i;
    *mean = *sd = 0;
    if (!h->total)
        return;
    for (i = 0; i < h->nbuckets; i++)
        total += (double)mtl_hist_bucket_value(h, i) * (double)h->counts[i];
    *mean = total / (double)h->total;
    for (i = 0; i < h->nbuckets; i++)
        if (h->counts[i]) {
            double d = (double)mtl_hist_bucket_value(h, i) - *mean;
            dev += d * d * (double)h->counts[i];
        }
    *sd = sqrt(dev / (double)h->total);
}

/* v with dec decimals as Java's Formatter writes "%.Nf": the shortest decimal
 * digits that identify the double, rounded half up (printf rounds the exact
 * binary value: 0.99978027343750 became ...437 where Java writes ...438). */
static void jfixed(char *out, size_t n, double v, int dec)
{
    char tmp[40], dig[24];
    int p, e, nd = 0, keep, i, neg = v < 0;
    char *q;

    if (!isfinite(v) || v == 0) {
        snprintf(out, n, "%.*f", dec, v);
        return;
    }
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, fabs(v));
        if (strtod(tmp, NULL) == fabs(v))
            break;
    }
    for (q = tmp; *q && *q != 'e'; q++)
        if (isdigit((unsigned char)*q))
            dig[nd++] = *q;
    e = atoi(q + 1);                           /* value = d.ddd x 10^e */
    keep = e + 1 + dec;                        /* digits kept */
    if (keep < 0) {
        nd = 0;
        keep = 0;
    } else if (keep < nd) {
        int up = dig[keep] >= '5';
        nd = keep;
        for (i = nd - 1; up && i >= 0; i--) {
            if (dig[i] == '9') {
                dig[i] = '0';
            } else {
                dig[i]++;
                up = 0;
            }
        }
        if (up) {                              /* 9.99 -> 10.0 */
            memmove(dig + 1, dig, (size_t)nd);
            dig[0] = '1';
            nd++;
            e++;
        }
    }
    q = out;
    if (neg)
        *q++ = '-';
    /* integer part: digits 0..e */
    if (e < 0)
        *q++ = '0';
    for (i = 0; i <= e; i++)
        *q++ = i < nd ? dig[i] : '0';
    if (dec > 0)
        *q++ = '.';
    for (i = 0; i < dec; i++) {
        int k = e + 1 + i;                     /* index into dig of this decimal */
        *q++ = k >= 0 && k < nd ? dig[k] : '0';
    }
    *q = 0;
    (void)n;
}

/* HdrHistogram's outputPercentileDistribution, line for line: percentile
 * levels from 0 in steps of 100 / (5 * 2^(floor(log2(100 / (100 - level))) + 1))
 * (5 ticks per halving of the distance to 100%), each reported at the first
 * bucket whose cumulative share reaches it (one bucket may answer several
 * levels), then one last line at 100%; values are the bucket's highest value. */
int mtl_hist_write_hgrm(const struct mtl_hist *h, FILE *f, double scale)
{
    const long ticks_per_half = 5;
    int digits = mtl_hist_hdr_digits(h->sub_bits);
    int dec = digits < 0 ? 3 : digits, last_step = 0, fresh = 1;
    double level = 0.0, mean, sd;
    uint64_t seen = 0, max_high = 0;
    size_t i;
    char vb[64], pb[64], ib[64];

    fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
    for (i = h->nbuckets; i-- > 0;)
        if (h->counts[i]) {
            max_high = bucket_high(h, i);
            break;
        }
    i = 0;
    for (;;) {
        if (seen >= h->total) {                  /* every value counted: one more step, to 100% */
            if (last_step || !h->total)
                break;
            level = 100.0;
            last_step = 1;
        }
        for (; i < h->nbuckets; i++, fresh = 1) {
            if (fresh) {
                seen += h->counts[i];
                fresh = 0;
            }
            if (h->counts[i] && 100.0 * (double)seen / (double)h->total >= level)
                break;
        }
        if (i >= h->nbuckets)
            break;
        jfixed(vb, sizeof vb, (double)bucket_high(h, i) / scale, dec);
        jfixed(pb, sizeof pb, level != 100.0 ? level / 100.0 : 1.0, 12);
        if (level != 100.0) {
            jfixed(ib, sizeof ib, 1.0 / (1.0 - level / 100.0), 2);
            fprintf(f, "%12s %s %10llu %14s\n", vb, pb, (unsigned long long)seen, ib);
        } else {
            fprintf(f, "%12s %s %10llu\n", vb, pb, (unsigned long long)seen);
        }
        if (last_step)
            break;
        level += 100.0 / (double)(ticks_per_half *
                 (long)pow(2.0, (double)((long)(log(100.0 / (100.0 - level)) / log(2.0)) + 1)));
    }
    bucket_moments(h, &mean, &sd);
    jfixed(vb, sizeof vb, mean / scale, dec);
    jfixed(pb, sizeof pb, sd / scale, dec);
    fprintf(f, "#[Mean    = %12s, StdDeviation   = %12s]\n", vb, pb);
    jfixed(vb, sizeof vb, (double)max_high / scale, dec);
    fprintf(f, "#[Max     = %12s, Total count    = %12llu]\n", vb, (unsigned long long)h->total);
    if (digits < 0)
        fprintf(f, "#[Buckets = %12zu, SubBuckets     = %12u]\n", h->nbuckets, 1u << h->sub_bits);
    else
        fprintf(f, "#[Buckets = %12u, SubBuckets     = %12u]\n", hdr_buckets(h), 2u << h->sub_bits);
    return ferror(f) ? EIO : 0;
}
