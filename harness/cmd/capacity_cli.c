/* capacity_cli.c - capacity: the load each configuration carries while its
 * tail latency stays inside an SLO, against the baseline's (docs/CAPACITY.md).
 *
 * The plan is the baseline (BASELINE_VARIANT, default plain, mode off) and
 * each measured variant in MODE. A closed-loop pilot (interleaved pairs)
 * gives each configuration's saturation throughput and the closed-loop
 * overhead; then each configuration's rates are probed in open loop
 * (ARRIVAL, Poisson unless given), the configurations interleaved at every
 * step, as analysis/capacity.c's search chooses, until every bound's
 * bracket is narrow and its ends settled; LOADS adds a sweep at fractions
 * of the baseline's capacity. The result (capacity.json) is rendered by
 * report/capacity_out.c; the runs are ordinary run records. */
#include "cmd/capacity_cli.h"
#include "cmd/commands.h"
#include "analysis/capacity.h"
#include "analysis/stats.h"
#include "cmd/cli.h"
#include "common/duration.h"
#include "core/load_rows.h"
#include "core/loadlog.h"
#include "core/record.h"
#include "drivers/driver.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "plan/plan.h"
#include "report/capacity_out.h"
#include "run/floor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCFG 8
#define MAXPT 24
#define PILOT_PAIRS 2

/* one probed rate of one configuration */
struct point {
    double rate;
    int n, client_bound;
    double achieved[MTB_CAP_MAXREP];
    double pct[2][5][MTB_CAP_MAXREP]; /* corrected, uncorrected; p50 p90 p99 p99.9 p99.99 (us; NAN: absent) */
    json_t *files;                    /* the runs' records */
    int sweep;                        /* a LOADS point */
};

/* one configuration's search */
struct cfg {
    size_t cell;
    json_t *pilot_files; /* the pilot's records */
    double pilot[PILOT_PAIRS], sat;
    int pilot_client_bound, done;
    struct point pt[MAXPT];
    size_t npt;
    struct mtb_cap_point curve[MTB_SLO_MAX][MAXPT]; /* per bound, parallel to pt */
};

struct search {
    struct mtb_opts *o;
    const struct mtb_mode *modes[8]; /* the measured modes */
    const char *entry;               /* a plan's entry, or NULL (the command) */
    size_t nmodes;
    struct mtb_slo slo;
    struct mtb_plan plan;
    struct mtb_plan_session *ses;
    json_t *files;
    struct cfg cfg[MAXCFG];
    size_t ncfg;
    struct mtb_cap_search set;
    double conf; /* the intervals' level (CONFIDENCE) */
    long runs, failed;
    double t0, per_run;
    char started[32]; /* UTC, ISO 8601 */
    const char *stopped;
};

/* no more runs: Ctrl-C, or the plan session stopped on an error (mtb_plan_end says why) */
static int halted(const struct search *s) { return mtb_proc_interrupted || mtb_plan_stopped(s->ses); }

static const char *const pct_keys[5] = { "p50", "p90", "p99", "p99.9", "p99.99" };
/* each as the load's result holds it (core/load_rows.h) */
static const enum mtb_load_stat pct_stats[5] = { MTB_LOAD_P50, MTB_LOAD_P90, MTB_LOAD_P99, MTB_LOAD_P999,
                                                 MTB_LOAD_P9999 };

static int pct_index(const char *k)
{
    for (int i = 0; i < 5; i++)
        if (!strcmp(pct_keys[i], k))
            return i;
    return 2;
}

/* ---- the plan ---------------------------------------------------------------------------------- */

static void make_plan(struct search *s, const char *name)
{
    struct mtb_opts *o = s->o;
    mtb_plan_init(&s->plan, name, o);
    s->plan.tag_rate = 1;
    const char *base = o->baseline_variant ? o->baseline_variant : "plain";
    const char *vars[MAXCFG];
    char why[MTB_ERRLEN];
    size_t nv = mtb_plan_variants(o->recipe, base, vars, 1, why, sizeof why);
    if (nv != 1)
        mtb_die(2, "BASELINE_VARIANT: %s", why);
    const struct mtb_mode *off = mtb_mode_find("off");
    mtb_plan_add_cell(&s->plan, name, o->recipe, &o->wl, vars[0], off, NULL);
    nv = mtb_plan_variants(o->recipe, o->variant ? o->variant : "tagged", vars, MAXCFG - 1, why, sizeof why);
    if (!nv)
        mtb_die(2, "%s", why);
    for (size_t m = 0; m < s->nmodes; m++)
        for (size_t i = 0; i < nv; i++) {
            if (!strcmp(vars[i], base) && s->modes[m] == off)
                continue; /* the baseline once: VARIANT=plain MODE=off is the baseline alone */
            if (s->plan.ncells == MAXCFG)
                mtb_die(2, "capacity: at most %d configurations, the baseline's included", MAXCFG);
            mtb_plan_add_cell(&s->plan, name, o->recipe, &o->wl, vars[i], s->modes[m], NULL);
        }
    s->ncfg = s->plan.ncells;
    for (size_t i = 0; i < s->ncfg; i++) {
        s->cfg[i].cell = i;
        s->cfg[i].pilot_files = json_array();
    }
}

