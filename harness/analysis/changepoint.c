/* changepoint.c - see changepoint.h */
#include "analysis/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mtb_cp_defaults(struct mtb_cp_opts *o)
{
    o->threshold = 0.001;
    o->min_change = 0.02;
    o->min_points = 3;
    o->window = 20;
    o->max_cps = 16;
    o->boot = 1000;
    o->seed = 0x6d7465626e6368ULL;
}

int mtb_cp_welch(const double *a, size_t na, const double *b, size_t nb, double *p)
{
    if (!a || !b || !p || na < 2 || nb < 2)
        return -EINVAL;
    double ma = mtb_stats_mean(a, na), mb = mtb_stats_mean(b, nb);
    double sa = mtb_stats_stddev(a, na), sb = mtb_stats_stddev(b, nb);
    double va = sa * sa / (double)na, vb = sb * sb / (double)nb;
    if (va + vb == 0) {
        *p = ma == mb ? 1 : 0;
        return 0;
    }
    double t = (ma - mb) / sqrt(va + vb);
    double df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    *p = mtb_stats_student_t_sf2(t, df);
    return 0;
}

/* ---- E-Divisive ---------------------------------------------------------------- */

int mtb_cp_edivisive(const double *x, size_t n, double *q)
{
    if (!x || !q || n == 0)
        return -EINVAL;
    double *wl = calloc(n + 1, sizeof *wl), *wr = calloc(n + 1, sizeof *wr);
    if (!wl || !wr) {
        free(wl);
        free(wr);
        return -ENOMEM;
    }
    /* wl[k] = sum over i<j<k of |x_i - x_j|; wr[k] = sum over k<=i<j<n */
    for (size_t k = 1; k <= n; k++) {
        double s = 0;
        for (size_t i = 0; i + 1 < k; i++)
            s += fabs(x[k - 1] - x[i]);
        wl[k] = wl[k - 1] + s;
    }
    for (size_t k = n; k-- > 0;) {
        double s = 0;
        for (size_t j = k + 1; j < n; j++)
            s += fabs(x[k] - x[j]);
        wr[k] = wr[k + 1] + s;
    }
    for (size_t k = 0; k < n; k++) {
        q[k] = 0;
        if (k < 2 || n - k < 2)
            continue;
        double m = (double)k, r = (double)(n - k);
        double cross = wl[n] - wl[k] - wr[k];
        double e = 2 * cross / (m * r) - 2 * wl[k] / (m * (m - 1)) - 2 * wr[k] / (r * (r - 1));
        q[k] = m * r / (double)n * e;
    }
    free(wl);
    free(wr);
    return 0;
}

/* ---- detection ----------------------------------------------------------------- */

/* first index of the window of up to w nights ending before k (not before lo) */
static size_t window_start(const int *g, size_t lo, size_t k, size_t w)
{
    size_t i = k, seen = 0;
    while (i > lo) {
        if (i == k || g[i - 1] != g[i]) {
            if (seen == w)
                break;
            seen++;
        }
        i--;
    }
    return i;
}

/* end (exclusive) of the window of up to w nights starting at k (not past hi) */
static size_t window_end(const int *g, size_t k, size_t hi, size_t w)
{
    size_t i = k, seen = 0;
    while (i < hi) {
        if (i == k || g[i] != g[i - 1]) {
            if (seen == w)
                break;
            seen++;
        }
        i++;
    }
    return i;
}

/* bootstrap median of a resample of x (n values) into scratch */
static double boot_median(struct mtb_stats_rng *r, const double *x, size_t n, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = x[mtb_stats_rng_below(r, n)];
    mtb_stats_sort(scratch, n);
    return mtb_stats_median_sorted(scratch, n);
}

