/* runlen.c - REPS=auto: the run length that gives the fastest answer.
 *
 * The interval's width after a given time goes as sqrt(v(L) x c(L)): v(L)
 * the variance of a pair's log ratio when its runs last L seconds, c(L) =
 * 2 (L + W + S) the wall time of a pair (W the warm-up, S the start-up). Long
 * runs pay only while they lower v(L) faster than they cost: when the noise
 * is within the run and short-lived; not when it comes from one run to the
 * next or lasts longer than a run (the other tenants' jobs), which is what
 * this machine showed. v(L) is measured, not modelled: the pilot pairs' runs
 * (at the configured length T0) are cut into windows of L seconds (from
 * their per-second series), window k of the baseline run paired with window
 * k of the tagged run, for L = 5, 10, 15, 20, 30, ... up to T0; the length of
 * least v(L) c(L) is chosen. See docs/STATISTICS.md. */
#include "plan/runlen.h"
#include "core/load_rows.h"
#include "core/record.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

#define MAX_SECONDS 3600

/* a run's per-second ops, oldest first; @return the seconds */
static size_t series(json_t *rec, double *ops, size_t max)
{
    struct mtb_load_view lv;
    mtb_load_view_of_record(rec, &lv);
    size_t n = 0;
    for (size_t i = 0; i < lv.nseconds; i++) {
        struct mtb_load_sec s;
        mtb_load_second(&lv, i, &s);
        if (n < max && s.t <= (double)(n + 1) + 1e-6)
            ops[n++] = s.ops;
    }
    return n;
}

/* the pilot's pairs: the baseline (plain/off) and the first other run of each repetition */
static size_t pilot_pairs(json_t *records, json_t **base, json_t **tagged, size_t max)
{
    size_t n = 0, i;
    json_t *rec;
    for (json_int_t rep = 1; n < max; rep++) {
        json_t *b = NULL, *t = NULL;
        int seen = 0;
        json_array_foreach(records, i, rec) {
            struct mtb_rec_config c;
            mtb_rec_config_view(rec, &c);
            if (c.rep != rep)
                continue;
            seen = 1;
            if (mtb_record_status(rec) != MTB_RUN_OK)
                continue;
            if (mtb_rec_config_is_baseline(&c))
                b = b ? b : rec;
            else
                t = t ? t : rec;
        }
        if (!seen)
            break;
        if (b && t) {
            base[n] = b;
            tagged[n] = t;
            n++;
        }
    }
    return n;
}

int mtb_runlen_choose(json_t *records, double t0, double warmup, double startup, double lo,
                      struct mtb_runlen *out)
{
    memset(out, 0, sizeof *out);
    out->pilot_s = out->chosen_s = t0;
    out->overhead_s = warmup + startup;
    json_t *base[MTB_RUNLEN_MAXPAIRS], *tag[MTB_RUNLEN_MAXPAIRS];
    size_t np = pilot_pairs(records, base, tag, MTB_RUNLEN_MAXPAIRS);
    out->pilot_pairs = (int)np;
    static double a[MAX_SECONDS], b[MAX_SECONDS];
    double best = INFINITY;
    for (double L = lo; L <= t0 + 1e-9 && out->ncand < MTB_RUNLEN_MAXCAND; L = L < 10 ? 10 : L < 20 ? L + 5 : L + 10) {
        double sum = 0, ss = 0;
        size_t nw = 0, l = (size_t)L;
        for (size_t p = 0; p < np; p++) {
            size_t na = series(base[p], a, MAX_SECONDS), nb = series(tag[p], b, MAX_SECONDS);
            size_t n = na < nb ? na : nb;
            for (size_t k = 0; (k + 1) * l <= n; k++) {
                double sa = 0, sb = 0;
                for (size_t j = k * l; j < (k + 1) * l; j++) {
                    sa += a[j];
                    sb += b[j];
                }
                if (!(sa > 0 && sb > 0))
                    continue;
                double d = log(sa / sb);
                sum += d;
                ss += d * d;
                nw++;
            }
        }
        if (nw < 3)
            continue;
        double m = sum / (double)nw, v = (ss - (double)nw * m * m) / (double)(nw - 1);
        struct mtb_runlen_cand *c = &out->cand[out->ncand++];
        c->len_s = L;
        c->pair_sd = sqrt(v > 0 ? v : 0);
        c->windows = (int)nw;
        c->cost = v * 2 * (L + warmup + startup);
        if (c->cost < best) {
            best = c->cost;
            out->chosen_s = L;
        }
    }
    if (out->ncand < 2) {
        out->chosen_s = t0;
        out->why = "too few pilot pairs with a time series: the run length stays";
        return -1;
    }
    out->why = out->chosen_s >= t0 - 1e-9 ? "the pair noise falls with the run's length: the configured length"
               : out->chosen_s <= lo + 1e-9 ? "the pair noise barely falls with the run's length: the shortest run"
                                            : "the least noise for the time";
    return 0;
}

json_t *mtb_runlen_json(const struct mtb_runlen *r)
{
    json_t *c = json_array();
    for (int i = 0; i < r->ncand; i++)
        json_array_append_new(c, json_pack("{s:f,s:f,s:i,s:f}", "length_s", r->cand[i].len_s, "pair_sd",
                                           r->cand[i].pair_sd, "windows", r->cand[i].windows, "variance_x_time",
                                           r->cand[i].cost));
    return json_pack("{s:f,s:f,s:i,s:f,s:o,s:s}", "pilot_s", r->pilot_s, "chosen_s", r->chosen_s, "pilot_pairs",
                     r->pilot_pairs, "overhead_s", r->overhead_s, "candidates", c, "why", r->why ? r->why : "");
}