/* The runs a search typically takes (test_capacity.c's simulated searches: 11 a configuration after the
 * pilot) and at most (every rate probed as often as it may be). */
static long typical_runs(const struct search *s) { return (long)s->ncfg * (PILOT_PAIRS + MTB_CAP_TYPICAL_PROBES); }
static long most_runs(const struct search *s)
{
    return (long)s->ncfg * (PILOT_PAIRS + (long)s->set.max_probes * s->set.max_reps);
}

static void dry_run(struct search *s)
{
    const struct mtb_workload *w = &s->plan.cells[0].wl;
    printf("capacity: %s %s, SLO %s, %s arrivals, on %s%s\n", s->o->recipe->name, w->name, s->slo.text, w->arrival,
           s->plan.platform->name, mtb_platform_emulated(s->plan.platform) ? " (emulated: not hardware timing)" : "");
    for (size_t i = 0; i < s->plan.ncells; i++)
        printf("  %s %s/%s\n", i ? "measured" : "baseline", s->plan.cells[i].variant, s->plan.cells[i].mode->name);
    double run_s = w->duration + w->warmup + (mtb_platform_emulated(s->plan.platform) ? 8 : 3);
    long typical = typical_runs(s), most = most_runs(s);
    char a[32], b[32];
    mtb_duration_format(a, sizeof a, typical * run_s);
    mtb_duration_format(b, sizeof b, most * run_s < s->o->max_time ? most * run_s : s->o->max_time);
    printf("runs: %d closed-loop pilot pairs, then about %d open-loop runs a configuration (%g s + %g s warm-up "
           "each)\ntime: about %s (%ld runs), at most %s (MAX_TIME %g s)\nintervals: %g%%\n", PILOT_PAIRS,
           MTB_CAP_TYPICAL_PROBES, w->duration, w->warmup, a, typical, b, s->o->max_time, 100 * s->conf);
}

/* ---- the runs ---------------------------------------------------------------------------------- */

/* Run cell c at rate (0: closed loop) as repetition rep. @return the record (the session's) or NULL. */
static json_t *one_run(struct search *s, struct cfg *c, double rate, long rep, const char *what)
{
    if (halted(s))
        return NULL;
    struct mtb_workload *w = &s->plan.cells[c->cell].wl;
    w->rate = rate;
    /* each run its own draw of arrivals (mtload's seed; the configurations at a rate share each repeat's:
     * common random numbers), where the driver takes a seed */
    const struct mtb_driver *drv = mtb_driver_of(w, NULL);
    if (drv && (drv->honours & (1u << MTB_WL_seed)))
        w->seed = (rate > 0 ? (long)llround(rate) * 100 : 0) + rep;
    /* the time left: at the typical number of runs (test_capacity.c's simulation), past it at the most */
    long typical = typical_runs(s), most = most_runs(s);
    double left = s->per_run * (double)(typical > s->runs ? typical - s->runs : most > s->runs ? most - s->runs : 1);
    json_t *rec = mtb_plan_step(s->ses, c->cell, rep, what, left);
    if (!rec && mtb_plan_stopped(s->ses)) /* no run was made */
        return NULL;
    s->runs++;
    s->per_run = (mtb_mono() - s->t0) / (double)s->runs;
    if (!rec || mtb_record_status(rec) != MTB_RUN_OK) {
        s->failed += !mtb_proc_interrupted; /* a run Ctrl-C cut short is no failure of the service */
        return NULL;
    }
    return rec;
}

