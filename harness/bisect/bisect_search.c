/* bisect_search.c - the search of a bisection under noise (bisect_search.h). */
#include "bisect/bisect_search.h"
#include "analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mtb_bisect_defaults(struct mtb_bisect_cfg *cfg)
{
    cfg->reps = 10;
    cfg->add_reps = 10;
    cfg->max_reps = 40;
    cfg->refresh = 2;
    cfg->min_change = 0.05;
    cfg->better = 1;
}

void mtb_bisect_free(struct mtb_bisect_rev *revs, size_t n)
{
    for (size_t i = 0; revs && i < n; i++) {
        free(revs[i].x);
        revs[i].x = NULL;
        revs[i].n = revs[i].cap = 0;
        revs[i].built = 0;
    }
}

struct bs {
    struct mtb_bisect_rev *revs;
    size_t n;
    const struct mtb_bisect_cfg *cfg;
    const struct mtb_bisect_ops *ops;
    struct mtb_bisect_result *res;
};

static int push(struct mtb_bisect_rev *r, double v)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        double *x = realloc(r->x, cap * sizeof *x);
        if (!x)
            return -ENOMEM;
        r->x = x;
        r->cap = cap;
    }
    r->x[r->n++] = v;
    return 0;
}

struct want {
    size_t rev;
    int count;
};

/* runs of several revisions interleaved: run k of revision r sits at
 * (k + 1/2) / count_r of the round, so every revision's runs are spread over
 * the whole round (A B A B ..., or M L M R M ... for unequal counts) */
static int measure(struct bs *s, const struct want *w, size_t nw)
{
    int done[4] = { 0 };
    for (;;) {
        size_t best = nw;
        double pos = 2;
        for (size_t k = 0; k < nw; k++) {
            if (done[k] >= w[k].count)
                continue;
            double p = (done[k] + 0.5) / w[k].count;
            if (p < pos) {
                pos = p;
                best = k;
            }
        }
        if (best == nw)
            return 0;
        double v;
        int rc = s->ops->run(s->ops->ctx, w[best].rev, &v);
        if (rc)
            return rc;
        if (!isfinite(v))
            return -EINVAL;
        if ((rc = push(&s->revs[w[best].rev], v)))
            return rc;
        done[best]++;
        s->res->runs++;
    }
}

static double med(const struct mtb_bisect_rev *r) { return mtb_stats_median(r->x, r->n); }

/* the IQR of both samples, each about its own median */
static double pooled_iqr(const struct mtb_bisect_rev *a, const struct mtb_bisect_rev *b)
{
    double q = (mtb_pinpoint_iqr(a->x, a->n) + mtb_pinpoint_iqr(b->x, b->n)) / 2;
    double floor = 1e-9 * (fabs(med(a)) + fabs(med(b)) + 1e-300);
    return q > floor ? q : floor;
}

/* compare a and b, adding runs to both (interleaved) while UNKNOWN and under
 * the cap; an UNKNOWN at the cap is returned as such */
static int decide(struct bs *s, size_t a, size_t b, double mag, const char *why, struct mtb_pinpoint_cmp *c)
{
    for (;;) {
        struct mtb_bisect_rev *ra = &s->revs[a], *rb = &s->revs[b];
        int rc = mtb_pinpoint_compare(ra->x, ra->n, rb->x, rb->n, mag, c);
        if (rc)
            return rc;
        if (s->ops->step) {
            struct mtb_bisect_step st = { a, b, *c, why };
            s->ops->step(s->ops->ctx, &st);
        }
        if (c->v != PP_UNKNOWN)
            return 0;
        struct want w[2];
        size_t nw = 0;
        int cap = s->cfg->max_reps;
        if ((int)ra->n < cap)
            w[nw++] = (struct want){ a, (int)ra->n + s->cfg->add_reps > cap ? cap - (int)ra->n : s->cfg->add_reps };
        if ((int)rb->n < cap)
            w[nw++] = (struct want){ b, (int)rb->n + s->cfg->add_reps > cap ? cap - (int)rb->n : s->cfg->add_reps };
        if (nw == 0)
            return 0;
        if ((rc = measure(s, w, nw)))
            return rc;
    }
}

