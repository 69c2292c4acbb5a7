/* capacity.c - see capacity.h */
#include "analysis/capacity.h"
#include "analysis/stats.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the SLO ----------------------------------------------------------------------------------- */

static const char *const pcts[] = { "p50", "p90", "p99", "p99.9", "p99.99" };

static int parse_bound(const char *v, double *us, char *why, size_t n, const char *item)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || !isfinite(x)) {
        snprintf(why, n, "SLO '%s': the bound '%s' is not a number with a unit (e.g. 500us, 1ms, 0.2s)", item, v);
        return -1;
    }
    double mul = !strcmp(end, "us") ? 1 : !strcmp(end, "ms") ? 1e3 : !strcmp(end, "s") ? 1e6 : -1;
    if (mul < 0) {
        snprintf(why, n, "SLO '%s': the bound '%s' needs a unit: us, ms or s", item, v);
        return -1;
    }
    if (!(x > 0)) {
        snprintf(why, n, "SLO '%s': the bound must be positive", item);
        return -1;
    }
    *us = x * mul;
    return 0;
}

static int parse_errors(const char *v, double *frac, char *why, size_t n, const char *item)
{
    char *end;
    double x = strtod(v, &end);
    int percent = !strcmp(end, "%");
    if (end == v || (*end && !percent) || !isfinite(x) || x < 0 || (percent ? x > 100 : x > 1)) {
        snprintf(why, n, "SLO '%s': the error rate '%s' is not a percent (0.1%%) or a fraction from 0 to 1", item, v);
        return -1;
    }
    *frac = percent ? x / 100 : x;
    return 0;
}

static void bound_text(struct mtb_slo_bound *b)
{
    double v = b->bound_us;
    char pct[sizeof b->pct];
    memcpy(pct, b->pct, sizeof pct);
    if (v >= 1e6)
        snprintf(b->text, sizeof b->text, "%s <= %g s", pct, v / 1e6);
    else if (v >= 1e3)
        snprintf(b->text, sizeof b->text, "%s <= %g ms", pct, v / 1e3);
    else
        snprintf(b->text, sizeof b->text, "%s <= %g us", pct, v);
}

static int slo_item(char *item, struct mtb_slo *slo, char *why, size_t n)
{
    char *colon = strchr(item, ':');
    if (!*item || !colon || colon == item || !colon[1]) {
        snprintf(why, n, "SLO '%s': expected PERCENTILE:BOUND (p99:1ms) or errors:RATE (errors:0.1%%)", item);
        return -1;
    }
    *colon = 0;
    const char *key = item, *val = colon + 1;
    if (!strcmp(key, "errors")) {
        int rc = parse_errors(val, &slo->err_max, why, n, key);
        *colon = ':';
        return rc;
    }
    size_t k = 0;
    while (k < sizeof pcts / sizeof *pcts && strcmp(pcts[k], key))
        k++;
    if (k == sizeof pcts / sizeof *pcts) {
        snprintf(why, n, "SLO '%s:%s': unknown percentile '%s' (accepted: p50, p90, p99, p99.9, p99.99, errors)", key,
                 val, key);
        *colon = ':';
        return -1;
    }
    if (slo->n == MTB_SLO_MAX) {
        snprintf(why, n, "SLO: at most %d latency bounds", MTB_SLO_MAX);
        return -1;
    }
    struct mtb_slo_bound *b = &slo->b[slo->n];
    snprintf(b->pct, sizeof b->pct, "%s", pcts[k]);
    *colon = ':';
    if (parse_bound(val, &b->bound_us, why, n, item) != 0)
        return -1;
    for (int i = 0; i < slo->n; i++)
        if (!strcmp(slo->b[i].pct, b->pct)) {
            snprintf(why, n, "SLO: %s is bounded twice", b->pct);
            return -1;
        }
    bound_text(b);
    slo->n++;
    return 0;
}

int mtb_slo_parse(const char *text, struct mtb_slo *slo, char *why, size_t n)
{
    memset(slo, 0, sizeof *slo);
    slo->err_max = -1;
    if (!text || !*text || strlen(text) >= sizeof slo->text) {
        snprintf(why, n, "SLO '%s': expected PERCENTILE:BOUND[,...] such as p99:1ms or p99:1ms,p99.9:5ms,errors:0.1%%",
                 text ? text : "");
        return -1;
    }
    snprintf(slo->text, sizeof slo->text, "%s", text);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*it))
            it++;
        if (slo_item(it, slo, why, n) != 0)
            return -1;
    }
    if (!slo->n) {
        snprintf(why, n, "SLO '%s': no latency bound (add one such as p99:1ms)", text);
        return -1;
    }
    return 0;
}

/* ---- the estimate ------------------------------------------------------------------------------ */