/* Judge the change at k: windows [b0,k) and [k,a1). @return 0 or -errno */
static int judge(const double *x, const int *g, size_t b0, size_t k, size_t a1, enum mtb_cp_better better,
                 const struct mtb_cp_opts *o, struct mtb_cp *cp)
{
    memset(cp, 0, sizeof *cp);
    cp->index = k;
    cp->group = g[k];
    cp->n_before = k - b0;
    cp->n_after = a1 - k;
    const double *bx = x + b0, *ax = x + k;
    size_t nb = cp->n_before, na = cp->n_after;
    if (nb < 2 || na < 2) {
        cp->p_split = cp->p_mwu = 1;
        return 0;
    }
    cp->before = mtb_stats_median(bx, nb);
    cp->after = mtb_stats_median(ax, na);
    if (isnan(cp->before) || isnan(cp->after))
        return -ENOMEM;
    cp->change = cp->before != 0 ? cp->after / cp->before - 1 : 0;
    int rc = mtb_cp_welch(bx, nb, ax, na, &cp->p_split);
    struct mtb_stats_mwu u;
    if (!rc)
        rc = mtb_stats_mann_whitney(ax, na, bx, nb, &u);
    if (rc)
        return rc;
    cp->p_mwu = u.p;
    /* 95% percentile bootstrap of the relative change of the medians */
    double *reps = malloc((o->boot ? o->boot : 1) * sizeof *reps), *scratch = malloc((nb > na ? nb : na) * sizeof *scratch);
    if (!reps || !scratch) {
        free(reps);
        free(scratch);
        return -ENOMEM;
    }
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, o->seed ^ (uint64_t)k * 0x9e3779b97f4a7c15ULL);
    unsigned nrep = 0;
    for (unsigned i = 0; i < o->boot; i++) {
        double mb = boot_median(&r, bx, nb, scratch), ma = boot_median(&r, ax, na, scratch);
        if (mb != 0)
            reps[nrep++] = ma / mb - 1;
    }
    cp->ci.est = cp->change;
    cp->ci.lo = nrep ? mtb_stats_quantile(reps, nrep, 0.025) : cp->change;
    cp->ci.hi = nrep ? mtb_stats_quantile(reps, nrep, 0.975) : cp->change;
    free(reps);
    free(scratch);
    cp->significant = cp->p_split < o->threshold && cp->p_mwu < o->threshold;
    int bad = better == MTB_CP_HIGHER ? cp->change < 0 : cp->change > 0;
    int big = fabs(cp->change) >= o->min_change;
    cp->regression = cp->significant && bad && big;
    cp->improvement = cp->significant && !bad && big;
    return 0;
}

/* Judge each of the ncps change points (sorted) into res (the significant
 * ones; *kept of them): first against the neighbouring change points; then
 * again with only the big ones (|change| >= min_change) as the windows'
 * bounds: a small step between (the night-to-night drift of emulated
 * timings, -18%) once left a -84% newest night 4 runs before it, which
 * Mann-Whitney cannot call below p 0.029, and the regression went
 * unreported. */
/* the change points found (sorted), the newest night's added last when so */
struct candidates {
    const size_t *at;
    size_t n;
    int newest_added;
};

