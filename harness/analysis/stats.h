/* stats.h - descriptive statistics, confidence intervals and rank tests for
 * mtebench reports.
 *
 * All functions work in double precision on caller-owned arrays, which they
 * never modify. There is no global state: everything random draws from a
 * struct mtb_stats_rng seeded by the caller, so every result is a deterministic
 * function of the inputs and the seed.
 *
 * Functions returning int return 0 on success or a negative errno value:
 *   -EINVAL  bad argument (NULL pointer, n == 0, conf outside (0,1), iters == 0,
 *            a NaN or infinite sample value);
 *   -EDOM    a value outside the function's domain (e.g. a non-positive value
 *            for a geometric mean, a non-positive denominator for a ratio);
 *   -ENOMEM  a scratch allocation failed.
 * On error *out is left untouched. Nothing aborts.
 */
#ifndef MTEBENCH_STATS_H
#define MTEBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* ---- random numbers -------------------------------------------------------- */

/* xoshiro256** state, seeded through splitmix64 (any seed, including 0, works). */
struct mtb_stats_rng {
    uint64_t s[4];
};

/**
 * mtb_stats_rng_seed - initialise @r from a 64-bit seed.
 * @param r     generator state to fill
 * @param seed  any value; equal seeds give equal streams
 */
void mtb_stats_rng_seed(struct mtb_stats_rng *r, uint64_t seed);


/** @return a uniform double in [0, 1) with 53 random bits. */
double mtb_stats_rng_uniform(struct mtb_stats_rng *r);

/**
 * mtb_stats_rng_below - unbiased uniform integer in [0, bound).
 * @param bound  exclusive upper bound; 0 is treated as 1 (returns 0)
 * @return an integer in [0, bound)
 */
uint64_t mtb_stats_rng_below(struct mtb_stats_rng *r, uint64_t bound);

/** @return a standard normal deviate (polar Box-Muller; no cached state). */
double mtb_stats_rng_normal(struct mtb_stats_rng *r);

/* ---- descriptive statistics ----------------------------------------------- */

/**
 * mtb_stats_median - sample median (mean of the two middle values when n is even).
 * @param x  n values, not modified
 * @return the median; NaN if x is NULL, n == 0, any value is NaN, or memory
 *         for the sorted copy cannot be allocated
 */
double mtb_stats_median(const double *x, size_t n);

/**
 * mtb_stats_quantile - sample quantile by linear interpolation between order
 * statistics (Hyndman & Fan type 7, the default of R and NumPy):
 * h = (n-1)q, Q = x_(floor h) + (h - floor h)(x_(floor h + 1) - x_(floor h)).
 * @param x  n values, not modified
 * @param q  probability in [0, 1]
 * @return the quantile; NaN if x is NULL, n == 0, q is outside [0,1] or NaN,
 *         any value is NaN, or memory cannot be allocated
 */
double mtb_stats_quantile(const double *x, size_t n, double q);

/** @return the arithmetic mean of x[0..n); NaN if x is NULL or n == 0. */
double mtb_stats_mean(const double *x, size_t n);

/**
 * mtb_stats_stddev - sample standard deviation (divisor n-1), two-pass.
 * @return the standard deviation; NaN if x is NULL or n < 2
 */
double mtb_stats_stddev(const double *x, size_t n);

/* ---- confidence intervals ------------------------------------------------- */

struct mtb_stats_ci {
    double est; /* point estimate */
    double lo;  /* lower confidence limit */
    double hi;  /* upper confidence limit */
};

/**
 * mtb_stats_median_ci - distribution-free confidence interval for the median from
 * order statistics: [x_(k), x_(n+1-k)] with the largest k such that
 * 1 - 2 P(Binomial(n, 1/2) <= k-1) >= conf. Exact (conservative) for i.i.d.
 * continuous data of any distribution; needs no resampling.
 * If n is too small for any such interval to reach conf (n < 6 at 95%), the
 * widest one, [min, max], is returned and *achieved tells its lower confidence.
 * With n == 1 the interval collapses to the value.
 * @param x         n finite values, not modified
 * @param conf      confidence level in (0, 1), e.g. 0.95
 * @param out       receives est = sample median, lo, hi
 * @param achieved  if not NULL, receives the exact coverage probability of the
 *                  interval returned (>= conf unless n is too small; 0 for n == 1)
 * @return 0, -EINVAL, -ENOMEM
 */