double mtb_cap_median(const struct mtb_cap_point *p)
{
    if (!p->n)
        return NAN;
    double s[MTB_CAP_MAXREP];
    memcpy(s, p->v, (size_t)p->n * sizeof *s);
    mtb_stats_sort(s, (size_t)p->n);
    return p->n % 2 ? s[p->n / 2] : (isinf(s[p->n / 2]) ? INFINITY : (s[p->n / 2 - 1] + s[p->n / 2]) / 2);
}

static int cmp_rate(const void *a, const void *b)
{
    double x = ((const struct mtb_cap_point *)a)->rate, y = ((const struct mtb_cap_point *)b)->rate;
    return (x > y) - (x < y);
}

/* Sort a copy of the points by rate; the bracket's indexes into ip and ifail (-1: none). */
static struct mtb_cap_point *bracket(const struct mtb_cap_point *pts, size_t n, double bound, int *ip, int *ifail)
{
    struct mtb_cap_point *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, pts, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_rate);
    *ip = *ifail = -1;
    for (size_t i = 0; i < n; i++) {
        if (mtb_cap_median(&s[i]) <= bound) {
            *ip = (int)i;
            continue;
        }
        *ifail = (int)i;
        break;
    }
    return s;
}

/* The fit's abscissa: -ln(1 - rate / sat), which makes a queue's
 * percentile (~ 1 / (1 - utilisation) near saturation) a straight line
 * in ln(value); the rate itself when sat is 0. */
static double fwd(double r, double sat) { return sat > 0 ? -log(1 - r / sat) : r; }
static double back(double x, double sat) { return sat > 0 ? sat * (1 - exp(-x)) : x; }

/* Least squares of y on x: the means, Sxx, the slope and the residual sum of squares. @return 0, or -1 when
 * the x do not vary. */
static int ls_fit(const double *x, const double *y, int n, double *xb, double *yb, double *sxx, double *slope,
                  double *ss)
{
    double sxy = 0;
    *xb = *yb = *sxx = *ss = 0;
    for (int i = 0; i < n; i++) {
        *xb += x[i] / n;
        *yb += y[i] / n;
    }
    for (int i = 0; i < n; i++) {
        *sxx += (x[i] - *xb) * (x[i] - *xb);
        sxy += (x[i] - *xb) * (y[i] - *yb);
    }
    if (!(*sxx > 0))
        return -1;
    *slope = sxy / *sxx;
    for (int i = 0; i < n; i++) {
        double r = y[i] - *yb - *slope * (x[i] - *xb);
        *ss += r * r;
    }
    return 0;
}

/* A run the machine disturbed (a p99 several times its neighbours') is left
 * out: a residual beyond 5 robust standard deviations (1.4826 MAD) of the
 * first fit. @return the values kept (x, y compacted). */
static int drop_outliers(double *x, double *y, int n, double xb, double yb, double slope)
{
    double r[4 * MTB_CAP_MAXREP], a[4 * MTB_CAP_MAXREP];
    for (int i = 0; i < n; i++) {
        r[i] = y[i] - yb - slope * (x[i] - xb);
        a[i] = fabs(r[i]);
    }
    double mad = mtb_stats_median(a, (size_t)n) * 1.4826;
    if (!(mad > 0))
        return n;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (fabs(r[i]) <= 5 * mad) {
            x[k] = x[i];
            y[k++] = y[i];
        }
    return k;
}

/* Fit ln(value) = a + slope (fwd(rate) - xbar) over the finite values of
 * points [from, to] (a point whose median is +inf is left out; then the
 * disturbed runs, drop_outliers); Fieller's interval for the crossing with
 * ln(bound). @return 0 when usable. */
static int fit_cross(const struct mtb_cap_point *s, int from, int to, double bound, double conf, double sat,
                     struct mtb_cap_est *e)
{
    double x[4 * MTB_CAP_MAXREP], y[4 * MTB_CAP_MAXREP];
    int n = 0;
    for (int i = from; i <= to; i++) {
        if (isinf(mtb_cap_median(&s[i])))
            continue;
        for (int k = 0; k < s[i].n && n < 4 * MTB_CAP_MAXREP; k++)
            if (isfinite(s[i].v[k]) && s[i].v[k] > 0) {
                x[n] = fwd(s[i].rate, sat);
                y[n++] = log(s[i].v[k]);
            }
    }
    double xb, yb, sxx, slope, ss;
    if (n < 4 || ls_fit(x, y, n, &xb, &yb, &sxx, &slope, &ss) != 0)
        return -1;
    int kept = drop_outliers(x, y, n, xb, yb, slope);
    if (kept < n && (kept < 4 || ls_fit(x, y, kept, &xb, &yb, &sxx, &slope, &ss) != 0))
        return -1;
    n = kept;
    int above = 0, below = 0;
    for (int i = 0; i < n; i++) {
        above += y[i] > log(bound);
        below += y[i] <= log(bound);
    }
    double s2 = ss / (n - 2), t = mtb_stats_t_quantile(1 - conf, n - 2);
    if (!above || !below || !(slope > 0) || !isfinite(t))
        return -1;
    double d = log(bound) - yb, g = t * t * s2 / (sxx * slope * slope);
    if (g >= 1)
        return -1; /* the slope is not told from 0: the crossing is unbounded */
    double A = slope * slope * (1 - g), B = -2 * slope * d, C = d * d - t * t * s2 / n;
    double disc = B * B - 4 * A * C;
    if (disc < 0)
        disc = 0;
    e->capacity = back(xb + d / slope, sat);
    e->lo = back(xb + (-B - sqrt(disc)) / (2 * A), sat);
    e->hi = back(xb + (-B + sqrt(disc)) / (2 * A), sat);
    e->nvalues = n;
    e->fit = 1;
    return e->lo > 0 ? 0 : -1; /* an interval reaching 0 says less than the bracket */
}