static void pilot(struct search *s)
{
    for (int pair = 0; pair < PILOT_PAIRS && !halted(s); pair++)
        for (size_t k = 0; k < s->ncfg; k++) {
            struct cfg *c = &s->cfg[pair % 2 ? s->ncfg - 1 - k : k];
            char what[64];
            snprintf(what, sizeof what, "closed-loop pilot %d/%d", pair + 1, PILOT_PAIRS);
            json_t *rec = one_run(s, c, 0, pair + 1, what);
            if (rec)
                json_array_append(c->pilot_files, json_array_get(s->files, json_array_size(s->files) - 1));
            struct mtb_rec_figures fig;
            mtb_rec_figures_read(rec, &fig);
            c->pilot[pair] = rec ? (isnan(fig.metric[MTB_M_ops_per_sec]) ? 0 : fig.metric[MTB_M_ops_per_sec]) : NAN;
            c->pilot_client_bound |= rec && fig.client_bound;
        }
    for (size_t k = 0; k < s->ncfg; k++) {
        struct cfg *c = &s->cfg[k];
        double ok[PILOT_PAIRS];
        int n = 0;
        for (int i = 0; i < PILOT_PAIRS; i++)
            if (isfinite(c->pilot[i]) && c->pilot[i] > 0)
                ok[n++] = c->pilot[i];
        c->sat = n ? mtb_stats_median(ok, (size_t)n) : 0;
        if (!halted(s) && !(c->sat > 0) && !s->stopped) {
            mtb_warn("capacity: no closed-loop pilot run of %s/%s ended ok (its records say why): no search",
                     s->plan.cells[c->cell].variant, s->plan.cells[c->cell].mode->name);
            s->stopped = "pilot_failed";
        }
    }
}

/* The point of rate in c (new if absent). */
static struct point *point_at(struct cfg *c, double rate)
{
    for (size_t i = 0; i < c->npt; i++)
        if (c->pt[i].rate == rate)
            return &c->pt[i];
    if (c->npt == MAXPT)
        return NULL;
    struct point *p = &c->pt[c->npt];
    memset(p, 0, sizeof *p);
    p->rate = rate;
    p->files = json_array();
    for (int b = 0; b < MTB_SLO_MAX; b++)
        c->curve[b][c->npt] = (struct mtb_cap_point){ .rate = rate };
    c->npt++;
    return p;
}

/* A run's figures into its point and the curves: a run that fell behind the
 * rate (below) or over the error bound misses every bound. */
static void add_run(struct search *s, struct cfg *c, struct point *p, json_t *rec)
{
    size_t i = (size_t)(p - c->pt);
    int k = p->n;
    if (k >= MTB_CAP_MAXREP)
        return;
    struct mtb_load_view l;
    mtb_load_view_of_record(rec, &l);
    struct mtb_rec_figures fig;
    mtb_rec_figures_read(rec, &fig);
    double ach = fig.metric[MTB_M_ops_per_sec], err = fig.error_rate;
    int over = s->slo.err_max >= 0 && err > s->slo.err_max;
    /* behind: answered fewer than 99% of the requests the schedule offered in the window (mtload's sent +
     * unsent: no sampling noise); a driver without that account (pgbench): below 99% of the rate by more
     * than three of Poisson's standard deviations */
    double dur = s->plan.cells[c->cell].wl.duration, sched = l.account[MTB_LOAD_A_SENT] + l.account[MTB_LOAD_A_UNSENT];
    int behind = l.has_accounting ? l.account[MTB_LOAD_A_ANSWERED] < 0.99 * sched
                     : ach < p->rate * (0.99 - 3 / sqrt(p->rate * (dur > 0 ? dur : 1)));
    p->achieved[k] = ach;
    p->client_bound |= behind && fig.client_bound;
    for (int u = 0; u < 2; u++)
        for (int q = 0; q < 5; q++)
            p->pct[u][q][k] = l.lat[u ? MTB_LAT_UNCORRECTED : MTB_LAT_CORRECTED].v[pct_stats[q]];
    for (int b = 0; b < s->slo.n; b++) {
        double v = p->pct[0][pct_index(s->slo.b[b].pct)][k];
        c->curve[b][i].v[k] = behind || over || !isfinite(v) ? INFINITY : v;
        c->curve[b][i].n = k + 1;
    }
    p->n = k + 1;
    size_t nf = json_array_size(s->files);
    json_array_append(p->files, json_array_get(s->files, nf - 1));
}

static void probe(struct search *s, struct cfg *c, double rate, int sweep)
{
    struct point *p = point_at(c, rate);
    if (!p) {
        c->done = 1;
        return;
    }
    p->sweep |= sweep;
    char what[96];
    snprintf(what, sizeof what, "%s %.0f/s run %d", sweep ? "sweep at" : "open loop at", rate, p->n + 1);
    json_t *rec = one_run(s, c, rate, p->n + 1, what);
    if (rec)
        add_run(s, c, p, rec);
}