int mtb_stats_median_ci(const double *x, size_t n, double conf, struct mtb_stats_ci *out,
                    double *achieved);

/**
 * mtb_stats_bootstrap_median_ci - sample median with a percentile bootstrap CI.
 * Percentile rather than BCa: BCa's acceleration comes from the jackknife,
 * and the jackknife of a median is degenerate (it takes only two values), so
 * BCa adds no real correction for this statistic. Both share the same
 * weakness: the bootstrap distribution of a median lives on a few order
 * statistics, so at small n the interval is too narrow (measured 93.1% actual
 * coverage at n = 15, nominal 95%, 5000 lognormal trials; see
 * tests/unit/test_stats.c). Prefer mtb_stats_median_ci() below n of about 50;
 * this function is for large samples.
 * With n == 1 the interval collapses to the value.
 * @param x      n finite values, not modified
 * @param conf   confidence level in (0, 1)
 * @param iters  bootstrap resamples (>= 1; 2000 or more recommended)
 * @param seed   PRNG seed; same seed, same interval
 * @param out    receives est = sample median, lo, hi
 * @return 0, -EINVAL, -ENOMEM
 */
int mtb_stats_bootstrap_median_ci(const double *x, size_t n, double conf,
                              unsigned iters, uint64_t seed, struct mtb_stats_ci *out);

/**
 * mtb_stats_ratio_ci - overhead of paired, interleaved runs as in the 2026 study:
 * est = median of the pairwise ratios num[i]/den[i]; the interval is a CI for
 * the median ratio over the pairs.
 * Method: the distribution-free order-statistic interval of mtb_stats_median_ci()
 * applied to the ratios. A percentile bootstrap over the pairs was measured to
 * under-cover at typical repetition counts (93.2% at 15 pairs for nominal 95%,
 * 5000 trials), because a bootstrapped median takes only a handful of values;
 * the order-statistic interval is exact for i.i.d. pairs whatever the ratio's
 * distribution (96.5% at 15 pairs for nominal 95%). Below 6 pairs (at 95%) no
 * interval reaches conf and [min, max] ratio is returned (see mtb_stats_median_ci).
 * @param num    n numerators (e.g. tagged run times), finite, >= 0
 * @param den    n denominators (the paired baseline runs), finite, > 0
 * @param conf   confidence level in (0, 1)
 * @param iters  unused by the current resampling-free method (kept so every
 *               CI function has the same shape and a resampling method can be
 *               swapped in without touching callers); any value is accepted
 * @param seed   unused, as iters
 * @param out    receives est, lo, hi
 * @return 0, -EINVAL (NULL, n == 0, non-finite value, bad conf),
 *         -EDOM (a num < 0 or den <= 0), -ENOMEM
 */
int mtb_stats_ratio_ci(const double *num, const double *den, size_t n, double conf,
                   unsigned iters, uint64_t seed, struct mtb_stats_ci *out);

/**
 * mtb_stats_geomean_ci - geometric mean exp(mean(log x)) with a studentized
 * (bootstrap-t) CI computed on the log scale and mapped back with exp.
 * Bootstrap-t rather than percentile: on the log scale the statistic is a
 * mean, whose percentile interval is a z-interval with a (n-1)/n-shrunk
 * standard error and under-covers at small n (measured 92.0% at n = 15 vs
 * 95.2% for bootstrap-t, 5000 lognormal trials); the studentized bootstrap is
 * second-order accurate and behaves like a t interval that also adapts to skew.
 * With n == 1, or when all values are equal, the interval collapses to the value.
 * At very small n (2 or 3) resamples of one repeated value make the interval
 * honestly unbounded: lo may be 0 and hi +inf.
 * @param x      n finite values, all > 0, not modified
 * @param conf   confidence level in (0, 1)
 * @param iters  bootstrap resamples (>= 1; 2000 or more recommended)
 * @param seed   PRNG seed
 * @param out    receives est = geometric mean, lo, hi
 * @return 0, -EINVAL, -EDOM (a value <= 0), -ENOMEM
 */