void mtb_cap_estimate(const struct mtb_cap_point *pts, size_t n, double bound, double conf, double sat,
                      struct mtb_cap_est *e)
{
    memset(e, 0, sizeof *e);
    e->status = MTB_CAP_NONE;
    int ip, ifl;
    struct mtb_cap_point *s = n ? bracket(pts, n, bound, &ip, &ifl) : NULL;
    if (!s)
        return;
    if (ip < 0) {
        e->status = MTB_CAP_BELOW;
        e->rate_fail = s[0].rate;
    } else if (ifl < 0) {
        e->status = MTB_CAP_ABOVE;
        e->rate_pass = s[ip].rate;
    } else {
        e->status = MTB_CAP_FOUND;
        e->rate_pass = s[ip].rate;
        e->rate_fail = s[ifl].rate;
        /* the window: the bracket and the nearest rate beyond each end, within a factor 2 */
        int from = ip, to = ifl;
        if (from > 0 && s[from - 1].rate * 2 >= s[ip].rate)
            from--;
        if (to + 1 < (int)n && s[to + 1].rate <= s[ifl].rate * 2)
            to++;
        if (sat > 0 && s[to].rate >= sat * 0.995)
            sat = 0; /* a rate at or above the pilot's: the rate itself */
        if (fit_cross(s, from, to, bound, conf, sat, e) != 0 || !(e->capacity > 0)) {
            /* the bracket: the medians interpolated in ln(value), the interval its ends */
            double mp = mtb_cap_median(&s[ip]), mf = mtb_cap_median(&s[ifl]);
            double f = isfinite(mf) && mf > mp && mp > 0 ? (log(bound) - log(mp)) / (log(mf) - log(mp)) : 0.5;
            e->capacity = e->rate_pass + f * (e->rate_fail - e->rate_pass);
            e->lo = e->rate_pass;
            e->hi = e->rate_fail;
            e->fit = 0;
            e->nvalues = 0;
        }
        if (e->lo < 0)
            e->lo = 0;
    }
    free(s);
}

/* ---- the search -------------------------------------------------------------------------------- */

double mtb_cap_carried(const double *achieved, size_t n)
{
    double most = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(achieved[i]) && achieved[i] > most)
            most = achieved[i];
    return most;
}

/* the probed rates of a configuration: its curves share them; the first curve's are the list */
static int probed(const struct mtb_cap_point *c, size_t n, double rate)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(c[i].rate - rate) <= 1e-9 * rate)
            return 1;
    return 0;
}

/* A new rate for one curve (0: none) and how much it is wanted (the
 * bracket's width; +inf: no bracket yet). */
