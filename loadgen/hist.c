/* hist.c - log-linear latency histogram. */
#include "hist.h"
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
    want = (uint64_t)ceil(pct / 100.0 * (double)h->total);
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

/* Percentile levels as HdrHistogram reports them: 5 ticks per halving of the
 * distance to 100%, so resolution grows towards the tail. */
int mtl_hist_write_hgrm(const struct mtl_hist *h, FILE *f, double scale)
{
    const int ticks_per_half = 5;
    double level = 0.0;
    uint64_t seen = 0;
    size_t i = 0;
    int nb = 0;

    fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
    if (h->total > 0) {
        for (;;) {
            uint64_t want = (uint64_t)ceil(level / 100.0 * (double)h->total);
            double pct;
            uint64_t v;

            if (want < 1)
                want = 1;
            while (i < h->nbuckets && seen + h->counts[i] < want)
                seen += h->counts[i++];
            if (i >= h->nbuckets)
                break;
            v = clamp_value(h, mtl_hist_bucket_value(h, i));
            pct = (double)(seen + h->counts[i]) / (double)h->total;
            if (pct >= 1.0) {
                fprintf(f, "%12.3f %14.12f %10llu\n", (double)h->max / scale, 1.0,
                        (unsigned long long)h->total);
                break;
            }
            fprintf(f, "%12.3f %14.12f %10llu %14.2f\n", (double)v / scale, pct,
                    (unsigned long long)(seen + h->counts[i]), 1.0 / (1.0 - pct));
            /* next level strictly above what this bucket already covers */
            do {
                double half = 100.0 - level;
                double ticks = ticks_per_half *
                               pow(2.0, floor(log2(100.0 / half)) + 1);
                level += 100.0 / ticks;
            } while (level < 100.0 && level / 100.0 <= pct);
            if (level >= 100.0)
                level = 100.0;
        }
    }
    for (i = 0; i < h->nbuckets; i++)
        nb += h->counts[i] != 0;
    fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
            mtl_hist_mean(h) / scale, mtl_hist_stddev(h) / scale);
    fprintf(f, "#[Max     = %12.3f, Total count    = %12llu]\n",
            (double)h->max / scale, (unsigned long long)h->total);
    fprintf(f, "#[Buckets = %12zu, SubBuckets     = %12u]\n", h->nbuckets,
            1u << h->sub_bits);
    return ferror(f) ? EIO : 0;
}