int mtb_stats_geomean_ci(const double *x, size_t n, double conf, unsigned iters,
                     uint64_t seed, struct mtb_stats_ci *out);

/**
 * mtb_stats_rel_halfwidth - relative half-width (hi - lo) / 2 / |est| of a CI.
 * Callers warn "noisy: add repetitions" above 0.05.
 * @return the relative half-width; NaN for NULL or a NaN field; +inf if est
 *         or a limit is infinite (an unbounded interval is maximally noisy),
 *         or if est == 0 and hi > lo; 0 if est == 0 and hi == lo
 */
double mtb_stats_rel_halfwidth(const struct mtb_stats_ci *ci);

/* ---- rank test ------------------------------------------------------------- */

/* Largest nx + ny for which the exact null distribution is used (no ties). */
#define STATS_MWU_EXACT_MAX 20

struct mtb_stats_mwu {
    double u;     /* U of x: #pairs x > y plus half the tied pairs */
    double u_min; /* min(u, nx*ny - u) */
    double z;     /* normal score of u (continuity- and, with ties,
                     tie-corrected); > 0 when x tends to be larger; 0 if
                     every value is tied */
    double p;     /* two-sided p-value */
    int exact;    /* 1: p from the exact permutation distribution;
                     0: normal approximation with tie and continuity correction */
};

/**
 * mtb_stats_mann_whitney - two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
 * Exact p = min(1, 2 P(U <= u_min)) from the permutation distribution
 * (counted with the recursion c(m,n,u) = c(m-1,n,u-n) + c(m,n-1,u)) when there
 * are no ties and nx + ny <= STATS_MWU_EXACT_MAX; otherwise
 * z = sign(u - mu) max(0, |u - mu| - 1/2) / sigma with mu = nx ny / 2,
 * sigma^2 = nx ny / 12 ((N+1) - sum(t^3 - t) / (N (N-1))), p = 2 (1 - Phi(|z|)).
 * @param x, nx  first sample (finite values, nx >= 1)
 * @param y, ny  second sample (finite values, ny >= 1)
 * @param out    receives the result
 * @return 0, -EINVAL, -ENOMEM
 */
int mtb_stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                       struct mtb_stats_mwu *out);

/* ---- sorting and distributions ------------------------------------------- */

/** mtb_stats_sort - sort x[0..n) ascending in place (no NaN expected). */
void mtb_stats_sort(double *x, size_t n);
/* x sorted into new memory (free it), or NULL when out of memory */
double *mtb_stats_sorted_copy(const double *x, size_t n);
/* 1 when no element of x is NaN or infinite */
int mtb_stats_all_finite(const double *x, size_t n);
/** @return the median of an already sorted array; NaN if n == 0 */
double mtb_stats_median_sorted(const double *s, size_t n);

/**
 * mtb_stats_student_t_sf2 - two-sided tail P(|T| >= |t|) of Student's t with df
 * degrees of freedom (df > 0), from the regularized incomplete beta
 * function: I_{df/(df+t^2)}(df/2, 1/2). NaN for bad arguments.
 */
double mtb_stats_student_t_sf2(double t, double df);

/**
 * mtb_stats_betainc - regularized incomplete beta I_x(a, b) for a, b > 0 and
 * 0 <= x <= 1 (continued fraction, modified Lentz). NaN for bad arguments.
 */
double mtb_stats_betainc(double a, double b, double x);

/* ---- the overhead interval of paired runs (stats_pairs.c) ---------------- */

/* Shape checks on the log ratios (mtb_stats_pair_shape):
 * fewer than STATS_SHAPE_T_MIN pairs: order statistics, no check;
 * STATS_SHAPE_T_MIN up to STATS_SHAPE_MIN - 1: the t-interval, the shape
 * unchecked (too few pairs to see it; nothing else reaches a look's level);
 * |medcouple| > STATS_SHAPE_MC_Z sqrt(1.25/n) (its standard error under
 * symmetry): skewed, order statistics (the median, no symmetry assumed);
 * else no value beyond STATS_SHAPE_OUTLIER robust SDs (1.4826 MAD) of the
 * median and |G1| <= STATS_SHAPE_SKEW_Z SE(G1): the t-interval;
 * else (symmetric, heavy tails or outliers): the signed-rank interval. */