/** @return median(b)/median(a) - 1 with a 95% bootstrap interval (seeded) */
static double mtb_bisect_effect(const double *a, size_t na, const double *b, size_t nb, double *lo, double *hi)
{
    double ma = mtb_stats_median(a, na), mb = mtb_stats_median(b, nb);
    double e = mb / ma - 1;
    enum { ITERS = 2000 };
    double *r = malloc(ITERS * sizeof *r), *ra = malloc(na * sizeof *ra), *rb = malloc(nb * sizeof *rb);
    *lo = *hi = NAN;
    if (r && ra && rb) {
        struct mtb_stats_rng g;
        mtb_stats_rng_seed(&g, 0x6269736563740ULL ^ na ^ (nb << 16));
        for (int t = 0; t < ITERS; t++) {
            for (size_t i = 0; i < na; i++)
                ra[i] = a[mtb_stats_rng_below(&g, na)];
            for (size_t i = 0; i < nb; i++)
                rb[i] = b[mtb_stats_rng_below(&g, nb)];
            r[t] = mtb_stats_median(rb, nb) / mtb_stats_median(ra, na) - 1;
        }
        *lo = mtb_stats_quantile(r, ITERS, 0.025);
        *hi = mtb_stats_quantile(r, ITERS, 0.975);
    }
    free(r);
    free(ra);
    free(rb);
    return e;
}

static int build(struct bs *s, size_t i)
{
    if (s->revs[i].built)
        return s->revs[i].built > 0 ? 0 : BS_BUILD_SKIP;
    int rc = s->ops->build(s->ops->ctx, i);
    s->res->builds++;
    if (rc == BS_BUILD_SKIP) {
        s->revs[i].built = -1;
        s->res->skipped++;
        return rc;
    }
    if (rc == 0) {
        s->revs[i].built = 1;
        s->res->tested++;
    }
    return rc;
}

/* the ends: measured interleaved, then they must differ, the bad way */
static int ends(struct bs *s)
{
    struct mtb_bisect_result *res = s->res;
    size_t g = 0, b = s->n - 1;
    for (size_t e = 0; e < 2; e++) {
        size_t i = e ? b : g;
        int rc = build(s, i);
        if (rc) {
            res->outcome = BS_FAILED;
            snprintf(res->why, sizeof res->why, "the %s end does not build (%d)", e ? "bad" : "good", rc);
            return rc == BS_BUILD_SKIP ? -EINVAL : rc;
        }
    }
    struct want w[2] = { { g, s->cfg->reps }, { b, s->cfg->reps } };
    int rc = measure(s, w, 2);
    if (rc)
        return rc;
    double m0 = fabs(med(&s->revs[g]));
    double mag = s->cfg->min_change * m0 / pooled_iqr(&s->revs[g], &s->revs[b]);
    if ((rc = decide(s, g, b, mag, "ends", &res->ends)))
        return rc;
    res->end_effect = med(&s->revs[b]) / med(&s->revs[g]) - 1;
    int worse = s->cfg->better > 0 ? res->end_effect < 0 : res->end_effect > 0;
    if (res->ends.v != PP_DIFFERENT || !worse || fabs(res->end_effect) < s->cfg->min_change) {
        res->outcome = BS_NOT_REPRODUCED;
        const struct mtb_pinpoint_cmp *c = &res->ends;
        if (c->v == PP_SAME)
            snprintf(res->why, sizeof res->why, "good and bad are the same (p %.3g > %.3g after %zu runs each)", c->p,
                     c->high, c->n);
        else if (c->v == PP_UNKNOWN)
            snprintf(res->why, sizeof res->why, "undecided after %zu runs each (p %.3g; same above %.3g)", c->n, c->p,
                     c->high);
        else if (!worse)
            snprintf(res->why, sizeof res->why, "bad is better than good by %.1f%% (p %.3g): no regression",
                     100 * fabs(res->end_effect), c->p);
        else
            snprintf(res->why, sizeof res->why, "the change (%.1f%%) is below the %.1f%% sought",
                     100 * fabs(res->end_effect), 100 * s->cfg->min_change);
        return 0;
    }
    /* the effect sought in the halves: the end's effect at the near end of
     * its interval (an effect overestimated from few runs would call a real
     * change "same"), never below the change sought */
    double lo, hi;
    mtb_bisect_effect(s->revs[g].x, s->revs[g].n, s->revs[b].x, s->revs[b].n, &lo, &hi);
    double near = fabs(lo) < fabs(hi) ? fabs(lo) : fabs(hi);
    if (lo < 0 && hi > 0)
        near = 0;
    if (!(near > s->cfg->min_change))
        near = s->cfg->min_change;
    res->magnitude = near * m0 / pooled_iqr(&s->revs[g], &s->revs[b]);
    return 0;
}

