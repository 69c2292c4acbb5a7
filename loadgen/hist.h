/* hist.h - log-linear latency histogram (HdrHistogram-like).
 *
 * Values are unsigned integers (mtload records nanoseconds). Every power of two
 * is split into 2^sub_bits linear sub-buckets, so a bucket is at most 1/2^sub_bits
 * of its lower bound wide: with sub_bits = 7 the width is < 0.79% and the bucket
 * midpoint used for reporting is within 0.4% of any value in it. Values below
 * 2^sub_bits are exact. Recording is a count-leading-zeros and an increment into
 * an array allocated once at init; nothing allocates afterwards.
 */
#ifndef MTL_HIST_H
#define MTL_HIST_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mtl_hist {
    unsigned sub_bits;     /* log2 of sub-buckets per power of two */
    size_t nbuckets;       /* length of counts */
    uint64_t highest;      /* largest trackable value; larger ones are clamped */
    uint64_t *counts;
    uint64_t total;        /* number of recorded values */
    uint64_t min, max;     /* exact extremes (min = UINT64_MAX when empty) */
    uint64_t clamped;      /* values above highest */
    double sum, sumsq;     /* exact moments for mean and standard deviation */
};

/**
 * Allocate a histogram covering 0..highest.
 * @param sub_bits 1..16 (7 gives <1% relative error)
 * @param highest  largest value tracked exactly to the bucket precision (>= 2^sub_bits)
 * @return 0, EINVAL for bad parameters, ENOMEM.
 */
int mtl_hist_init(struct mtl_hist *h, unsigned sub_bits, uint64_t highest);
void mtl_hist_free(struct mtl_hist *h);
/** Forget all recorded values (keeps the allocation). */
void mtl_hist_reset(struct mtl_hist *h);

/** Bucket index of value v (v <= highest). */
static inline size_t mtl_hist_index(unsigned sub_bits, uint64_t v)
{
    unsigned e, shift;
    if (v < (1ULL << sub_bits))
        return (size_t)v;
    e = 63u - (unsigned)__builtin_clzll(v);
    shift = e - sub_bits;
    return ((size_t)shift << sub_bits) + (size_t)(v >> shift);
}

/** Record the value v n times at once (an adapter's percentile points). */
static inline void mtl_hist_record_n(struct mtl_hist *h, uint64_t v, uint64_t n)
{
    double d = (double)v;
    if (!n)
        return;
    if (v > h->highest) {
        h->clamped += n;
        h->counts[h->nbuckets - 1] += n;
    } else {
        h->counts[mtl_hist_index(h->sub_bits, v)] += n;
    }
    h->total += n;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->sum += d * (double)n;
    h->sumsq += d * d * (double)n;
}

/** Record one value (the request loop's path: n = 1 folds away when inlined). */
static inline void mtl_hist_record(struct mtl_hist *h, uint64_t v) { mtl_hist_record_n(h, v, 1); }

/** Lowest value that falls into bucket idx, and the bucket's width. */
uint64_t mtl_hist_bucket_low(const struct mtl_hist *h, size_t idx, uint64_t *width);
/** The value reported for bucket idx: its midpoint. */
uint64_t mtl_hist_bucket_value(const struct mtl_hist *h, size_t idx);

/** Significant digits of the HdrHistogram whose bucket layout a histogram of
 *  sub_bits has (4, 7, 10, 14, 17: 1..5 digits); -1 for any other. */
int mtl_hist_hdr_digits(unsigned sub_bits);

/** Add src into dst. @return 0, or EINVAL when their shapes differ. */
int mtl_hist_merge(struct mtl_hist *dst, const struct mtl_hist *src);

/** Value at percentile pct (0..100), clamped to [min, max]; 0 when empty. */
uint64_t mtl_hist_percentile(const struct mtl_hist *h, double pct);
double mtl_hist_mean(const struct mtl_hist *h);
double mtl_hist_stddev(const struct mtl_hist *h);

/**
 * Write the percentile distribution in HdrHistogram's .hgrm text format.
 * @param scale divide recorded values by this for output (1e6 turns ns into ms).
 * @return 0 or an errno value from the stream.
 */
int mtl_hist_write_hgrm(const struct mtl_hist *h, FILE *f, double scale);
#endif