#define STATS_SHAPE_MIN     6
#define STATS_SHAPE_T_MIN   4
#define STATS_SHAPE_MC_Z    1.5
#define STATS_SHAPE_OUTLIER 3.5
#define STATS_SHAPE_SKEW_Z  2.0

enum mtb_stats_pair_method { STATS_PAIR_SIGN, STATS_PAIR_SIGNEDRANK, STATS_PAIR_T };

struct mtb_stats_shape {
    size_t n;
    double mad;          /* 1.4826 MAD of the log ratios */
    double skew;         /* adjusted Fisher-Pearson G1 */
    double skew_se;      /* its standard error under normality */
    double medcouple;    /* robust skewness in [-1, 1] */
    double mc_limit;     /* |medcouple| above it: skewed */
    size_t outliers;     /* values beyond STATS_SHAPE_OUTLIER robust SDs */
    enum mtb_stats_pair_method method;
};

/**
 * mtb_stats_t_quantile - q with P(|T| >= q) = alpha for Student's t with df
 * degrees of freedom (bisection on mtb_stats_student_t_sf2). NaN for bad arguments.
 */
double mtb_stats_t_quantile(double alpha, double df);

/**
 * mtb_stats_t_ci - mean of x with the Student t interval at conf (n >= 2).
 * @return 0, -EINVAL
 */
int mtb_stats_t_ci(const double *x, size_t n, double conf, struct mtb_stats_ci *out);

/**
 * mtb_stats_signedrank_ci - Hodges-Lehmann estimate (median of the n(n+1)/2 Walsh
 * averages) with the Wilcoxon signed-rank interval [W_(k), W_(M+1-k)], k - 1
 * the largest c with 2 P(T+ <= c) <= 1 - conf (exact distribution up to 400
 * values, normal beyond; at most 3000 values). Exact for i.i.d. values from
 * a continuous distribution symmetric about its centre. When no interval
 * reaches conf (2^(1-n) > 1 - conf) [min, max] is returned and *achieved
 * tells its level, as mtb_stats_median_ci.
 * @return 0, -EINVAL, -ENOMEM
 */
int mtb_stats_signedrank_ci(const double *x, size_t n, double conf, struct mtb_stats_ci *out, double *achieved);

/** mtb_stats_medcouple - the medcouple of x (O(n^2)); NaN for bad input. */
double mtb_stats_medcouple(const double *x, size_t n);


/** @return the name of a method, as summary.json's "method" states it. */
const char *mtb_stats_pair_method_name(enum mtb_stats_pair_method m);

/**
 * mtb_stats_pair_ci - the overhead of paired runs, num[i]/den[i], at conf, with
 * the interval chosen by the shape of the log ratios (mtb_stats_pair_shape):
 * t: est = geometric mean of the ratios, exp of the t-interval of the logs;
 * signed-rank: est = exp(Hodges-Lehmann of the logs), exp of its interval;
 * order statistics: est = median ratio, mtb_stats_median_ci of the ratios.
 * Under a symmetric log ratio all three estimate the median ratio.
 * @param achieved  the interval's exact level (conf for t; below conf when
 *                  there are too few pairs for it), may be NULL
 * @param shape     the checks and the method chosen, may be NULL
 * @return 0, -EINVAL, -EDOM (a value <= 0), -ENOMEM
 */
int mtb_stats_pair_ci(const double *num, const double *den, size_t n, double conf, struct mtb_stats_ci *out, double *achieved,
                  struct mtb_stats_shape *shape);
/**
 * mtb_stats_wilson - Wilson score interval of a binomial proportion: k successes
 * in n trials, z the normal quantile (1.959964 for 95%). est = k/n; the
 * limits are exact 0 and 1 at k = 0 and k = n.
 * @return 0, -EINVAL
 */
int mtb_stats_wilson(long k, long n, double z, struct mtb_stats_ci *out);
#endif
