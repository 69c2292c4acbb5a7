/* seqstop.c - REPS=auto's stopping rule (see seqstop.h for why it is sound). */
#include "analysis/seqstop.h"
#include "common/duration.h"
#include "lib/util.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int mtb_seq_ratio_ci_shape(const struct mtb_seq *s, const double *num, const double *den, size_t n,
                           struct mtb_stats_ci *out, double *achieved, struct mtb_stats_shape *shape);

/* The level of every look for simultaneous coverage MTB_SEQ_CONF under
 * normal pairs: the looks' t statistics are computed on nested pairs, so
 * they are correlated, and the union bound (Bonferroni: 1 - 0.05/L)
 * overshoots. Simulated (fixed seed, so a plan always gets the same level):
 * SEQ_SIM sequences of normal log ratios, each one's smallest two-sided t
 * p-value over the looks; the per-look alpha is their 5% quantile, so that
 * all looks' t-intervals cover together in 95% of the sequences. The level
 * stays between 95% and Bonferroni's (never stricter than the bound). The
 * rule's coverage with the interval chosen by shape, for other shapes, is
 * checked by tests/unit/test_seqstop.c. Memoized: plans repeat. */
#define SEQ_SIM 20000
static double look_level(const long *looks, size_t nlooks, double bonferroni)
{
    static long memo_looks[8][MTB_SEQ_MAXLOOKS];
    static size_t memo_n[8];
    static double memo_conf[8];
    static int memo_next;
    for (int m = 0; m < 8; m++)
        if (memo_n[m] == nlooks && !memcmp(memo_looks[m], looks, nlooks * sizeof *looks))
            return memo_conf[m];
    if (nlooks < 2)
        return bonferroni;
    long nmax = looks[nlooks - 1];
    double *pmin = malloc(SEQ_SIM * sizeof *pmin);
    if (!pmin)
        return bonferroni;
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 0x5e9u + (uint64_t)nlooks * 1000003u + (uint64_t)nmax);
    for (int i = 0; i < SEQ_SIM; i++) {
        double sum = 0, ss = 0, p = 1;
        size_t k = 0;
        for (long n = 1; n <= nmax && k < nlooks; n++) {
            double x = mtb_stats_rng_normal(&r);
            sum += x;
            ss += x * x;
            if (n != looks[k])
                continue;
            k++;
            double m = sum / (double)n, v = (ss - (double)n * m * m) / (double)(n - 1);
            if (!(v > 0))
                continue;
            double pk = mtb_stats_student_t_sf2(fabs(m) / sqrt(v / (double)n), (double)(n - 1));
            if (pk < p)
                p = pk;
        }
        pmin[i] = p;
    }
    mtb_stats_sort(pmin, SEQ_SIM);
    double alpha = pmin[(size_t)((1 - MTB_SEQ_CONF) * SEQ_SIM)], conf = 1 - alpha;
    free(pmin);
    if (!(conf >= MTB_SEQ_CONF) || conf > bonferroni)
        conf = bonferroni;
    int m = memo_next++ % 8;
    memcpy(memo_looks[m], looks, nlooks * sizeof *looks);
    memo_n[m] = nlooks;
    memo_conf[m] = conf;
    return conf;
}

void mtb_seq_init(struct mtb_seq *s, double precision, double max_time, long max_reps, double pair_s)
{
    long cap = max_reps, n = MTB_SEQ_MIN_PAIRS;
    s->precision = precision;
    s->max_time = max_time;
    s->max_reps = max_reps;
    if (pair_s > 0 && max_time / pair_s < (double)cap)
        cap = (long)(max_time / pair_s);
    if (cap < MTB_SEQ_MIN_PAIRS)
        cap = MTB_SEQ_MIN_PAIRS;
    s->nlooks = 0;
    if (MTB_SEQ_FIRST_LOOK < cap)
        s->looks[s->nlooks++] = MTB_SEQ_FIRST_LOOK;
    while (n < cap && s->nlooks < MTB_SEQ_MAXLOOKS - 1) {
        long next = (long)ceil((double)n * 1.25);
        s->looks[s->nlooks++] = n;
        n = next > n + 1 ? next : n + 1;
    }
    s->looks[s->nlooks++] = cap;
    s->sign_only = 0;
    s->bonferroni = 1 - (1 - MTB_SEQ_CONF) / (double)s->nlooks;
    s->look_conf = look_level(s->looks, s->nlooks, s->bonferroni);
}