static double curve_next(const struct mtb_cap_search *s, const struct mtb_cap_point *c, size_t n, double bound,
                         double *want)
{
    struct mtb_cap_est e;
    mtb_cap_estimate(c, n, bound, 0.95, s->sat, &e);
    double lowest = c[0].rate, highest = c[0].rate, r = 0;
    for (size_t i = 0; i < n; i++) {
        lowest = c[i].rate < lowest ? c[i].rate : lowest;
        highest = c[i].rate > highest ? c[i].rate : highest;
    }
    *want = INFINITY;
    /* Above every rate: x1.3 up to 4 times the pilot's, as a disturbed pilot reads low (CI on 697bcc9:
     * 1.2 sat ended "above"; de34583 on a loaded 2-core machine: both pilots under half of their
     * saturation, 2 sat ended "above" too). Past 4 sat, where every rate so far was carried, on x1.3
     * while the runs carry what they are offered (f8a49cd: a pilot at 22%, 4 sat ended "above"): a
     * rate the service cannot carry falls behind and misses every bound, which ends the climb, and
     * max_probes bounds it. */
    double cap = highest < 4 * s->sat * (1 - 1e-9)               ? 4 * s->sat
                 : s->sat > 0 && s->carried >= highest * 0.99 ? highest * 1.3
                                                              : 0;
    if (e.status == MTB_CAP_ABOVE)
        r = highest * 1.3 < cap ? highest * 1.3 : cap;
    else if (e.status == MTB_CAP_BELOW)
        r = lowest / 2 >= s->sat / 100 ? lowest / 2 : 0;
    else if (e.status == MTB_CAP_FOUND && e.rate_fail > e.rate_pass * (1 + s->tol)) {
        *want = e.rate_fail / e.rate_pass;
        int ip, ifl;
        struct mtb_cap_point *srt = bracket(c, n, bound, &ip, &ifl);
        double mp = srt ? mtb_cap_median(&srt[ip]) : NAN, mf = srt ? mtb_cap_median(&srt[ifl]) : NAN;
        free(srt);
        double f = isfinite(mf) && mf > mp && mp > 0 ? (log(bound) - log(mp)) / (log(mf) - log(mp)) : 0.5;
        f = f < 0.2 ? 0.2 : f > 0.8 ? 0.8 : f;
        r = e.rate_pass + f * (e.rate_fail - e.rate_pass);
    }
    return r > 0 && !probed(c, n, r) ? r : 0;
}

/* More runs at a bracket end whose runs fall on both sides of the bound,
 * or that has fewer than reps runs. @return the rate, or 0. */
static double curve_more(const struct mtb_cap_search *s, const struct mtb_cap_point *c, size_t n, double bound)
{
    int ip, ifl;
    struct mtb_cap_point *srt = bracket(c, n, bound, &ip, &ifl);
    double r = 0;
    int fewest = s->max_reps;
    for (int side = 0; srt && ip >= 0 && ifl >= 0 && side < 2; side++) {
        const struct mtb_cap_point *p = &srt[side ? ifl : ip];
        int lo = 0, hi = 0;
        for (int k = 0; k < p->n; k++) {
            lo += p->v[k] <= bound;
            hi += p->v[k] > bound;
        }
        int need = p->n < s->reps || (lo && hi && p->n < s->max_reps);
        if (need && p->n < fewest) {
            fewest = p->n;
            r = p->rate;
        }
    }
    free(srt);
    return r;
}

double mtb_cap_next(const struct mtb_cap_search *s, const struct mtb_cap_point *const *curves, const size_t *npts,
                    const double *bounds, size_t ncurves, int *add)
{
    static const double grid[] = { 0.3, 0.6, 0.9 };
    *add = 1;
    if (!ncurves)
        return 0;
    size_t nprobed = npts[0];
    for (size_t g = 0; g < sizeof grid / sizeof *grid; g++)
        if (!probed(curves[0], npts[0], grid[g] * s->sat))
            return grid[g] * s->sat;
    double best = 0, want_best = 0;
    for (size_t i = 0; i < ncurves && nprobed < s->max_probes; i++) {
        double want, r = curve_next(s, curves[i], npts[i], bounds[i], &want);
        if (r > 0 && want > want_best) {
            best = r;
            want_best = want;
        }
    }
    if (best > 0) {
        *add = s->reps;
        return best;
    }
    for (size_t i = 0; i < ncurves; i++) {
        double r = curve_more(s, curves[i], npts[i], bounds[i]);
        if (r > 0)
            return r;
    }
    return 0;
}

/* ---- M/D/1 ------------------------------------------------------------------------------------- */

double mtb_md1_cdf(double lambda, double d, double t)
{
    if (t < d)
        return 0;
    long double rho = (long double)lambda * d, w = (long double)t - d, sum = 0;
    if (rho >= 1)
        return 0;
    if (lambda * t > 20)
        return NAN; /* the alternating sum's terms reach e^20 times more: beyond long double's digits */
    /* Erlang: P(W <= w) = (1 - rho) sum_{k=0}^{floor(w/d)} (lambda (k d - w))^k / k! e^{-lambda (k d - w)} */
    for (long k = 0; k <= (long)floorl(w / d); k++) {
        long double x = lambda * (k * (long double)d - w), term = expl(-x);
        for (long j = 1; j <= k; j++)
            term *= x / j;
        sum += term;
    }
    long double p = (1 - rho) * sum;
    return p < 0 ? 0 : p > 1 ? 1 : (double)p;
}

double mtb_md1_capacity(double d, double q, double bound)
{
    if (!(bound > d) || !(d > 0))
        return 0;
    double lo = 0, hi = 1; /* utilisation */
    for (int i = 0; i < 60; i++) {
        double mid = (lo + hi) / 2;
        if (mtb_md1_cdf(mid / d, d, bound) >= q)
            lo = mid;
        else
            hi = mid;
    }
    return lo / d;
}
