/* test_stats.c - known-answer and coverage tests for harness/analysis/stats.c (TAP). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/stats.h"
#include "tap.h"

#ifndef COVERAGE_TRIALS
#define COVERAGE_TRIALS 200
#endif

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

static void test_median_quantile(void)
{
    double odd[] = {5, 1, 3};                /* sorted 1 3 5 */
    double even[] = {4, 1, 3, 2};            /* sorted 1 2 3 4 */
    double dup[] = {2, 2, 7, 2, 9, 7};       /* sorted 2 2 2 7 7 9 */
    double one[] = {42};
    double copy[] = {4, 1, 3, 2};

    ok(mtb_stats_median(odd, 3) == 3.0, "median odd unsorted {5,1,3} = 3");
    ok(mtb_stats_median(even, 4) == 2.5, "median even unsorted {4,1,3,2} = 2.5");
    ok(mtb_stats_median(dup, 6) == 4.5, "median with duplicates {2,2,7,2,9,7} = 4.5");
    ok(mtb_stats_median(one, 1) == 42.0, "median of one value");
    ok(isnan(mtb_stats_median(odd, 0)), "median n=0 is NaN");
    ok(isnan(mtb_stats_median(NULL, 3)), "median NULL is NaN");
    mtb_stats_median(copy, 4);
    ok(copy[0] == 4 && copy[1] == 1 && copy[2] == 3 && copy[3] == 2,
       "median does not modify its input");

    /* type 7: h = (n-1) q on the sorted sample */
    ok(mtb_stats_quantile(even, 4, 0.0) == 1.0, "quantile q=0 is the minimum");
    ok(mtb_stats_quantile(even, 4, 1.0) == 4.0, "quantile q=1 is the maximum");
    ok(near(mtb_stats_quantile(even, 4, 0.25), 1.75, 1e-12),
       "quantile {1,2,3,4} q=.25: h=0.75 -> 1 + .75*(2-1) = 1.75");
    ok(near(mtb_stats_quantile(even, 4, 0.9), 3.7, 1e-12),
       "quantile {1,2,3,4} q=.9: h=2.7 -> 3 + .7*(4-3) = 3.7");
    ok(near(mtb_stats_quantile(dup, 6, 0.5), 4.5, 1e-12), "quantile q=.5 equals median");
    ok(near(mtb_stats_quantile(dup, 6, 0.3), 2.0, 1e-12),
       "quantile with duplicates q=.3: h=1.5 between 2 and 2 -> 2");
    ok(near(mtb_stats_quantile(dup, 6, 0.5 + 0.1), 7.0, 1e-12),
       "quantile with duplicates q=.6: h=3 -> 7");
    ok(isnan(mtb_stats_quantile(even, 4, 1.5)) && isnan(mtb_stats_quantile(even, 4, -0.1)),
       "quantile q outside [0,1] is NaN");
    ok(isnan(mtb_stats_quantile(even, 0, 0.5)), "quantile n=0 is NaN");

    double m[] = {2, 4, 4, 4, 5, 5, 7, 9};
    ok(mtb_stats_mean(m, 8) == 5.0, "mean = 5");
    /* sum of squared deviations 32, /7 */
    ok(near(mtb_stats_stddev(m, 8), sqrt(32.0 / 7.0), 1e-12), "sample stddev = sqrt(32/7)");
    ok(isnan(mtb_stats_mean(m, 0)) && isnan(mtb_stats_stddev(m, 1)), "mean n=0, stddev n=1 are NaN");
}