/* Is n pairs a planned look? */
static int mtb_seq_is_look(const struct mtb_seq *s, long n)
{
    for (size_t i = 0; i < s->nlooks; i++)
        if (s->looks[i] == n)
            return 1;
    return 0;
}

/* The first planned look after n pairs, or 0. */
static long mtb_seq_next_look(const struct mtb_seq *s, long n)
{
    for (size_t i = 0; i < s->nlooks; i++)
        if (s->looks[i] > n)
            return s->looks[i];
    return 0;
}

int mtb_seq_ratio_ci(const struct mtb_seq *s, const double *num, const double *den, size_t n,
                     struct mtb_stats_ci *out, double *achieved)
{
    return mtb_seq_ratio_ci_shape(s, num, den, n, out, achieved, NULL);
}

static int mtb_seq_ratio_ci_shape(const struct mtb_seq *s, const double *num, const double *den, size_t n,
                           struct mtb_stats_ci *out, double *achieved, struct mtb_stats_shape *shape)
{
    double ach = 0;
    int rc;
    if (s->sign_only) {
        double *r = malloc((n ? n : 1) * sizeof *r);
        if (!r)
            return -ENOMEM;
        for (size_t i = 0; i < n; i++)
            r[i] = num[i] / den[i];
        rc = mtb_stats_median_ci(r, n, s->look_conf, out, &ach);
        free(r);
        if (shape) {
            memset(shape, 0, sizeof *shape);
            shape->n = n;
            shape->method = STATS_PAIR_SIGN;
        }
    } else
        rc = mtb_stats_pair_ci(num, den, n, s->look_conf, out, &ach, shape);
    if (rc != 0)
        return rc;
    if (achieved)
        *achieved = ach;
    return 0;
}

double mtb_seq_halfwidth(const struct mtb_seq *s, const struct mtb_stats_ci *ci, double achieved)
{
    /* an interval short of the look's level cannot end the run */
    if (achieved < s->look_conf - 1e-12)
        return INFINITY;
    return mtb_stats_rel_halfwidth(ci);
}

/* The same with the next pairs' time given (seconds a pair; mtb_seq_decide
 * takes the mean so far, mtb_seq_run the last three pairs' mean). */
static enum mtb_seq_verdict mtb_seq_decide_at(const struct mtb_seq *s, long n, double worst_hw, double elapsed, double per_pair)
{
    long next;
    if (!mtb_seq_is_look(s, n))
        return MTB_SEQ_GO_ON;
    if (!isnan(worst_hw) && worst_hw <= s->precision)
        return MTB_SEQ_PRECISION;
    if (!(next = mtb_seq_next_look(s, n)))
        return MTB_SEQ_MAX_REPS;
    /* stop here when the next look would end after MAX_TIME */
    if (n > 0 && elapsed + per_pair * (double)(next - n) > s->max_time)
        return MTB_SEQ_MAX_TIME;
    return MTB_SEQ_GO_ON;
}

const char *mtb_seq_verdict_name(enum mtb_seq_verdict v)
{
    switch (v) {
    case MTB_SEQ_PRECISION: return "precision";
    case MTB_SEQ_MAX_REPS: return "max_reps";
    case MTB_SEQ_MAX_TIME: return "max_time";
    case MTB_SEQ_USER: return "user";
    default: return "running";
    }
}

void mtb_reps_text(char *buf, size_t n, long reps)
{
    if (reps == MTB_REPS_AUTO)
        snprintf(buf, n, "auto");
    else
        snprintf(buf, n, "%ld", reps);
}

int mtb_seq_run(const struct mtb_seq *s, size_t nover, mtb_seq_pair_fn pair, void *ctx, FILE *progress,
                struct mtb_seq_outcome *out)
{
    /* the pair function may re-plan the looks (REPS=auto's run length, plan.c): room for the most pairs
     * any plan can have, and the last look read again after every pair */
    long cap = s->looks[s->nlooks - 1] > s->max_reps ? s->looks[s->nlooks - 1] : s->max_reps;
    double *num = calloc((size_t)cap * (nover ? nover : 1), sizeof *num);
    double *den = calloc((size_t)cap * (nover ? nover : 1), sizeof *den);
    double *pn = calloc(nover + 1, sizeof *pn), *pd = calloc(nover + 1, sizeof *pd);
    double *cn = calloc((size_t)cap + 1, sizeof *cn), *cd = calloc((size_t)cap + 1, sizeof *cd);
    size_t *have = calloc(nover + 1, sizeof *have);
    double t0 = mtb_mono();