/* The next rate of each configuration, then their runs interleaved. @return 0 when every search is done. */
static int search_step(struct search *s, long step)
{
    double rate[MAXCFG] = { 0 };
    int add[MAXCFG] = { 0 }, most = 0;
    for (size_t k = 0; k < s->ncfg; k++) {
        struct cfg *c = &s->cfg[k];
        if (c->done)
            continue;
        const struct mtb_cap_point *cv[MTB_SLO_MAX];
        size_t np[MTB_SLO_MAX];
        double bounds[MTB_SLO_MAX];
        for (int b = 0; b < s->slo.n; b++) {
            cv[b] = c->curve[b];
            np[b] = c->npt;
            bounds[b] = s->slo.b[b].bound_us;
        }
        struct mtb_cap_search set = s->set;
        set.sat = c->sat;
        double ach[MAXPT];
        for (size_t i = 0; i < c->npt; i++)
            ach[i] = c->pt[i].n ? mtb_stats_median(c->pt[i].achieved, (size_t)c->pt[i].n) : NAN;
        set.carried = mtb_cap_carried(ach, c->npt); /* a disturbed pilot reads low: what the runs carried */
        rate[k] = mtb_cap_next(&set, cv, np, bounds, (size_t)s->slo.n, &add[k]);
        c->done = !(rate[k] > 0);
        most = add[k] > most && !c->done ? add[k] : most;
    }
    for (int r = 0; r < most && !halted(s); r++)
        for (size_t j = 0; j < s->ncfg; j++) {
            size_t k = step % 2 ? s->ncfg - 1 - j : j;
            if (!s->cfg[k].done && r < add[k])
                probe(s, &s->cfg[k], rate[k], 0);
        }
    return most > 0;
}

static void run_search(struct search *s)
{
    s->t0 = mtb_mono();
    mtb_utc_iso(s->started, sizeof s->started);
    pilot(s);
    for (long step = 0; !halted(s) && !s->stopped; step++) {
        if (mtb_mono() - s->t0 > s->o->max_time) {
            s->stopped = "max_time";
            break;
        }
        if (s->failed > 3) {
            s->stopped = "failures";
            break;
        }
        if (!search_step(s, step))
            break;
    }
    if (mtb_proc_interrupted)
        s->stopped = "interrupted";
    else if (mtb_plan_stopped(s->ses))
        s->stopped = "error";
}

/* LOADS: every configuration at each fraction of the baseline's capacity at the first bound */
static void sweep(struct search *s, double base_cap)
{
    if (!s->o->loads || !(base_cap > 0) || s->stopped)
        return;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s->o->loads);
    char *save = NULL;
    long step = 0;
    for (char *it = strtok_r(buf, ",", &save); it && !halted(s); it = strtok_r(NULL, ",", &save), step++) {
        double f = strtod(it, NULL) / 100;
        for (size_t j = 0; j < s->ncfg; j++)
            probe(s, &s->cfg[step % 2 ? s->ncfg - 1 - j : j], f * base_cap, 1);
    }
}

/* ---- the result -------------------------------------------------------------------------------- */

static json_t *pct_json(const struct point *p, int u)
{
    json_t *o = json_object();
    for (int q = 0; q < 5; q++) {
        double v[MTB_CAP_MAXREP];
        int n = 0;
        for (int k = 0; k < p->n; k++)
            if (isfinite(p->pct[u][q][k]))
                v[n++] = p->pct[u][q][k];
        if (n)
            json_object_set_new(o, pct_keys[q], json_real(mtb_stats_median(v, (size_t)n)));
    }
    return o;
}

/* The point's runs' interval logs merged into DIR/points/CFG-NN-rRATE.hlog
 * (NN: its place by rate, 1..: two points of a fine search can round to one
 * rate; the suite on 18103ba lost one of 15 so). @return its path or NULL. */