static void test_geomean(void)
{
    int rc;
    struct mtb_stats_ci ci;
    double a[] = {1, 2, 4, 8}, b[] = {2, 8}, c[] = {3, 3, 3};
    rc = mtb_stats_geomean_ci(a, 4, 0.95, 2000, 1, &ci);
    ok(rc == 0 && near(ci.est, 2.8284271247461903, 1e-12),
       "geomean {1,2,4,8} = 2^1.5 = 2.828427 (got %.9f)", ci.est);
    ok(ci.lo <= ci.est && ci.est <= ci.hi, "geomean CI brackets the estimate [%g, %g]", ci.lo, ci.hi);
    rc = mtb_stats_geomean_ci(b, 2, 0.95, 2000, 1, &ci);
    ok(rc == 0 && near(ci.est, 4.0, 1e-12) && ci.lo <= 4.0 && ci.hi >= 4.0,
       "geomean {2,8} = 4, CI [%g, %g]", ci.lo, ci.hi);
    rc = mtb_stats_geomean_ci(c, 3, 0.95, 2000, 1, &ci);
    ok(rc == 0 && ci.est == 3.0 && ci.lo == 3.0 &&
       ci.hi == 3.0, "geomean of equal values: CI collapses");
    rc = mtb_stats_geomean_ci(a, 1, 0.95, 2000, 1, &ci);
    ok(rc == 0 && ci.lo == 1.0 && ci.hi == 1.0,
       "geomean n=1: CI collapses to the value");

    struct mtb_stats_ci c1, c2;
    mtb_stats_geomean_ci(a, 4, 0.95, 2000, 99, &c1);
    mtb_stats_geomean_ci(a, 4, 0.95, 2000, 99, &c2);
    ok(c1.lo == c2.lo && c1.hi == c2.hi, "geomean CI deterministic for a seed");

    double neg[] = {1, -2, 3}, zero[] = {1, 0, 3}, inf[] = {1, INFINITY};
    ci.est = 123;
    ok(mtb_stats_geomean_ci(neg, 3, 0.95, 100, 1, &ci) == -EDOM, "geomean negative -> -EDOM");
    ok(mtb_stats_geomean_ci(zero, 3, 0.95, 100, 1, &ci) == -EDOM, "geomean zero -> -EDOM");
    ok(ci.est == 123, "out untouched on error");
    ok(mtb_stats_geomean_ci(a, 0, 0.95, 100, 1, &ci) == -EINVAL, "geomean n=0 -> -EINVAL");
    ok(mtb_stats_geomean_ci(inf, 2, 0.95, 100, 1, &ci) == -EINVAL, "geomean inf -> -EINVAL");
    ok(mtb_stats_geomean_ci(a, 4, 1.0, 100, 1, &ci) == -EINVAL, "geomean conf=1 -> -EINVAL");
    ok(mtb_stats_geomean_ci(a, 4, 0.95, 0, 1, &ci) == -EINVAL, "geomean iters=0 -> -EINVAL");
}