static int judge_all(const double *x, const int *g, size_t n, const struct candidates *c, enum mtb_cp_better better,
                     const struct mtb_cp_opts *o, struct mtb_cp *res, size_t *kept)
{
    const size_t *cps = c->at, ncps = c->n;
    int *big = calloc(ncps ? ncps : 1, sizeof *big), rc = 0;
    if (!big)
        return -ENOMEM;
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (size_t i = 0; i < ncps; i++) {
            size_t prev = 0, next = n;
            for (size_t j = i; j-- > 0;)
                if (!pass || big[j]) {
                    prev = cps[j];
                    break;
                }
            for (size_t j = i + 1; j < ncps; j++)
                if (!pass || big[j]) {
                    next = cps[j];
                    break;
                }
            size_t b0 = window_start(g, prev, cps[i], o->window), a1 = window_end(g, cps[i], next, o->window);
            struct mtb_cp cp;
            if ((rc = judge(x, g, b0, cps[i], a1, better, o, &cp)) != 0)
                break;
            if (!pass) {
                big[i] = fabs(cp.change) >= o->min_change;
                continue;
            }
            cp.from_newest = c->newest_added && i == ncps - 1;
            if (cp.significant)
                res[(*kept)++] = cp;
        }
    free(big);
    return rc;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The newest night (its first index) as a change point of its own when the
 * segmentation did not end there and both sides have min_points. @return 1
 * if added */
static int add_newest(const int *g, size_t n, size_t *cps, size_t *ncps, size_t min_points)
{
    size_t last = n;
    while (last > 1 && g[last - 1] == g[last - 2])
        last--;
    last--; /* first index of the newest night */
    if (last == 0 || (*ncps && cps[*ncps - 1] == last) || n - last < min_points)
        return 0;
    size_t lo = *ncps ? cps[*ncps - 1] : 0;
    if (last - lo < min_points)
        return 0;
    cps[(*ncps)++] = last;
    return 1;
}

int mtb_cp_detect(const double *x, const int *group, size_t n, enum mtb_cp_better better,
                  const struct mtb_cp_opts *opts, struct mtb_cp **out, size_t *nout)
{
    struct mtb_cp_opts o;
    if (opts)
        o = *opts;
    else
        mtb_cp_defaults(&o);
    if (!out || !nout)
        return -EINVAL;
    *out = NULL;
    *nout = 0;
    if (!x || n == 0 || !(o.threshold > 0 && o.threshold < 1) || !(o.min_change >= 0) || o.window == 0 ||
        (better != MTB_CP_HIGHER && better != MTB_CP_LOWER))
        return -EINVAL;
    if (o.min_points < 2)
        o.min_points = 2;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || (group && i && group[i] < group[i - 1]))
            return -EINVAL;
    int *g = malloc(n * sizeof *g);
    double *q = malloc(n * sizeof *q);
    size_t *cps = malloc((o.max_cps + 2) * sizeof *cps), ncps = 0;
    /* a stack of segments [lo, hi) still to search */
    size_t *stack = malloc(2 * (o.max_cps + 2) * sizeof *stack), nst = 0;
    struct mtb_cp *res = NULL;
    int rc = 0;
    if (!g || !q || !cps || !stack) {
        rc = -ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        g[i] = group ? group[i] : (int)i;

    /* 1. binary segmentation: E-Divisive candidate, Welch t-test within the window */
    stack[nst++] = 0;
    stack[nst++] = n;
    while (nst && ncps < o.max_cps) {
        size_t hi = stack[--nst], lo = stack[--nst];
        if (hi - lo < 2 * o.min_points)
            continue;
        if ((rc = mtb_cp_edivisive(x + lo, hi - lo, q)) != 0)
            goto done;
        size_t best = 0;
        double bq = -INFINITY;
        for (size_t k = lo + o.min_points; k + o.min_points <= hi; k++)
            if (g[k] != g[k - 1] && q[k - lo] > bq) {
                bq = q[k - lo];
                best = k;
            }
        if (!best)
            continue;
        size_t b0 = window_start(g, lo, best, o.window), a1 = window_end(g, best, hi, o.window);
        double p = 1;
        if (best - b0 >= 2 && a1 - best >= 2 && (rc = mtb_cp_welch(x + b0, best - b0, x + best, a1 - best, &p)) != 0)
            goto done;
        if (!(p < o.threshold))
            continue;
        cps[ncps++] = best;
        stack[nst++] = lo;
        stack[nst++] = best;
        stack[nst++] = best;
        stack[nst++] = hi;
    }
    qsort(cps, ncps, sizeof *cps, cmp_size);

    /* 2. the newest night against the window before it */
    int newest_added = add_newest(g, n, cps, &ncps, o.min_points);

    /* 3. judge every change point against its neighbours */
    res = calloc(ncps ? ncps : 1, sizeof *res);
    if (!res) {
        rc = -ENOMEM;
        goto done;
    }
    size_t kept = 0;
    if ((rc = judge_all(x, g, n, &(struct candidates){ cps, ncps, newest_added }, better, &o, res, &kept)) != 0)
        goto done;
    if (kept) {
        *out = res;
        *nout = kept;
        res = NULL;
    }
done:
    free(res);
    free(g);
    free(q);
    free(cps);
    free(stack);
    return rc;
}
