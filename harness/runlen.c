/* runlen.c - REPS=auto: the run length that gives the fastest answer.
 *
 * A run's log throughput is its configuration's level plus a between-run
 * part (restart, placement, other tenants: variance sb2, whatever the run's
 * length) plus the mean of its T per-second parts (variance sw2 / T, the
 * seconds taken as independent). A pair's log ratio then has variance
 * 2 (sb2 + sw2 / T), and a pair costs 2 (T + W + S) seconds of wall time (W
 * the warm-up, S the start-up). The interval's width after a given time goes
 * as sqrt(variance x time per pair), least at T* = sqrt(sw2 (W + S) / sb2):
 * long runs only pay while the within-run part dominates. sw2 comes from the
 * pilot runs' per-second time series (the variance of log ops over their
 * seconds, averaged over the runs), sb2 from the pilot pairs' log ratios
 * (their variance / 2 less sw2 / T0). See docs/STATISTICS.md. */
#include "runlen.h"
#include "jsonx.h"
#include "util.h"

#include <math.h>
#include <string.h>

/* variance of log ops over a run's seconds; NAN with fewer than 3 */
static double within_var(json_t *rec)
{
    json_t *ts = json_object_get(json_object_get(rec, "load"), "timeseries"), *pt;
    size_t i, n = 0;
    double sum = 0, ss = 0;
    json_array_foreach(ts, i, pt) {
        double v = mtb_jnum(pt, "ops");
        if (!(v > 0))
            continue;
        double l = log(v);
        sum += l;
        ss += l * l;
        n++;
    }
    if (n < 3)
        return NAN;
    double m = sum / (double)n;
    return (ss - (double)n * m * m) / (double)(n - 1);
}

int mtb_runlen_choose(json_t *records, const double *d, size_t nd, double t0, double warmup, double startup,
                      double lo, double hi, struct mtb_runlen *out)
{
    memset(out, 0, sizeof *out);
    out->pilot_s = out->chosen_s = t0;
    out->pilot_pairs = (int)nd;
    out->overhead_s = warmup + startup;
    size_t i, nw = 0;
    json_t *rec;
    double sw2 = 0;
    json_array_foreach(records, i, rec) {
        if (strcmp(mtb_jstr(rec, "status"), "ok"))
            continue;
        double v = within_var(rec);
        if (isfinite(v)) {
            sw2 += v;
            nw++;
        }
    }
    double dm = 0, dv = 0;
    size_t n = 0;
    for (i = 0; i < nd; i++)
        if (isfinite(d[i])) {
            dm += d[i];
            n++;
        }
    if (nw == 0 || n < 2) {
        out->why = "too few pilot runs with a time series: the run length stays";
        return -1;
    }
    dm /= (double)n;
    for (i = 0; i < nd; i++)
        if (isfinite(d[i]))
            dv += (d[i] - dm) * (d[i] - dm);
    dv /= (double)(n - 1);
    sw2 /= (double)nw;
    double sb2 = dv / 2 - sw2 / t0;
    out->within_sd = sqrt(sw2);
    out->pair_sd = sqrt(dv);
    out->between_sd = sb2 > 0 ? sqrt(sb2) : 0;
    /* no between-run part beyond what the seconds explain: long runs pay (T* grows as 1/sb) */
    double t = sb2 > 0 ? sqrt(sw2 * (warmup + startup) / sb2) : hi;
    if (!(t >= lo))
        t = lo;
    if (t > hi)
        t = hi;
    out->chosen_s = round(t);
    out->why = sb2 <= 0 ? "no between-run noise seen beyond the within-run part: the longest run"
               : t <= lo ? "between-run noise dominates: the shortest run"
               : t >= hi ? "within-run noise dominates: the longest run"
                         : "the balance of within- and between-run noise";
    return 0;
}

json_t *mtb_runlen_json(const struct mtb_runlen *r)
{
    return json_pack("{s:f,s:f,s:i,s:f,s:f,s:f,s:f,s:s}", "pilot_s", r->pilot_s, "chosen_s", r->chosen_s,
                     "pilot_pairs", r->pilot_pairs, "within_sd_per_s", r->within_sd, "between_sd", r->between_sd,
                     "pair_sd", r->pair_sd, "overhead_s", r->overhead_s, "why", r->why ? r->why : "");
}