static void test_median_cis(void)
{
    int rc;
    struct mtb_stats_ci ci;
    double achieved;
    double x[15];
    for (int i = 0; i < 15; i++)
        x[i] = 15 - i; /* 15..1 */
    /* n=15: P(B<=3) = (1+15+105+455)/32768 = 576/32768, coverage 1-1152/32768
     * = 0.96484 >= .95; P(B<=4) adds 1365 -> 1-3882/32768 = 0.88153 < .95.
     * So k = 4: [x_(4), x_(12)] = [4, 12]. */
    rc = mtb_stats_median_ci(x, 15, 0.95, &ci, &achieved);
    ok(rc == 0 && ci.est == 8 && ci.lo == 4 &&
       ci.hi == 12, "order-statistic median CI n=15: [4, 12] around 8 (got [%g, %g])",
       ci.lo, ci.hi);
    ok(near(achieved, 1.0 - 1152.0 / 32768.0, 1e-12), "achieved coverage 0.96484 (got %.5f)",
       achieved);
    /* n=5: even [min,max] covers only 1 - 2/32 = 0.9375 < 0.95 */
    rc = mtb_stats_median_ci(x, 5, 0.95, &ci, &achieved);
    ok(rc == 0 && ci.lo == 11 && ci.hi == 15 &&
       near(achieved, 0.9375, 1e-12), "n=5: [min,max], achieved 0.9375 reported");
    rc = mtb_stats_median_ci(x, 1, 0.95, &ci, NULL);
    ok(rc == 0 && ci.lo == 15 && ci.hi == 15 && ci.est == 15,
       "median CI n=1 collapses");

    rc = mtb_stats_bootstrap_median_ci(x, 15, 0.95, 2000, 7, &ci);
    ok(rc == 0 && ci.est == 8 &&
       ci.lo < 8 && ci.hi > 8 && ci.lo >= 1 && ci.hi <= 15,
       "bootstrap median CI brackets 8 within the data [%g, %g]", ci.lo, ci.hi);
    rc = mtb_stats_bootstrap_median_ci(x, 1, 0.95, 2000, 7, &ci);
    ok(rc == 0 && ci.est == 15 &&
       ci.lo == 15 && ci.hi == 15, "bootstrap median CI n=1 collapses");
    double even[] = {1, 2, 3, 4};
    rc = mtb_stats_bootstrap_median_ci(even, 4, 0.95, 2000, 7, &ci);
    ok(rc == 0 && ci.est == 2.5 &&
       ci.lo >= 1 && ci.hi <= 4, "bootstrap median even n: est 2.5 [%g, %g]", ci.lo, ci.hi);
    ok(mtb_stats_bootstrap_median_ci(x, 0, 0.95, 2000, 7, &ci) == -EINVAL,
       "bootstrap median n=0 -> -EINVAL");
    ok(mtb_stats_median_ci(x, 0, 0.95, &ci, NULL) == -EINVAL, "median CI n=0 -> -EINVAL");

    double num[] = {130, 120, 110}, den[] = {100, 100, 100}, bad[] = {100, 0, 100};
    rc = mtb_stats_ratio_ci(num, den, 3, 0.95, 2000, 1, &ci);
    ok(rc == 0 && near(ci.est, 1.2, 1e-12),
       "ratio CI est = median of pairwise ratios = 1.2");
    rc = mtb_stats_ratio_ci(num, den, 1, 0.95, 2000, 1, &ci);
    ok(rc == 0 && near(ci.lo, 1.3, 1e-12) &&
       ci.lo == ci.hi && ci.est == ci.lo, "ratio CI n=1 collapses to the ratio");
    ok(mtb_stats_ratio_ci(num, bad, 3, 0.95, 2000, 1, &ci) == -EDOM, "ratio den=0 -> -EDOM");
    ok(mtb_stats_ratio_ci(num, den, 0, 0.95, 2000, 1, &ci) == -EINVAL, "ratio n=0 -> -EINVAL");

    struct mtb_stats_ci w = {1.25, 1.20, 1.30}, z = {0, 0, 0};
    ok(near(mtb_stats_rel_halfwidth(&w), 0.04, 1e-12), "rel halfwidth (1.30-1.20)/2/1.25 = 0.04");
    struct mtb_stats_ci unb = {4, 0, INFINITY};
    ok(mtb_stats_rel_halfwidth(&z) == 0.0 && isnan(mtb_stats_rel_halfwidth(NULL)) &&
       mtb_stats_rel_halfwidth(&unb) == INFINITY, "rel halfwidth degenerate cases");
}

