/* stats.c - descriptive statistics, confidence intervals and rank tests.
 * See stats.h for the contract of every function. */
#include "analysis/stats.h"
#include "common/xoshiro.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers -------------------------------------------------------- */

/* xoshiro256** seeded by splitmix64: common/xoshiro.c, shared with mtload */
void mtb_stats_rng_seed(struct mtb_stats_rng *r, uint64_t seed)
{
    mtb_xoshiro_seed(r->s, seed);
}

/** @return the next 64 uniformly distributed bits of @r. */
static uint64_t mtb_stats_rng_next(struct mtb_stats_rng *r)
{
    return mtb_xoshiro_next(r->s);
}

double mtb_stats_rng_uniform(struct mtb_stats_rng *r)
{
    return (double)(mtb_stats_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t mtb_stats_rng_below(struct mtb_stats_rng *r, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    /* Lemire's multiply-shift with rejection of the biased low region. */
    unsigned __int128 m = (unsigned __int128)mtb_stats_rng_next(r) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        uint64_t threshold = -bound % bound;
        while (low < threshold) {
            m = (unsigned __int128)mtb_stats_rng_next(r) * bound;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double mtb_stats_rng_normal(struct mtb_stats_rng *r)
{
    double u, v, s;
    do {
        u = 2.0 * mtb_stats_rng_uniform(r) - 1.0;
        v = 2.0 * mtb_stats_rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

/* ---- helpers --------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mtb_stats_all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static int any_nan(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return 1;
    return 0;
}

double *mtb_stats_sorted_copy(const double *x, size_t n)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return NULL;
    memcpy(c, x, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    return c;
}

/* a + f (b - a), well defined when a or b is infinite (bootstrap-t replicates
 * can be): an infinite end point wins whenever it has any weight. */
static double lerp(double a, double b, double f)
{
    if (f <= 0.0 || a == b)
        return a;
    if (f >= 1.0)
        return b;
    if (isinf(a) && isinf(b))
        return f < 0.5 ? a : b;
    if (isinf(a))
        return a;
    if (isinf(b))
        return b;
    return a + f * (b - a);
}

/* Type-7 quantile of an already sorted array (n >= 1, 0 <= q <= 1). */
static double sorted_quantile(const double *s, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return s[n - 1];
    return lerp(s[lo], s[lo + 1], h - (double)lo);
}

static double sorted_median(const double *s, size_t n)
{
    if (n % 2)
        return s[n / 2];
    return s[n / 2 - 1] + (s[n / 2] - s[n / 2 - 1]) / 2.0;
}

void mtb_stats_sort(double *x, size_t n) { qsort(x, n, sizeof *x, cmp_double); }

double mtb_stats_median_sorted(const double *s, size_t n) { return n ? sorted_median(s, n) : NAN; }

static int bad_conf(double conf)
{
    return !(conf > 0.0 && conf < 1.0);
}

/* ---- descriptive statistics ----------------------------------------------- */

double mtb_stats_median(const double *x, size_t n)
{
    if (!x || n == 0 || any_nan(x, n))
        return NAN;
    double *s = mtb_stats_sorted_copy(x, n);
    if (!s)
        return NAN;
    double m = sorted_median(s, n);
    free(s);
    return m;
}

double mtb_stats_quantile(const double *x, size_t n, double q)
{
    if (!x || n == 0 || !(q >= 0.0 && q <= 1.0) || any_nan(x, n))
        return NAN;
    double *s = mtb_stats_sorted_copy(x, n);
    if (!s)
        return NAN;
    double v = sorted_quantile(s, n, q);
    free(s);
    return v;
}

double mtb_stats_mean(const double *x, size_t n)
{
    if (!x || n == 0)
        return NAN;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

double mtb_stats_stddev(const double *x, size_t n)
{
    if (!x || n < 2)
        return NAN;
    double m = mtb_stats_mean(x, n), ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    return sqrt(ss / (double)(n - 1));
}

/* ---- confidence intervals ------------------------------------------------- */

/* P(Binomial(n, 1/2) = i), in log space so large n cannot overflow. */
static double binom_half_pmf(size_t n, size_t i)
{
    return exp(lgamma((double)n + 1.0) - lgamma((double)i + 1.0) -
               lgamma((double)(n - i) + 1.0) - (double)n * M_LN2);
}

/* Order-statistic CI for the median of the sorted s[0..n). */
static void median_ci_sorted(const double *s, size_t n, double conf,
                             struct mtb_stats_ci *out, double *achieved)
{
    double alpha = 1.0 - conf, cover = 0.0;
    /* k is the 1-based rank of the lower limit; the interval [x_(k), x_(n+1-k)]
     * misses the median with probability 2 P(B <= k-1), B ~ Binomial(n, 1/2).
     * Grow k while the next interval still has coverage >= conf; the CDF is
     * accumulated term by term, so this is O(k). */
    size_t k = 1;
    if (n >= 2) {
        double cdf = binom_half_pmf(n, 0);
        cover = 1.0 - 2.0 * cdf;
        while (k + 1 <= (n + 1) / 2) {
            double next = 1.0 - 2.0 * (cdf + binom_half_pmf(n, k));
            /* tolerance so that e.g. conf = 1 - 2*2^-n exactly still counts */
            if (next < conf - 1e-12 * alpha)
                break;
            cdf += binom_half_pmf(n, k);
            k++;
            cover = next;
        }
    }
    out->est = sorted_median(s, n);
    out->lo = s[k - 1];
    out->hi = s[n - k];
    if (achieved)
        *achieved = cover;
}

int mtb_stats_median_ci(const double *x, size_t n, double conf, struct mtb_stats_ci *out,
                    double *achieved)
{
    if (!x || !out || n == 0 || bad_conf(conf) || !mtb_stats_all_finite(x, n))
        return -EINVAL;
    double *s = mtb_stats_sorted_copy(x, n);
    if (!s)
        return -ENOMEM;
    median_ci_sorted(s, n, conf, out, achieved);
    free(s);
    return 0;
}

int mtb_stats_bootstrap_median_ci(const double *x, size_t n, double conf,
                              unsigned iters, uint64_t seed, struct mtb_stats_ci *out)
{
    if (!x || !out || n == 0 || iters == 0 || bad_conf(conf) || !mtb_stats_all_finite(x, n))
        return -EINVAL;
    if (n == 1) {
        out->est = out->lo = out->hi = x[0];
        return 0;
    }
    double *s = mtb_stats_sorted_copy(x, n);
    size_t *count = calloc(n, sizeof *count);
    double *rep = malloc((size_t)iters * sizeof *rep);
    if (!s || !count || !rep) {
        free(s);
        free(count);
        free(rep);
        return -ENOMEM;
    }
    struct mtb_stats_rng rng;
    mtb_stats_rng_seed(&rng, seed);
    /* A resample is drawn as multiplicities over the sorted sample, so its
     * median is found by a cumulative walk: O(n) per resample, no sorting. */
    size_t rank_hi = n / 2, rank_lo = (n % 2) ? n / 2 : n / 2 - 1; /* 0-based */
    for (unsigned b = 0; b < iters; b++) {
        memset(count, 0, n * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[mtb_stats_rng_below(&rng, n)]++;
        size_t cum = 0;
        double vlo = NAN, vhi = NAN;
        for (size_t i = 0; i < n; i++) {
            cum += count[i];
            if (isnan(vlo) && cum > rank_lo)
                vlo = s[i];
            if (cum > rank_hi) {
                vhi = s[i];
                break;
            }
        }
        rep[b] = vlo + (vhi - vlo) / 2.0;
    }
    qsort(rep, iters, sizeof *rep, cmp_double);
    double alpha = 1.0 - conf;
    out->est = sorted_median(s, n);
    out->lo = sorted_quantile(rep, iters, alpha / 2.0);
    out->hi = sorted_quantile(rep, iters, 1.0 - alpha / 2.0);
    free(s);
    free(count);
    free(rep);
    return 0;
}

int mtb_stats_ratio_ci(const double *num, const double *den, size_t n, double conf,
                   unsigned iters, uint64_t seed, struct mtb_stats_ci *out)
{
    (void)iters;
    (void)seed;
    if (!num || !den || !out || n == 0 || bad_conf(conf) ||
        !mtb_stats_all_finite(num, n) || !mtb_stats_all_finite(den, n))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (num[i] < 0.0 || den[i] <= 0.0)
            return -EDOM;
    double *r = malloc(n * sizeof *r);
    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        r[i] = num[i] / den[i];
    /* a huge num over a tiny den can overflow to inf */
    if (!mtb_stats_all_finite(r, n)) {
        free(r);
        return -EDOM;
    }
    qsort(r, n, sizeof *r, cmp_double);
    median_ci_sorted(r, n, conf, out, NULL);
    free(r);
    return 0;
}

/* Mean and sample standard deviation of l[idx[0..n)] (idx NULL: identity). */
static void mean_sd(const double *l, const size_t *idx, size_t n, double *m, double *sd)
{
    double sum = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += l[idx ? idx[i] : i];
    *m = sum / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = l[idx ? idx[i] : i] - *m;
        ss += d * d;
    }
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

int mtb_stats_geomean_ci(const double *x, size_t n, double conf, unsigned iters,
                     uint64_t seed, struct mtb_stats_ci *out)
{
    if (!x || !out || n == 0 || iters == 0 || bad_conf(conf) || !mtb_stats_all_finite(x, n))
        return -EINVAL;
    int all_equal = 1;
    for (size_t i = 0; i < n; i++) {
        if (x[i] <= 0.0)
            return -EDOM;
        all_equal &= x[i] == x[0];
    }
    double *l = malloc(n * sizeof *l);
    size_t *idx = malloc(n * sizeof *idx);
    double *t = malloc((size_t)iters * sizeof *t);
    if (!l || !idx || !t) {
        free(l);
        free(idx);
        free(t);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        l[i] = log(x[i]);
    double m, sd;
    mean_sd(l, NULL, n, &m, &sd);
    /* equal values: the exact value, not exp of a rounded mean of logs */
    out->est = all_equal ? x[0] : exp(m);
    if (all_equal || !(sd > 0.0)) {
        out->lo = out->hi = out->est;
        goto done;
    }
    double se = sd / sqrt((double)n);
    struct mtb_stats_rng rng;
    mtb_stats_rng_seed(&rng, seed);
    for (unsigned b = 0; b < iters; b++) {
        double mb, sdb;
        for (size_t i = 0; i < n; i++)
            idx[i] = (size_t)mtb_stats_rng_below(&rng, n);
        mean_sd(l, idx, n, &mb, &sdb);
        /* A resample of one repeated value has no spread to studentize by;
         * its t is 0 if it sits on the estimate, else unbounded. At tiny n
         * these make the interval honestly wide (up to [0, +inf]). */
        if (sdb > 0.0)
            t[b] = (mb - m) / (sdb / sqrt((double)n));
        else
            t[b] = mb == m ? 0.0 : (mb > m ? INFINITY : -INFINITY);
    }
    qsort(t, iters, sizeof *t, cmp_double);
    double alpha = 1.0 - conf;
    double t_lo = sorted_quantile(t, iters, alpha / 2.0);
    double t_hi = sorted_quantile(t, iters, 1.0 - alpha / 2.0);
    /* bootstrap-t: [m - t*_(1-a/2) se, m - t*_(a/2) se] */
    out->lo = exp(m - t_hi * se);
    out->hi = exp(m - t_lo * se);
done:
    free(l);
    free(idx);
    free(t);
    return 0;
}

double mtb_stats_rel_halfwidth(const struct mtb_stats_ci *ci)
{
    if (!ci || isnan(ci->est) || isnan(ci->lo) || isnan(ci->hi))
        return NAN;
    if (isinf(ci->est) || isinf(ci->lo) || isinf(ci->hi))
        return INFINITY;
    double half = (ci->hi - ci->lo) / 2.0;
    if (ci->est == 0.0)
        return half > 0.0 ? INFINITY : 0.0;
    return half / fabs(ci->est);
}

/* ---- rank test ------------------------------------------------------------- */

/* P(U <= u) under H0 for sample sizes m, n without ties, by counting the
 * arrangements: c(i,j,u) = c(i-1,j,u-j) + c(i,j-1,u), c(0,j,0) = c(i,0,0) = 1
 * (the largest of the i+j values is either an x, beating all j y's, or a y).
 * Rolling over i; cur[j] holds c(i, j, 0..mn). Counts are exact in a double
 * while C(m+n, m) < 2^53, far beyond STATS_MWU_EXACT_MAX. */
static int mwu_exact_cdf(size_t m, size_t n, double u, double *p)
{
    size_t mn = m * n, w = mn + 1;
    double *prev = calloc((n + 1) * w, sizeof *prev);
    double *cur = calloc((n + 1) * w, sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return -ENOMEM;
    }
    for (size_t j = 0; j <= n; j++)
        prev[j * w] = 1.0; /* i = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * w * sizeof *cur);
        cur[0] = 1.0; /* j = 0 */
        for (size_t j = 1; j <= n; j++)
            for (size_t v = 0; v <= i * j; v++)
                cur[j * w + v] = (v >= j ? prev[j * w + v - j] : 0.0) +
                                 cur[(j - 1) * w + v];
        double *tmp = prev;
        prev = cur;
        cur = tmp;
    }
    double below = 0.0, total = 0.0;
    for (size_t v = 0; v <= mn; v++) {
        total += prev[n * w + v];
        if ((double)v <= u)
            below += prev[n * w + v];
    }
    *p = below / total;
    free(prev);
    free(cur);
    return 0;
}

/* The index of the first value of sorted y[0..n) that is >= v (strict: > v) */
static size_t first_at_least(const double *y, size_t n, double v, int strict)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strict ? y[mid] <= v : y[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* U of x against sorted y: the sum over x of #(y < xi) + #(y == xi) / 2 */
static double mwu_u(const double *x, size_t nx, const double *sy, size_t ny)
{
    double u = 0.0;
    for (size_t i = 0; i < nx; i++) {
        size_t lt = first_at_least(sy, ny, x[i], 0), le = first_at_least(sy, ny, x[i], 1);
        u += (double)lt + (double)(le - lt) / 2.0;
    }
    return u;
}

/* The ties of the pooled sample: the sum over tie groups of t^3 - t; -1 out of memory */
static double mwu_ties(const double *x, size_t nx, const double *y, size_t ny)
{
    size_t N = nx + ny;
    double *all = malloc(N * sizeof *all);
    if (!all)
        return -1;
    memcpy(all, x, nx * sizeof *all);
    memcpy(all + nx, y, ny * sizeof *all);
    qsort(all, N, sizeof *all, cmp_double);
    double tie_sum = 0.0;
    for (size_t i = 0; i < N;) {
        size_t j = i + 1;
        while (j < N && all[j] == all[i])
            j++;
        double t = (double)(j - i);
        tie_sum += t * t * t - t;
        i = j;
    }
    free(all);
    return tie_sum;
}

int mtb_stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                       struct mtb_stats_mwu *out)
{
    if (!x || !y || !out || nx == 0 || ny == 0 ||
        !mtb_stats_all_finite(x, nx) || !mtb_stats_all_finite(y, ny))
        return -EINVAL;
    size_t N = nx + ny;
    double *sy = mtb_stats_sorted_copy(y, ny);
    if (!sy)
        return -ENOMEM;
    double u = mwu_u(x, nx, sy, ny);
    free(sy);
    double tie_sum = mwu_ties(x, nx, y, ny);
    if (tie_sum < 0)
        return -ENOMEM;

    double mn = (double)nx * (double)ny, mu = mn / 2.0;
    double var = mn / 12.0 * (((double)N + 1.0) - tie_sum / ((double)N * ((double)N - 1.0)));
    double d = fabs(u - mu) - 0.5;
    struct mtb_stats_mwu r;
    r.u = u;
    r.u_min = u < mn - u ? u : mn - u;
    r.z = (var > 0.0 && d > 0.0) ? copysign(d / sqrt(var), u - mu) : 0.0;
    if (tie_sum == 0.0 && N <= STATS_MWU_EXACT_MAX) {
        double cdf;
        int rc = mwu_exact_cdf(nx, ny, r.u_min, &cdf);
        if (rc)
            return rc;
        r.p = fmin(1.0, 2.0 * cdf);
        r.exact = 1;
    } else {
        r.p = var > 0.0 ? erfc(fabs(r.z) / M_SQRT2) : 1.0;
        r.exact = 0;
    }
    *out = r;
    return 0;
}

/* ---- distributions -------------------------------------------------------- */

/* Continued fraction of I_x(a,b) (valid for x < (a+1)/(a+b+2)), evaluated by
 * the modified Lentz method: terms d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)),
 * d_{2m} = m(b-m)x / ((a+2m-1)(a+2m)). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double f = 1, c = 1, d = 0;
    for (int i = 0; i <= 400; i++) {
        int m = i / 2;
        double num;
        if (i == 0)
            num = 1;
        else if (i % 2 == 0)
            num = m * (b - m) * x / ((a + 2.0 * m - 1) * (a + 2.0 * m));
        else
            num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1));
        d = 1 + num * d;
        if (fabs(d) < tiny)
            d = tiny;
        d = 1 / d;
        c = 1 + num / c;
        if (fabs(c) < tiny)
            c = tiny;
        double delta = c * d;
        f *= delta;
        if (i > 0 && fabs(delta - 1) < eps)
            break;
    }
    return f - 1; /* the recurrence above starts from 1 + the fraction */
}

double mtb_stats_betainc(double a, double b, double x)
{
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
        return NAN;
    if (x == 0 || x == 1)
        return x;
    double lfront = a * log(x) + b * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b));
    if (x < (a + 1) / (a + b + 2))
        return exp(lfront) * betacf(a, b, x) / a;
    /* symmetry: I_x(a,b) = 1 - I_{1-x}(b,a) */
    return 1 - exp(lfront) * betacf(b, a, 1 - x) / b;
}

double mtb_stats_student_t_sf2(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return 0;
    return mtb_stats_betainc(df / 2, 0.5, df / (df + t * t));
}

int mtb_stats_wilson(long k, long n, double z, struct mtb_stats_ci *out)
{
    if (n <= 0 || k < 0 || k > n || !(z > 0))
        return -EINVAL;
    double p = (double)k / (double)n, nn = (double)n, z2 = z * z;
    double den = 1 + z2 / nn, mid = (p + z2 / (2 * nn)) / den;
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / den;
    out->est = p;
    out->lo = k == 0 ? 0 : mid - half;
    out->hi = k == n ? 1 : mid + half;
    return 0;
}
