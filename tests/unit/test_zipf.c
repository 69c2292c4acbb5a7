/* test_zipf.c - the zipf sampler against its exact distribution (chi-square). */
#include <math.h>
#include <stdlib.h>
#include "loadgen/zipf.h"
#include "tap.h"

/* chi-square statistic of counts vs n*pmf over the first k ranks + a tail bin */
static double chi_square(const struct mtl_zipf *z, const uint64_t *counts, uint64_t draws,
                         unsigned k, unsigned *df)
{
    double chi = 0, tail_p = 1, tail_n = draws;
    unsigned i;
    for (i = 0; i < k; i++) {
        double p = mtl_zipf_pmf(z, i), e = p * (double)draws;
        chi += ((double)counts[i] - e) * ((double)counts[i] - e) / e;
        tail_p -= p;
        tail_n -= (double)counts[i];
    }
    if (tail_p * (double)draws > 5) {
        double e = tail_p * (double)draws;
        chi += (tail_n - e) * (tail_n - e) / e;
        *df = k;
    } else {
        *df = k - 1;
    }
    return chi;
}

static void check(uint64_t n, double s, unsigned k)
{
    struct mtl_zipf z;
    struct mtl_rng r;
    const uint64_t draws = 1000000;
    uint64_t *counts = calloc(n, sizeof(*counts)), i, bad = 0;
    unsigned df;
    double chi, crit;

    ok(mtl_zipf_init(&z, n, s) == 0, "init n=%llu s=%.2f", (unsigned long long)n, s);
    mtl_rng_seed(&r, 7 + n);
    for (i = 0; i < draws; i++) {
        uint64_t x = mtl_zipf_sample(&z, &r);
        if (x >= n) bad++; else counts[x]++;
    }
    ok(bad == 0, "all samples in range");
    if (n == 1) {
        ok(counts[0] == draws, "a single key is always drawn");
        free(counts);
        return;
    }
    chi = chi_square(&z, counts, draws, k, &df);
    /* 99.9% quantile of chi-square(df), Wilson-Hilferty approximation */
    crit = df * pow(1 - 2.0 / (9 * df) + 3.09 * sqrt(2.0 / (9 * df)), 3);
    ok(chi < crit, "chi-square %.1f < %.1f (df %u, n=%llu, s=%.2f)", chi, crit, df,
       (unsigned long long)n, s);
    free(counts);
}

int main(void)
{
    struct mtl_zipf z;
    check(100, 0.99, 99);
    check(1000, 1.0, 100);
    check(10000, 1.2, 100);
    check(50, 0.5, 49);
    check(1, 1.0, 1);
    ok(mtl_zipf_init(&z, 0, 1.0) != 0, "n = 0 refused");
    ok(mtl_zipf_init(&z, 10, 0.0) != 0, "s = 0 refused");
    return done_testing();
}
