/* stats_pairs.c - the overhead interval of paired runs, chosen by the shape
 * of the pairs' log ratios: the t-interval when they look normal, the
 * Wilcoxon signed-rank interval (Hodges-Lehmann estimate) when they look
 * symmetric, the order-statistic (sign) interval of the median otherwise.
 * See stats.h for the contract and docs/STATISTICS.md for the evidence. */
#include "analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* beyond this many pairs the signed-rank distribution is the normal one */
#define SR_EXACT_MAX 400
/* beyond this many pairs the Walsh averages (n(n+1)/2) are not built */
#define SR_MAX 3000

double mtb_stats_t_quantile(double alpha, double df)
{
    if (!(alpha > 0 && alpha < 1) || !(df > 0))
        return NAN;
    double lo = 0, hi = 1;
    while (mtb_stats_student_t_sf2(hi, df) > alpha && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = lo + (hi - lo) / 2;
        if (mtb_stats_student_t_sf2(mid, df) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

int mtb_stats_t_ci(const double *x, size_t n, double conf, struct mtb_stats_ci *out)
{
    if (!x || !out || n < 2 || !(conf > 0 && conf < 1) || !mtb_stats_all_finite(x, n))
        return -EINVAL;
    double m = mtb_stats_mean(x, n), sd = mtb_stats_stddev(x, n);
    double q = mtb_stats_t_quantile(1 - conf, (double)(n - 1));
    out->est = m;
    out->lo = m - q * sd / sqrt((double)n);
    out->hi = m + q * sd / sqrt((double)n);
    return 0;
}

/* P(T+ <= c) for c = 0 .. cmax under the null (n ranks, signs fair): the
 * number of subsets of {1..n} summing to s, over 2^n, by the usual
 * recursion, in probabilities so nothing overflows. */
static int signedrank_cdf(size_t n, double *cdf, size_t cmax)
{
    size_t M = n * (n + 1) / 2;
    double *p = calloc(M + 1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p[0] = 1;
    size_t top = 0;
    for (size_t i = 1; i <= n; i++) {
        top += i;
        for (size_t s = top; s >= i; s--)
            p[s] = (p[s] + p[s - i]) / 2;
        for (size_t s = 0; s < i && s <= top; s++)
            p[s] /= 2;
    }
    double c = 0;
    for (size_t s = 0; s <= cmax && s <= M; s++) {
        c += p[s];
        cdf[s] = c;
    }
    free(p);
    return 0;
}

/* The rank k (1-based) of the lower limit among the M Walsh averages and the
 * exact coverage 1 - 2 P(T+ <= k-1) of [W_(k), W_(M+1-k)]. */
static int signedrank_k(size_t n, double conf, size_t *k, double *cover)
{
    size_t M = n * (n + 1) / 2, half = M / 2;
    double alpha = 1 - conf;
    if (n > SR_EXACT_MAX) {
        /* normal approximation with continuity correction */
        double mu = (double)M / 2, sd = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24);
        double z = mtb_stats_t_quantile(alpha, 1e7);
        double c = floor(mu - z * sd - 0.5);
        if (c < 0)
            c = 0;
        *k = (size_t)c + 1;
        *cover = erf((mu - c - 0.5) / sd / M_SQRT2);
        return 0;
    }
    double *cdf = malloc((half + 1) * sizeof *cdf);
    if (!cdf)
        return -ENOMEM;
    int rc = signedrank_cdf(n, cdf, half);
    if (rc) {
        free(cdf);
        return rc;
    }
    /* the largest c with 2 P(T+ <= c) <= alpha; k = c + 1; none: k = 1 */
    size_t c = 0;
    while (c + 1 <= half && 2 * cdf[c + 1] <= alpha + 1e-12 * alpha)
        c++;
    *k = c + 1;
    *cover = 1 - 2 * cdf[c];
    free(cdf);
    return 0;
}

int mtb_stats_signedrank_ci(const double *x, size_t n, double conf, struct mtb_stats_ci *out, double *achieved)
{
    if (!x || !out || n == 0 || n > SR_MAX || !(conf > 0 && conf < 1) || !mtb_stats_all_finite(x, n))
        return -EINVAL;
    size_t M = n * (n + 1) / 2, m = 0;
    double *w = malloc(M * sizeof *w);
    if (!w)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[m++] = (x[i] + x[j]) / 2;
    mtb_stats_sort(w, M);
    size_t k = 1;
    double cover = 0;
    int rc = n >= 2 ? signedrank_k(n, conf, &k, &cover) : 0;
    if (rc) {
        free(w);
        return rc;
    }
    out->est = mtb_stats_median_sorted(w, M);
    out->lo = w[k - 1];
    out->hi = w[M - k];
    if (achieved)
        *achieved = cover;
    free(w);
    return 0;
}

/* The medcouple (Brys, Hubert & Struyf 2004) of the sorted s: the median of
 * h(xi, xj) = ((xj - m) - (m - xi)) / (xj - xi) over xi <= m <= xj; values
 * tied with the median m count as in the definition (-1, 0, +1 by index).
 * O(n^2), for the small samples of a benchmark's pairs. */
static double medcouple_sorted(const double *s, size_t n)
{
    double m = mtb_stats_median_sorted(s, n);
    size_t nlo = 0, nhi = 0;
    for (size_t i = 0; i < n; i++) {
        nlo += s[i] <= m;
        nhi += s[i] >= m;
    }
    double *h = malloc((nlo && nhi ? nlo * nhi : 1) * sizeof *h);
    if (!h)
        return NAN;
    size_t nh = 0, ntie = 0;
    for (size_t i = 0; i < n; i++)
        ntie += s[i] == m;
    /* lower half ascending s[0..nlo), upper half s[n-nhi..n) */
    for (size_t i = 0; i < nlo; i++)
        for (size_t j = n - nhi; j < n; j++) {
            double xi = s[i], xj = s[j];
            if (xi == m && xj == m) {
                /* ties at the median: index within the tie block */
                size_t a = i - (nlo - ntie) + 1, b = j - (n - nhi) + 1; /* 1-based in the tie block */
                size_t sum = a + b - 1;
                h[nh++] = sum < ntie ? -1 : sum == ntie ? 0 : 1;
            } else
                h[nh++] = ((xj - m) - (m - xi)) / (xj - xi);
        }
    mtb_stats_sort(h, nh);
    double mc = mtb_stats_median_sorted(h, nh);
    free(h);
    return mc;
}

double mtb_stats_medcouple(const double *x, size_t n)
{
    if (!x || n == 0 || !mtb_stats_all_finite(x, n))
        return NAN;
    double *s = mtb_stats_sorted_copy(x, n);
    if (!s)
        return NAN;
    double mc = medcouple_sorted(s, n);
    free(s);
    return mc;
}

const char *mtb_stats_pair_method_name(enum mtb_stats_pair_method m)
{
    switch (m) {
    case STATS_PAIR_T: return "t-interval on log ratios";
    case STATS_PAIR_SIGNEDRANK: return "Wilcoxon signed-rank on log ratios (Hodges-Lehmann)";
    default: return "order statistics of pairwise ratios";
    }
}

/**
 * mtb_stats_pair_shape - the shape checks above on the values x (log ratios)
 * and the method they choose. @return 0, -EINVAL, -ENOMEM
 */
static int mtb_stats_pair_shape(const double *x, size_t n, struct mtb_stats_shape *sh)
{
    if (!x || !sh || n == 0 || !mtb_stats_all_finite(x, n))
        return -EINVAL;
    memset(sh, 0, sizeof *sh);
    sh->method = STATS_PAIR_SIGN;
    sh->n = n;
    if (n < STATS_SHAPE_MIN) {
        if (n >= STATS_SHAPE_T_MIN)
            sh->method = STATS_PAIR_T;         /* too few pairs to check: only t reaches the level */
        return 0;
    }
    double *s = mtb_stats_sorted_copy(x, n), *dev = malloc(n * sizeof *dev);
    if (!s || !dev) {
        free(s);
        free(dev);
        return -ENOMEM;
    }
    double med = mtb_stats_median_sorted(s, n);
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(s[i] - med);
    mtb_stats_sort(dev, n);
    sh->mad = 1.482602218505602 * mtb_stats_median_sorted(dev, n);
    double mean = mtb_stats_mean(s, n), m2 = 0, m3 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = s[i] - mean;
        m2 += d * d;
        m3 += d * d * d;
        if (sh->mad > 0 && fabs(s[i] - med) > STATS_SHAPE_OUTLIER * sh->mad)
            sh->outliers++;
    }
    m2 /= (double)n;
    m3 /= (double)n;
    double dn = (double)n;
    /* adjusted Fisher-Pearson skewness G1 and its standard error under normality */
    sh->skew = m2 > 0 ? m3 / pow(m2, 1.5) * sqrt(dn * (dn - 1)) / (dn - 2) : 0;
    sh->skew_se = sqrt(6 * dn * (dn - 1) / ((dn - 2) * (dn + 1) * (dn + 3)));
    sh->medcouple = medcouple_sorted(s, n);
    sh->mc_limit = STATS_SHAPE_MC_Z * sqrt(1.25 / dn);
    free(s);
    free(dev);
    if (!(sh->mad > 0) || isnan(sh->medcouple))
        return 0;                              /* half the pairs equal: order statistics */
    if (fabs(sh->medcouple) > sh->mc_limit)
        sh->method = STATS_PAIR_SIGN;          /* skewed: the median, by order statistics */
    else if (sh->outliers == 0 && fabs(sh->skew) <= STATS_SHAPE_SKEW_Z * sh->skew_se)
        sh->method = STATS_PAIR_T;             /* normal-looking */
    else
        sh->method = STATS_PAIR_SIGNEDRANK;    /* symmetric, with tails or outliers */
    return 0;
}

int mtb_stats_pair_ci(const double *num, const double *den, size_t n, double conf, struct mtb_stats_ci *out, double *achieved,
                  struct mtb_stats_shape *shape)
{
    if (!num || !den || !out || n == 0 || !(conf > 0 && conf < 1) || !mtb_stats_all_finite(num, n) || !mtb_stats_all_finite(den, n))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (num[i] <= 0 || den[i] <= 0)
            return -EDOM;
    double *l = malloc(n * sizeof *l), *r = malloc(n * sizeof *r);
    if (!l || !r) {
        free(l);
        free(r);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        r[i] = num[i] / den[i];
        l[i] = log(r[i]);
    }
    int rc = mtb_stats_all_finite(r, n) ? 0 : -EDOM;
    struct mtb_stats_shape sh;
    struct mtb_stats_ci c;
    double ach = conf;
    if (!rc)
        rc = mtb_stats_pair_shape(l, n, &sh);
    if (!rc && sh.method == STATS_PAIR_T)
        rc = mtb_stats_t_ci(l, n, conf, &c);
    else if (!rc && sh.method == STATS_PAIR_SIGNEDRANK)
        rc = mtb_stats_signedrank_ci(l, n, conf, &c, &ach);
    if (!rc && sh.method != STATS_PAIR_SIGN) {
        out->est = exp(c.est);
        out->lo = exp(c.lo);
        out->hi = exp(c.hi);
    } else if (!rc)
        rc = mtb_stats_median_ci(r, n, conf, out, &ach);
    free(l);
    free(r);
    if (rc)
        return rc;
    if (achieved)
        *achieved = ach;
    if (shape)
        *shape = sh;
    return 0;
}