static char *point_hlog(const char *dir, const char *cfgname, const struct point *p, size_t nth)
{
    char *paths[MTB_CAP_MAXREP];
    size_t n = 0, i;
    json_t *f;
    json_array_foreach(p->files, i, f) {
        char *rd = mtb_strdup(json_string_value(f));
        char *slash = strrchr(rd, '/');
        if (slash)
            *slash = 0;
        char *h = mtb_asprintf("%s/mtload.hlog", rd);
        if (mtb_file_exists(h) && n < MTB_CAP_MAXREP)
            paths[n++] = h;
        else
            free(h);
        free(rd);
    }
    char *pd = mtb_asprintf("%s/points", dir), *out = mtb_asprintf("%s/%s-%02zu-r%.0f.hlog", pd, cfgname, nth, p->rate), err[256];
    mtb_mkdir_p(pd);
    int rc = n ? mtb_hlog_merge(paths, n, out, err, sizeof err) : -1;
    for (i = 0; i < n; i++)
        free(paths[i]);
    free(pd);
    if (rc != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static json_t *points_json(const struct search *s, const struct cfg *c, const char *dir, const char *cfgname)
{
    json_t *a = json_array();
    size_t order[MAXPT]; /* by rate, as curves are read and drawn */
    for (size_t i = 0; i < c->npt; i++) {
        size_t j = i;
        for (; j > 0 && c->pt[order[j - 1]].rate > c->pt[i].rate; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (size_t oi = 0; oi < c->npt; oi++) {
        size_t i = order[oi];
        const struct point *p = &c->pt[i];
        if (!p->n)
            continue;
        char *h = point_hlog(dir, cfgname, p, oi + 1);
        json_t *pj = json_pack("{s:f,s:i,s:f,s:b,s:b,s:o,s:o,s:O}", "rate", p->rate, "runs", p->n, "achieved",
                               mtb_stats_median(p->achieved, (size_t)p->n), "client_bound", p->client_bound, "sweep",
                               p->sweep, "corrected", pct_json(p, 0), "uncorrected", pct_json(p, 1), "records",
                               p->files);
        if (h)
            json_object_set_new(pj, "hlog", json_string(h));
        free(h);
        json_t *meets = json_object();
        for (int b = 0; b < s->slo.n; b++)
            json_object_set_new(meets, s->slo.b[b].pct,
                                json_boolean(mtb_cap_median(&c->curve[b][i]) <= s->slo.b[b].bound_us));
        json_object_set_new(pj, "meets", meets);
        json_array_append_new(a, pj);
    }
    return a;
}

static const char *status_name(enum mtb_cap_status st)
{
    return st == MTB_CAP_FOUND ? "found" : st == MTB_CAP_BELOW ? "below" : st == MTB_CAP_ABOVE ? "above" : "none";
}

static json_t *estimates_json(const struct search *s, const struct cfg *c, struct mtb_cap_est *est)
{
    json_t *a = json_array();
    for (int b = 0; b < s->slo.n; b++) {
        struct mtb_cap_est *e = &est[b];
        mtb_cap_estimate(c->curve[b], c->npt, s->slo.b[b].bound_us, s->conf, c->sat, e);
        json_t *o = json_pack("{s:s,s:s,s:f,s:s}", "bound", s->slo.b[b].text, "percentile", s->slo.b[b].pct,
                              "bound_us", s->slo.b[b].bound_us, "status", status_name(e->status));
        if (e->status == MTB_CAP_FOUND)
            json_object_update_new(o, json_pack("{s:f,s:f,s:f,s:s,s:i}", "capacity", e->capacity, "lo", e->lo, "hi",
                                                e->hi, "interval", e->fit ? "fieller" : "bracket", "fit_runs",
                                                e->nvalues));
        if (e->rate_pass > 0)
            json_object_set_new(o, "rate_meets", json_real(e->rate_pass));
        if (e->rate_fail > 0)
            json_object_set_new(o, "rate_misses", json_real(e->rate_fail));
        /* the fail end client-bound: the client, not the service, missed the rate */
        for (size_t i = 0; i < c->npt; i++)
            if (c->pt[i].rate == e->rate_fail && c->pt[i].client_bound)
                json_object_set_new(o, "client_bound", json_true());
        if (e->status == MTB_CAP_BELOW) { /* what the lowest rate gave */
            size_t lo = 0;
            for (size_t i = 1; i < c->npt; i++)
                lo = c->pt[i].rate < c->pt[lo].rate ? i : lo;
            json_object_set_new(o, "lowest_rate", json_real(c->pt[lo].rate));
            json_object_set_new(o, "at_lowest_us", json_real(mtb_cap_median(&c->curve[b][lo])));
        }
        json_array_append_new(a, o);
    }
    return a;
}

/* baseline capacity / measured capacity, the interval by MOVER on the log
 * scale from the two intervals (tests/unit/test_capacity.c: its coverage) */
static json_t *ratio_json(const struct mtb_cap_est *b, const struct mtb_cap_est *m)
{
    if (b->status != MTB_CAP_FOUND || m->status != MTB_CAP_FOUND || !(b->lo > 0) || !(m->lo > 0))
        return json_null();
    double lr = log(b->capacity / m->capacity);
    double lo = lr - hypot(log(b->capacity / b->lo), log(m->hi / m->capacity));
    double hi = lr + hypot(log(b->hi / b->capacity), log(m->capacity / m->lo));
    return json_pack("{s:f,s:f,s:f}", "est", exp(lr), "lo", exp(lo), "hi", exp(hi));
}

static json_t *closed_loop_json(const struct cfg *b, const struct cfg *m, double conf)
{
    double num[PILOT_PAIRS], den[PILOT_PAIRS];
    size_t n = 0;
    for (int i = 0; i < PILOT_PAIRS; i++)
        if (b->pilot[i] > 0 && m->pilot[i] > 0) {
            num[n] = b->pilot[i];
            den[n++] = m->pilot[i];
        }
    struct mtb_stats_ci ci;
    if (!n || mtb_stats_pair_ci(num, den, n, conf, &ci, NULL, NULL) != 0)
        return json_null();
    return json_pack("{s:f,s:f,s:f,s:i}", "est", ci.est, "lo", ci.lo, "hi", ci.hi, "pairs", (int)n);
}

static json_t *result_json(struct search *s, const char *dir, double elapsed)
{
    const struct mtb_plan_cell *c0 = &s->plan.cells[0];
    json_t *bounds = json_array();
    for (int b = 0; b < s->slo.n; b++)
        json_array_append_new(bounds, json_pack("{s:s,s:f,s:s}", "percentile", s->slo.b[b].pct, "bound_us",
                                                s->slo.b[b].bound_us, "text", s->slo.b[b].text));
    json_t *slo = json_pack("{s:s,s:o}", "text", s->slo.text, "bounds", bounds);
    if (s->slo.err_max >= 0)
        json_object_set_new(slo, "errors_max", json_real(s->slo.err_max));
    json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:f,s:f,s:o}", "schema", "mtebench-capacity/1", "service",
                          c0->recipe->name, "workload", c0->wl.name, "arrival", c0->wl.arrival, "platform",
                          s->plan.platform->name, "emulated", mtb_platform_emulated(s->plan.platform), "kernel",
                          s->plan.kernel, "duration_s", c0->wl.duration, "warmup_s", c0->wl.warmup, "slo", slo);
    if (!mtb_workload_is_default(&c0->wl, MTB_WL_timeout)) /* as the records have it: only away from its default */
        json_object_set_new(r, "timeout_s", json_real(c0->wl.timeout));
    json_object_set_new(r, "confidence", json_real(s->conf));
    json_object_set_new(r, "plan", json_string(s->plan.name));
    json_object_set_new(r, "started", json_string(s->started));
    json_object_set_new(r, "mtebench_version", json_string(MTEBENCH_VERSION));
    if (s->entry)
        json_object_set_new(r, "entry", json_string(s->entry));
    json_object_set_new(r, "definition",
                        json_string("the offered rate at which the CO-corrected percentile, the median of the runs "
                                    "at a rate, crosses the bound; a run whose achieved rate is below 99% of the "
                                    "offered one, or whose error rate is over the bound, misses it"));
    json_object_set_new(r, "search", json_pack("{s:f,s:i,s:i,s:I,s:i,s:I,s:I,s:f,s:s}", "tolerance", s->set.tol,
                                               "reps", s->set.reps, "max_reps", s->set.max_reps, "max_probes",
                                               (json_int_t)s->set.max_probes, "pilot_pairs", PILOT_PAIRS, "runs",
                                               (json_int_t)s->runs, "failed", (json_int_t)s->failed, "elapsed_s",
                                               elapsed, "stopped", s->stopped ? s->stopped : "done"));
    struct mtb_cap_est est[MAXCFG][MTB_SLO_MAX];
    json_t *cfgs = json_array(), *ovs = json_array();
    for (size_t k = 0; k < s->ncfg; k++) {
        struct cfg *c = &s->cfg[k];
        const struct mtb_plan_cell *pc = &s->plan.cells[c->cell];
        char name[160];
        snprintf(name, sizeof name, "%s-%s", pc->variant, pc->mode->name);
        json_t *pil = json_array();
        for (int i = 0; i < PILOT_PAIRS; i++)
            json_array_append_new(pil, isfinite(c->pilot[i]) ? json_real(c->pilot[i]) : json_null());
        json_array_append_new(cfgs, json_pack("{s:s,s:s,s:b,s:f,s:o,s:b,s:o,s:o,s:o}", "variant", pc->variant, "mode",
                                              pc->mode->name, "baseline", k == 0, "closed_loop_ops", c->sat,
                                              "pilot_ops", pil, "pilot_client_bound", c->pilot_client_bound,
                                              "pilot_records", json_deep_copy(c->pilot_files),
                                              "capacity", estimates_json(s, c, est[k]), "points",
                                              points_json(s, c, dir, name)));
        for (int b = 0; k && b < s->slo.n; b++)
            json_array_append_new(ovs, json_pack("{s:s,s:s,s:s,s:o,s:o}", "variant", pc->variant, "mode",
                                                 pc->mode->name, "bound", s->slo.b[b].text, "capacity",
                                                 ratio_json(&est[0][b], &est[k][b]), "closed_loop",
                                                 closed_loop_json(&s->cfg[0], c, s->conf)));
    }
    json_object_set_new(r, "configs", cfgs);
    json_object_set_new(r, "overheads", ovs);
    return r;
}

/* ---- the command ------------------------------------------------------------------------------- */

/* the search's settings and its plan (the options checked: mtb_plan_capacity_check) */
static void prepare(struct search *s, const char *plan_name)
{
    const struct mtb_opts *o = s->o;
    long reps = o->reps_given && o->reps != MTB_REPS_AUTO ? o->reps : 3;
    s->conf = o->confidence;
    s->set = (struct mtb_cap_search){ .tol = 0.2, .reps = (int)reps, .max_reps = (int)reps + 1, .max_probes = 10 };
    make_plan(s, plan_name);
}

static void setup(struct search *s, struct mtb_opts *o, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    mtb_cli_parse(argc, argv, o, "capacity");
    if (!o->mode)
        mtb_die(2, "no MODE given (accepted: %s)", mtb_mode_names());
    mtb_cli_resolve(o);
    char why[MTB_ERRLEN];
    if (mtb_plan_capacity_check(o, &s->slo, why, sizeof why) != 0)
        mtb_die(2, "%s", why);
    s->modes[0] = o->m;
    s->nmodes = 1;
    prepare(s, "capacity");
}

/* The search into dir: the runs, the result written and printed (out).
 * @return the result (caller decrefs); *status: 0, 1 (runs not ok, files
 * not written), 130 (Ctrl-C), or the code of the error that stopped the
 * session (said on stderr). NULL: the search could not begin (a build,
 * the directory refused or in use, --strict), *begin says why; nothing
 * written. */
static json_t *search_into(struct search *s, const char *dir, int force, FILE *out, int *status,
                           struct mtb_err *begin)
{
    const struct mtb_opts *o = s->o;
    fprintf(stderr, "mtebench: capacity of %s at %s, %s arrivals, %zu configurations on %s%s; runs of %g s "
            "(+%g s warm-up), %g%% intervals; results in %s\n", o->recipe->name, s->slo.text,
            s->plan.cells[0].wl.arrival, s->ncfg, s->plan.platform->name,
            mtb_platform_emulated(s->plan.platform) ? " (emulated: not hardware timing)" : "",
            s->plan.cells[0].wl.duration, s->plan.cells[0].wl.warmup, 100 * s->conf, dir);
    s->files = json_array();
    s->plan.resume = o->resume;
    mtb_proc_graceful(1); /* Ctrl-C: the result of the runs done (a second one quits at once) */
    struct mtb_err err = { 0 };
    s->ses = mtb_plan_begin(&s->plan, dir, force, s->files, &err);
    if (!s->ses) {
        mtb_proc_graceful(0);
        json_decref(s->files);
        for (size_t k = 0; k < s->ncfg; k++)
            json_decref(s->cfg[k].pilot_files);
        mtb_plan_free(&s->plan);
        *begin = err;
        *status = err.code;
        return NULL;
    }
    run_search(s);
    struct mtb_cap_est e;
    mtb_cap_estimate(s->cfg[0].curve[0], s->cfg[0].npt, s->slo.b[0].bound_us, s->conf, s->cfg[0].sat, &e);
    sweep(s, e.status == MTB_CAP_FOUND ? e.capacity : 0);
    int failures;
    json_t *records = mtb_plan_end(s->ses, &failures, &err);
    mtb_proc_graceful(0);
    if (err.code) /* the search stopped on it (its runs so far written below) */
        fprintf(stderr, "mtebench: %s\n", err.msg);
    json_t *res = result_json(s, dir, mtb_mono() - s->t0);
    int wrc = mtb_capacity_write(res, dir, out);
    mtb_plan_print_failed("mtebench", &s->plan, (int)s->runs);
    json_decref(records);
    json_decref(s->files);
    for (size_t k = 0; k < s->ncfg; k++) {
        json_decref(s->cfg[k].pilot_files);
        for (size_t i = 0; i < s->cfg[k].npt; i++)
            json_decref(s->cfg[k].pt[i].files);
    }
    mtb_plan_free(&s->plan);
    int no_pilot = s->stopped && !strcmp(s->stopped, "pilot_failed");
    *status = mtb_proc_interrupted ? 130 : err.code ? err.code : failures || wrc || no_pilot ? 1 : 0;
    return res;
}

/* A plan's entry with an SLO searched into dir as the command searches (its records' plan is the plan's):
 * search_into's result */
static json_t *capacity_entry(const struct mtb_plan *p, const struct mtb_plan_capacity *e, const char *dir, int force,
                              FILE *out, int *status, struct mtb_err *err)
{
    struct search *s = mtb_calloc(1, sizeof *s);
    struct mtb_opts o = e->o;
    o.resume = p->resume;
    s->o = &o;
    char why[MTB_ERRLEN];
    if (mtb_plan_capacity_check(&o, &s->slo, why, sizeof why) != 0) /* checked at load: cannot fail here */
        mtb_die(2, "plan %s: [%s] %s", p->name, e->entry, why);
    s->nmodes = e->nmodes;
    memcpy(s->modes, e->modes, e->nmodes * sizeof *e->modes);
    prepare(s, p->name);
    s->entry = e->entry;
    json_t *res = search_into(s, dir, force, out, status, err);
    if (!res)
        mtb_err_prefix(err, "plan %s: [%s]", p->name, e->entry);
    free(s);
    return res;
}

json_t *mtb_capacity_entries(const struct mtb_plan *p, const char *dir, int force, FILE *out, int *status,
                             struct mtb_err *e)
{
    json_t *all = json_array();
    *status = 0;
    for (size_t i = 0; i < p->ncaps && !mtb_proc_interrupted; i++) {
        char *sub = mtb_asprintf("%s/capacity-%s", dir, p->caps[i].entry);
        int st = 0;
        json_t *r = capacity_entry(p, &p->caps[i], sub, force, out, &st, e);
        if (!r) {
            free(sub);
            json_decref(all);
            return NULL;
        }
        json_object_set_new(r, "dir", json_string(sub));
        json_object_set_new(r, "file", json_sprintf("%s/capacity.json", sub));
        json_array_append_new(all, r);
        *status = st > *status ? st : *status;
        free(sub);
    }
    return all;
}

/* Before a search: the machine's latency floor (run/floor.h). A bound below
 * the best its percentile showed at any of the floor's rates, on loopback to
 * a native memcached, cannot be met by any service here: refused (exit 2)
 * with the figures, instead of a search that finds "below". MTEBENCH_FLOOR=0
 * skips the measurement. */
static void floor_check(const struct search *s)
{
    struct mtb_err e = { 0 };
    int on = mtb_floor_enabled(&e);
    if (on < 0)
        mtb_err_exit(&e);
    if (!on)
        return;
    struct mtb_floor f;
    char why[MTB_ERRLEN];
    fprintf(stderr, "mtebench: capacity: measuring this machine's latency floor (a native memcached on loopback, "
            "about 6 s; MTEBENCH_FLOOR=0 skips it)\n");
    if (mtb_floor_measure(&f, 1, why, sizeof why) != 0) {
        mtb_warn("capacity: the latency floor could not be measured (%s); searching without it", why);
        return;
    }
    for (int i = 0; i < s->slo.n; i++) {
        const struct mtb_slo_bound *b = &s->slo.b[i];
        /* a percentile the floor does not keep (p99.99) is at least the highest it keeps */
        int k = mtb_floor_pct_index(b->pct);
        double rate = 0, best = mtb_floor_best(&f, k >= 0 ? k : MTB_FLOOR_NPCT - 1, &rate);
        if (!(b->bound_us < best))
            continue;
        fprintf(stderr, "mtebench: capacity: the latency floor on loopback (%s):\n", f.server);
        mtb_floor_print(&f, stderr, "  ");
        mtb_die(2, "capacity: %s at %g/s is %.2f ms here at best: %s cannot be met on this machine at any rate "
                "(mtebench doctor measures the floor; choose a bound above it)", k >= 0 ? b->pct : "p99.9", rate,
                best / 1000, b->text);
    }
    double rate = 0, p99 = mtb_floor_best(&f, 2, &rate);
    fprintf(stderr, "mtebench: capacity: latency floor p99 %.0f us at best (at %g/s): below every bound\n", p99, rate);
}

int mtb_cmd_capacity(int argc, char **argv)
{
    struct mtb_opts o;
    struct search *s = mtb_calloc(1, sizeof *s);
    setup(s, &o, argc, argv);
    if (o.dry_run) {
        dry_run(s);
        return 0;
    }
    floor_check(s);
    char *tag = mtb_asprintf("%s-capacity-%s", o.recipe->name, o.m->name);
    char *dir = o.results ? mtb_strdup(o.results) : mtb_cli_results_dir(tag);
    free(tag);
    int status;
    struct mtb_err e = { 0 };
    json_t *res = search_into(s, dir, o.force, stdout, &status, &e);
    if (!res)
        mtb_err_exit(&e);
    json_decref(res);
    free(dir);
    free(s);
    return status;
}