static void test_mann_whitney(void)
{
    int rc;
    struct mtb_stats_mwu r;

    /* x={1,2,3}, y={4,5,6}: no x beats any y, U_x = 0; u_min = 0.
     * Exact: all C(6,3) = 20 rank arrangements equally likely; only one gives
     * U = 0, P(U <= 0) = 1/20, two-sided p = 2/20 = 0.1. */
    double x1[] = {1, 2, 3}, y1[] = {4, 5, 6};
    rc = mtb_stats_mann_whitney(x1, 3, y1, 3, &r);
    ok(rc == 0 && r.u == 0 && r.u_min == 0 && r.exact &&
       near(r.p, 0.1, 1e-12), "MWU {1,2,3} vs {4,5,6}: U=0, exact p=0.1 (got %g)", r.p);
    rc = mtb_stats_mann_whitney(y1, 3, x1, 3, &r);
    ok(rc == 0 && r.u == 9 && r.u_min == 0 &&
       near(r.p, 0.1, 1e-12) && r.z > 0, "MWU swapped: U=9, p=0.1, z>0");

    /* x={1,3,5}, y={2,4,6}: U_x = 0 (x=1) + 1 (x=3 > 2) + 2 (x=5 > 2,4) = 3.
     * Null counts of U for m=n=3, u=0..9 (3-subsets of ranks 1..6 by rank sum
     * 6..15): 1,1,2,3,3,3,3,2,1,1 (total 20). P(U <= 3) = 7/20, p = 0.7. */
    double x2[] = {1, 3, 5}, y2[] = {2, 4, 6};
    rc = mtb_stats_mann_whitney(x2, 3, y2, 3, &r);
    ok(rc == 0 && r.u == 3 && r.exact &&
       near(r.p, 0.7, 1e-12), "MWU {1,3,5} vs {2,4,6}: U=3, exact p=0.7 (got %g)", r.p);

    /* Symmetric: x={1,4}, y={2,3}: U_x = 0 + 2 = 2 = nx*ny/2 -> p = 1. */
    double x3[] = {1, 4}, y3[] = {2, 3};
    rc = mtb_stats_mann_whitney(x3, 2, y3, 2, &r);
    ok(rc == 0 && r.u == 2 && near(r.p, 1.0, 1e-12) &&
       r.z == 0, "MWU symmetric U = nx*ny/2: p = 1");

    /* Ties -> normal approximation. x={1,2,2,4}, y={2,3,4,5}.
     * U_x: x=1 -> 0; each x=2 -> tie with y=2 -> 0.5 (two of them: 1.0);
     *      x=4 -> beats 2,3, ties 4 -> 2.5.  U_x = 3.5; mu = 16/2 = 8.
     * Pooled 1,2,2,2,3,4,4,5: tie groups t=3 (value 2), t=2 (value 4):
     *      sum(t^3 - t) = 24 + 6 = 30; N = 8.
     * sigma^2 = 16/12 * (9 - 30/(8*7)) = 1.333333 * 8.464286 = 11.285714,
     * sigma = 3.359422.  z = -(|3.5 - 8| - 0.5)/sigma = -4/3.359422 = -1.190681.
     * p = 2 (1 - Phi(1.190681)) = 0.233779. */
    double x4[] = {1, 2, 2, 4}, y4[] = {2, 3, 4, 5};
    rc = mtb_stats_mann_whitney(x4, 4, y4, 4, &r);
    ok(rc == 0 && r.u == 3.5 && r.u_min == 3.5 && !r.exact,
       "MWU with ties: U=3.5, normal approximation used");
    ok(near(r.z, -1.190681, 1e-3) && near(r.p, 0.233779, 1e-3),
       "MWU with ties: z=-1.1907 p=0.2338 (got z=%.6f p=%.6f)", r.z, r.p);

    /* No ties but nx+ny = 22 > 20 -> normal. x=1..11, y=12..22: U_x = 0,
     * mu = 60.5, sigma^2 = 121*23/12 = 231.916667, sigma = 15.228811,
     * z = -(60.5 - 0.5)/15.228811 = -3.939901, p = 2(1-Phi(3.9399)) = 8.151e-5. */
    double x5[11], y5[11];
    for (int i = 0; i < 11; i++) {
        x5[i] = i + 1;
        y5[i] = i + 12;
    }
    rc = mtb_stats_mann_whitney(x5, 11, y5, 11, &r);
    ok(rc == 0 && r.u == 0 && !r.exact &&
       near(r.z, -3.939901, 1e-3) && near(r.p, 8.151e-5, 1e-6),
       "MWU n=22: normal z=-3.9399 p=8.15e-5 (got z=%.6f p=%.4g)", r.z, r.p);

    /* All tied: no information, p = 1. */
    double t[] = {7, 7, 7};
    rc = mtb_stats_mann_whitney(t, 2, t + 1, 2, &r);
    ok(rc == 0 && r.u == 2 && r.z == 0 && r.p == 1.0,
       "MWU all tied: p = 1");
    rc = mtb_stats_mann_whitney(x1, 0, y1, 3, &r);
    ok(rc == -EINVAL &&
       mtb_stats_mann_whitney(x1, 3, y1, 0, &r) == -EINVAL, "MWU empty sample -> -EINVAL");
}

/* Coverage of the overhead CI on synthetic interleaved runs. Baseline runs
 * b, b' ~ 100k lognormal(0, 0.05), tagged = 1.25 b' * lognormal(0, 0.03):
 * log(ratio) is symmetric about log 1.25, so the median ratio is exactly 1.25. */