    out->pairs = 0;
    out->why = MTB_SEQ_GO_ON;
    out->worst_hw = INFINITY;
    out->worst = 0;
    out->elapsed = 0;
    if (!num || !den || !pn || !pd || !cn || !cd || !have) {
        free(num); free(den); free(pn); free(pd); free(cn); free(cd); free(have);
        return -ENOMEM;
    }
    double last[3] = { 0, 0, 0 }, prev_t = 0;
    for (long n = 1; n <= s->looks[s->nlooks - 1] && n <= cap; n++) {
        for (size_t k = 0; k < nover; k++)
            pn[k] = pd[k] = NAN;
        if (pair(ctx, n, pn, pd) != 0) {
            out->why = MTB_SEQ_USER;           /* the pairs before this one are the answer */
            break;
        }
        out->pairs = n;
        out->elapsed = mtb_mono() - t0;
        /* the next pairs' time from the last three (the pilot pairs of another length drop out) */
        last[(n - 1) % 3] = out->elapsed - prev_t;
        prev_t = out->elapsed;
        double per = (last[0] + last[1] + last[2]) / (double)(n < 3 ? n : 3);
        for (size_t k = 0; k < nover; k++)
            if (isfinite(pn[k]) && isfinite(pd[k]) && pn[k] > 0 && pd[k] > 0) {
                num[k * (size_t)cap + have[k]] = pn[k];
                den[k * (size_t)cap + have[k]] = pd[k];
                have[k]++;
            }
        /* the widest overhead's interval at the looks' level */
        double worst = nover ? 0 : INFINITY;
        size_t wk = 0;
        enum mtb_stats_pair_method wm = STATS_PAIR_SIGN;
        for (size_t k = 0; k < nover; k++) {
            struct mtb_stats_ci ci;
            struct mtb_stats_shape sh = { .method = STATS_PAIR_SIGN };
            double ach = 0, hw = INFINITY;
            if (have[k] >= 2 &&
                mtb_seq_ratio_ci_shape(s, num + k * (size_t)cap, den + k * (size_t)cap, have[k], &ci, &ach, &sh) == 0)
                hw = mtb_seq_halfwidth(s, &ci, ach);
            if (!(hw <= worst)) {
                worst = hw;
                wk = k;
                wm = sh.method;
            }
        }
        int look = mtb_seq_is_look(s, n);
        enum mtb_seq_verdict v = mtb_seq_decide_at(s, n, worst, out->elapsed, per);
        if (look) {
            out->worst_hw = worst;
            out->worst = wk;
        }
        if (progress) {
            char el[32], left[32], lim[32], hw[64], nl[48] = "";
            long next = mtb_seq_next_look(s, n);
            double last_look = (double)s->looks[s->nlooks - 1];
            /* pairs still needed if the interval narrows as 1/sqrt(n) */
            double need = isfinite(worst) && worst > 0 ? (double)n * (worst / s->precision) * (worst / s->precision)
                                                       : last_look;
            if (need > last_look)
                need = last_look;
            double rest = per * (need - (double)n);
            if (rest < 0 || v != MTB_SEQ_GO_ON)
                rest = 0;
            if (out->elapsed + rest > s->max_time)
                rest = s->max_time - out->elapsed > 0 ? s->max_time - out->elapsed : 0;
            mtb_duration_format(el, sizeof el, out->elapsed);
            mtb_duration_format(left, sizeof left, rest);
            mtb_duration_format(lim, sizeof lim, s->max_time);
            if (isfinite(worst))
                snprintf(hw, sizeof hw, "+-%.1f%% (%s)", 100 * worst,
                         wm == STATS_PAIR_T ? "t" : wm == STATS_PAIR_SIGNEDRANK ? "signed-rank" : "order statistics");
            else
                snprintf(hw, sizeof hw, "no %.2f%% interval yet", 100 * s->look_conf);
            if (v == MTB_SEQ_GO_ON && next)
                snprintf(nl, sizeof nl, ", next look at %ld", next);
            fprintf(progress, "mtebench: REPS=auto: %ld pair%s, overhead %s (goal +-%.1f%%)%s%s, %s of %s, about %s left\n",
                    n, n == 1 ? "" : "s", hw, 100 * s->precision, look ? ", a look" : "", nl, el, lim, left);
        }
        if (v != MTB_SEQ_GO_ON) {
            out->why = v;
            break;
        }
    }
    free(num); free(den); free(pn); free(pd); free(cn); free(cd); free(have);
    return 0;
}