static int add_culprit(struct bs *s, size_t g, size_t b, const struct mtb_pinpoint_cmp *c)
{
    struct mtb_bisect_result *res = s->res;
    if (res->nculprits == BS_MAX_CULPRITS)
        return 0;
    struct mtb_bisect_culprit *k = &res->culprits[res->nculprits++];
    k->good = g;
    k->bad = b;
    k->skipped = b - g - 1;
    k->c = *c;
    k->effect = mtb_bisect_effect(s->revs[g].x, s->revs[g].n, s->revs[b].x, s->revs[b].n, &k->lo, &k->hi);
    return 0;
}

/* an untested revision strictly between g and b, nearest the middle; n if none */
static size_t pick_mid(struct bs *s, size_t g, size_t b)
{
    size_t mid = g + (b - g) / 2, best = s->n;
    for (size_t i = g + 1; i < b; i++) {
        if (s->revs[i].built)
            continue;
        size_t d = i > mid ? i - mid : mid - i, bd = best > mid ? best - mid : mid - best;
        if (best == s->n || d < bd)
            best = i;
    }
    return best;
}

/* both a and b topped up to the cap (interleaved) and compared again */
static int topup(struct bs *s, size_t a, size_t b, const char *why, struct mtb_pinpoint_cmp *c)
{
    int cap = s->cfg->max_reps;
    struct mtb_bisect_rev *ra = &s->revs[a], *rb = &s->revs[b];
    struct want w[2];
    size_t nw = 0;
    if ((int)ra->n < cap)
        w[nw++] = (struct want){ a, cap - (int)ra->n };
    if ((int)rb->n < cap)
        w[nw++] = (struct want){ b, cap - (int)rb->n };
    int rc = nw ? measure(s, w, nw) : 0;
    if (rc || (rc = mtb_pinpoint_compare(ra->x, ra->n, rb->x, rb->n, s->res->magnitude, c)))
        return rc;
    if (s->ops->step) {
        struct mtb_bisect_step st = { a, b, *c, why };
        s->ops->step(s->ops->ctx, &st);
    }
    return 0;
}

