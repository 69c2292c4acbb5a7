/* zipf.h - Zipf-distributed ranks in O(1) memory and expected O(1) time.
 *
 * Rejection-inversion sampling (W. Hormann, G. Derflinger, "Rejection-inversion
 * to generate variates from monotone discrete distributions", ACM TOMACS 6(3),
 * 1996): P(rank k) is proportional to 1/k^s for k = 1..n. The sampler holds a few
 * doubles, so threads share a read-only struct and pass their own RNG.
 */
#ifndef MTL_ZIPF_H
#define MTL_ZIPF_H
#include <stdint.h>
#include "loadgen/rng.h"

struct mtl_zipf {
    uint64_t n;          /* number of ranks */
    double s;            /* exponent */
    double h_x1;         /* H(1.5) - 1 */
    double h_n;          /* H(n + 0.5) */
    double accept;       /* squeeze constant */
};

/** @return 0, or EINVAL unless n >= 1 and 0 < s <= 100. */
int mtl_zipf_init(struct mtl_zipf *z, uint64_t n, double s);
/** A rank in [0, n): 0 is the most popular. */
uint64_t mtl_zipf_sample(const struct mtl_zipf *z, struct mtl_rng *r);
/** Exact probability of rank k (0-based), for tests. O(n) per call. */
double mtl_zipf_pmf(const struct mtl_zipf *z, uint64_t k);
#endif