static void test_coverage(void)
{
    const double truth = 1.25;
    const size_t n = 15;
    const unsigned iters = 2000;
    struct mtb_stats_rng g;
    mtb_stats_rng_seed(&g, 20260131);
    double num[15], den[15], r[15];
    int cov_ratio = 0, cov_pct = 0, failed = 0;
    double hw = 0;
    for (int trial = 0; trial < COVERAGE_TRIALS; trial++) {
        for (size_t i = 0; i < n; i++) {
            den[i] = 1e5 * exp(0.05 * mtb_stats_rng_normal(&g));
            double other_base = 1e5 * exp(0.05 * mtb_stats_rng_normal(&g));
            num[i] = truth * other_base * exp(0.03 * mtb_stats_rng_normal(&g));
            r[i] = num[i] / den[i];
        }
        struct mtb_stats_ci ci, pc;
        if (mtb_stats_ratio_ci(num, den, n, 0.95, iters, (uint64_t)trial, &ci) ||
            mtb_stats_bootstrap_median_ci(r, n, 0.95, iters, (uint64_t)trial, &pc)) {
            failed++;
            continue;
        }
        cov_ratio += ci.lo <= truth && truth <= ci.hi;
        cov_pct += pc.lo <= truth && truth <= pc.hi;
        hw += mtb_stats_rel_halfwidth(&ci);
    }
    double c1 = (double)cov_ratio / COVERAGE_TRIALS, c2 = (double)cov_pct / COVERAGE_TRIALS;
    diag("mtb_stats_ratio_ci (order statistics) coverage, %d trials x %zu pairs: %.1f%% "
         "(exact theory 96.5%%), mean rel. half-width %.2f%%",
         COVERAGE_TRIALS, n, 100 * c1, 100 * hw / COVERAGE_TRIALS);
    diag("for comparison, percentile bootstrap of the median ratio: %.1f%%", 100 * c2);
    ok(!failed, "coverage trials ran without errors");
    ok(c1 >= 0.93, "mtb_stats_ratio_ci covers the true ratio in >= 93%% of trials (%.1f%%)",
       100 * c1);

    /* Geometric mean: x ~ 1.25 lognormal(0, 0.1), true geometric mean 1.25. */
    int cov_gm = 0;
    failed = 0;
    double x[15];
    for (int trial = 0; trial < COVERAGE_TRIALS; trial++) {
        for (size_t i = 0; i < n; i++)
            x[i] = truth * exp(0.1 * mtb_stats_rng_normal(&g));
        struct mtb_stats_ci ci;
        if (mtb_stats_geomean_ci(x, n, 0.95, iters, 1000u + (uint64_t)trial, &ci)) {
            failed++;
            continue;
        }
        cov_gm += ci.lo <= truth && truth <= ci.hi;
    }
    double c3 = (double)cov_gm / COVERAGE_TRIALS;
    diag("mtb_stats_geomean_ci (bootstrap-t) coverage, %d trials x n=%zu: %.1f%%",
         COVERAGE_TRIALS, n, 100 * c3);
    ok(!failed, "geomean coverage trials ran without errors");
    ok(c3 >= 0.93, "mtb_stats_geomean_ci covers the true geometric mean in >= 93%% of trials (%.1f%%)",
       100 * c3);
}

/* Wilson score intervals: textbook values (Newcombe 1998, z = 1.96) and the
 * exact ends at 0 and n */
static void test_wilson(void)
{
    struct mtb_stats_ci c = { 0, 0, 0 };
    int rc = mtb_stats_wilson(5, 10, 1.959963985, &c);
    ok(rc == 0 && fabs(c.lo - 0.2366) < 1e-4 && fabs(c.hi - 0.7634) < 1e-4, "wilson 5/10: [0.2366, 0.7634] (%.4f, %.4f)",
       c.lo, c.hi);
    rc = mtb_stats_wilson(0, 10, 1.959963985, &c);
    ok(rc == 0 && c.lo == 0 && fabs(c.hi - 0.2775) < 1e-4, "wilson 0/10: [0, 0.2775] (%.4f)", c.hi);
    rc = mtb_stats_wilson(10, 10, 1.959963985, &c);
    ok(rc == 0 && c.hi == 1 && fabs(c.lo - 0.7225) < 1e-4, "wilson 10/10: [0.7225, 1] (%.4f)", c.lo);
    rc = mtb_stats_wilson(81, 263, 1.959963985, &c);
    ok(rc == 0 && fabs(c.lo - 0.2553) < 1e-4 && fabs(c.hi - 0.3662) < 1e-4, "wilson 81/263: [0.2553, 0.3662] (%.4f, %.4f)",
       c.lo, c.hi);
    ok(mtb_stats_wilson(3, 2, 1.96, &c) == -EINVAL && mtb_stats_wilson(0, 0, 1.96, &c) == -EINVAL,
       "wilson refuses k > n and n = 0");
}

int main(void)
{
    test_wilson();
    test_median_quantile();
    test_geomean();
    test_median_cis();
    test_mann_whitney();
    test_coverage();
    return done_testing();
}