/* the interval (g, b) differs: find its change(s); recursion depth is log n */
static int hunt(struct bs *s, size_t g, size_t b, struct mtb_pinpoint_cmp gb)
{
    for (;;) {
        size_t m = pick_mid(s, g, b);
        if (m == s->n)
            return add_culprit(s, g, b, &gb);
        int rc = build(s, m);
        if (rc == BS_BUILD_SKIP)
            continue;
        if (rc)
            return rc;
        struct want w[3] = { { m, s->cfg->reps }, { g, s->cfg->refresh }, { b, s->cfg->refresh } };
        if ((rc = measure(s, w, s->cfg->refresh > 0 ? 3 : 1)))
            return rc;
        struct mtb_pinpoint_cmp l, r;
        if ((rc = decide(s, g, m, s->res->magnitude, "left", &l)) || (rc = decide(s, m, b, s->res->magnitude, "right", &r)))
            return rc;
        int dl = l.v == PP_DIFFERENT, dr = r.v == PP_DIFFERENT;
        if (!dl && !dr) {
            /* the change spread over both halves, or hid in the noise:
             * follow the half that looks more different */
            s->res->ambiguous++;
            dl = l.p <= r.p;
            dr = !dl;
        }
        if (dl && dr) {
            /* two changes, or one half different by chance: a build is
             * dearer than runs, so both are topped up before both are
             * followed */
            if ((rc = topup(s, g, m, "two?", &l)) || (rc = topup(s, m, b, "two?", &r)))
                return rc;
            dl = l.v == PP_DIFFERENT || l.p <= r.p;
            dr = r.v == PP_DIFFERENT || r.p < l.p;
        }
        if (dl && dr && (rc = hunt(s, g, m, l)))
            return rc;
        if (dl && !dr) {
            b = m;
            gb = l;
        } else {
            g = m;
            gb = r;
        }
    }
}

/* A culprit whose last comparison was not DIFFERENT (the hunt followed the
 * likelier half), or one of several, is confirmed (and one that changed the
 * metric the better way is dropped): both sides topped up to
 * the cap, interleaved, and compared again; what is no longer DIFFERENT is
 * dropped (counted). One culprit decided DIFFERENT stands as found: a false
 * second change comes from a null half that crossed p <= 0.01 by chance,
 * which more runs rarely repeat. */
static int confirm(struct bs *s)
{
    struct mtb_bisect_result *res = s->res;
    size_t keep = 0;
    int all = res->nculprits > 1;
    for (size_t i = 0; i < res->nculprits; i++) {
        struct mtb_bisect_culprit *k = &res->culprits[i];
        if (all || k->c.v != PP_DIFFERENT) {
            int rc = topup(s, k->good, k->bad, "confirm", &k->c);
            if (rc)
                return rc;
            struct mtb_bisect_rev *g = &s->revs[k->good], *b = &s->revs[k->bad];
            if (k->c.v != PP_DIFFERENT) {
                res->dropped++;
                continue;
            }
            k->effect = mtb_bisect_effect(g->x, g->n, b->x, b->n, &k->lo, &k->hi);
        }
        /* the hunt is for the regression the ends showed: a step the other
         * way (an improvement, or a loaded machine's drift between two
         * neighbours) is not its culprit */
        if (s->cfg->better > 0 ? k->effect >= 0 : k->effect <= 0) {
            res->dropped++;
            continue;
        }
        res->culprits[keep++] = *k;
    }
    res->nculprits = keep;
    if (keep == 0) {
        res->outcome = BS_NOT_REPRODUCED;
        snprintf(res->why, sizeof res->why,
                 "the ends differ but no single revision does after %d runs a side: the change is spread or "
                 "hides in the noise",
                 s->cfg->max_reps);
    }
    return 0;
}

int mtb_bisect_search(struct mtb_bisect_rev *revs, size_t n, const struct mtb_bisect_cfg *cfg, const struct mtb_bisect_ops *ops,
              struct mtb_bisect_result *res)
{
    if (!revs || n < 2 || !cfg || !ops || !ops->build || !ops->run || !res || cfg->reps < 1 ||
        cfg->max_reps < cfg->reps)
        return -EINVAL;
    memset(res, 0, sizeof *res);
    struct bs s = { revs, n, cfg, ops, res };
    int rc = ends(&s);
    if (rc || res->outcome != BS_FOUND)
        return rc;
    if ((rc = hunt(&s, 0, n - 1, res->ends)))
        return rc;
    return confirm(&s);
}
