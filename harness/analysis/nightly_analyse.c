/* nightly_analyse.c - the nightly's analysis (nightly.h: mtb_nightly_analyse):
 * the history's nights (busy or quiet, their steal), each series' change
 * points (timings: changepoint.c's test over runs; work counts:
 * workcp.c's rule over nights) and the open regressions. The history is
 * read once into its rows (core/history_rows.c), the nights into struct
 * night; the analysis is written as JSON from them. */
#include "lib/jsonx.h"
#include "analysis/nightly_analyse.h"
#include "analysis/stats.h"
#include "analysis/workcp.h"
#include "core/history_rows.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/work.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* ---- analysis -------------------------------------------------------------------- */

/* The analysed metrics: every metric of record.h's table with a nightly
 * name, on the series of its kind (run metrics on run series, pair metrics
 * on overhead series). */
struct metric {
    const char *kind;  /* history series kind */
    const char *name;  /* metric name */
    const char *field; /* point field */
    const char *unit;
    enum mtb_cp_better better;
    size_t ix;         /* its field's index among the values the points hold */
};

static size_t analysed_metrics(struct metric *out)
{
    size_t n = 0;
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].nightly)
            out[n++] = (struct metric){ "run", mtb_run_metrics[m].nightly, mtb_run_metrics[m].key,
                                        mtb_run_metrics[m].unit,
                                        mtb_run_metrics[m].better == MTB_HIGHER ? MTB_CP_HIGHER : MTB_CP_LOWER, 0 };
    static char units[MTB_NPAIR_METRICS][96];
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        const char *of = mtb_run_metrics[d->of].label;
        snprintf(units[m], sizeof units[m], "x (%s %s ÷ %s %s)", d->tagged_num ? "tagged" : "baseline", of,
                 d->tagged_num ? "baseline" : "tagged", of);
        if (d->nightly)
            out[n++] = (struct metric){ "overhead", d->nightly, d->key, units[m], MTB_CP_LOWER, 0 };
    }
    /* a capacity search's estimate, one a night (plan entries with an slo) */
    out[n++] = (struct metric){ "capacity", "capacity", "capacity", "requests/s at the SLO", MTB_CP_HIGHER, 0 };
    out[n++] = (struct metric){ "capacity", "capacity overhead", "capacity_overhead",
                                "x (baseline capacity ÷ capacity)", MTB_CP_LOWER, 0 };
    /* MTE's work per request, counted (a plan's `count`): more is worse */
    for (size_t q = 0; q < MTB_NWORK; q++)
        out[n++] = (struct metric){ "work", mtb_work_quantities[q].label, mtb_work_quantities[q].key,
                                    "per request (counted)", MTB_CP_LOWER, 0 };
    out[n] = (struct metric){ 0 };
    for (size_t i = 0; i < n; i++)
        out[i].ix = i; /* the points hold their values in this order */
    return n;
}

static int excluded(json_t *exclude, long long night)
{
    size_t i;
    json_t *v;
    json_array_foreach(exclude, i, v) if (json_integer_value(v) == night) return 1;
    return 0;
}

/* a night of the history: what its points say of it, its quiet check,
 * its runs' steal */
struct night {
    long long id;
    const char *started, *report, *results_dir; /* its first point's */
    int runs;
    int quiet;                  /* 1 quiet, 0 not (busy_why), -1 unknown */
    char *busy_why;
    const char **hosts;         /* the hosts its runs ran on */
    size_t nhosts;
    double *steals;             /* its runs' steal */
    size_t nsteals;
    int has_steal;              /* steal: the lower median of steals */
    double steal;
    const char *busy;           /* busy: kept out or compared */
};
struct nights {
    struct night *v;            /* in time order: night x is v[x - 1] */
    size_t n;
};

static void nights_free(struct nights *ns)
{
    for (size_t i = 0; i < ns->n; i++) {
        free(ns->v[i].busy_why);
        free(ns->v[i].hosts);
        free(ns->v[i].steals);
    }
    free(ns->v);
}

static int cmp_night(const void *a, const void *b)
{
    const struct night *x = a, *y = b;
    int c = strcmp(x->started, y->started);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The quiet check of a night's runs (environment.quiet of a record): 1
 * quiet, 0 not quiet (*why: its first finding), -1 unknown (no record
 * file here; PostgreSQL keeps "host:path"). */
static int night_quiet(const struct mtb_hist_point *p, char **why)
{
    const char *path = p->record, *colon = strchr(path, ':');
    json_t *rec = *path ? json_load_file(path, 0, NULL) : NULL;
    if (!rec && colon && colon[1] == '/')
        rec = json_load_file(colon + 1, 0, NULL);
    struct mtb_rec_env e;
    mtb_rec_env_read(rec, &e);
    int r = e.has_quiet ? e.quiet : -1;
    const char *first = json_string_value(json_array_get(e.quiet_warnings, 0));
    *why = r == 0 ? mtb_strdup(first ? first : "not quiet") : NULL;
    mtb_rec_env_free(&e);
    json_decref(rec);
    return r;
}

/* the lower median of v (n > 0; sorts v) */
static double lower_median(double *v, size_t n)
{
    mtb_stats_sort(v, n);
    return v[(n - 1) / 2];
}

/* Each night's steal (the median of its runs'), and the nights that lost
 * more of their CPUs to the hypervisor than the typical night marked not
 * quiet, with the figures (nightly.h) */
static void steal_busy(struct nights *ns)
{
    size_t k = 0;
    double *med = mtb_calloc(ns->n + 1, sizeof *med);
    for (size_t i = 0; i < ns->n; i++) {
        struct night *n = &ns->v[i];
        if (!n->nsteals)
            continue;
        n->has_steal = 1;
        n->steal = med[k++] = lower_median(n->steals, n->nsteals);
    }
    double typical = k ? lower_median(med, k) : 0;
    free(med);
    for (size_t i = 0; i < ns->n; i++) {
        struct night *n = &ns->v[i];
        if (!n->has_steal || n->quiet == 0 || n->steal <= typical + MTB_NIGHT_STEAL_EXCESS)
            continue;
        n->quiet = 0;
        free(n->busy_why);
        n->busy_why = mtb_asprintf("the hypervisor took %.0f%% of the runs' CPUs (steal; %.0f%% on the typical night): "
                                   "a slower machine, not slower code", 100 * n->steal, 100 * typical);
    }
}

/* the night of id in ns, or NULL; *hint: where the last was found (the
 * points of a series come night by night) */
static struct night *night_of(const struct nights *ns, long long id, size_t *hint)
{
    if (*hint < ns->n && ns->v[*hint].id == id)
        return &ns->v[*hint];
    for (size_t i = 0; i < ns->n; i++)
        if (ns->v[i].id == id)
            return &ns->v[*hint = i];
    return NULL;
}

/* every night seen in the points, in time order, numbered from 1 */
static void collect_nights(const struct mtb_hist_rows *h, json_t *exclude, struct nights *ns)
{
    memset(ns, 0, sizeof *ns);
    size_t hint = 0;
    for (size_t i = 0; i < h->n; i++) {
        const struct mtb_hist_series *s = &h->series[i];
        for (size_t j = 0; j < s->npoints; j++) {
            const struct mtb_hist_point *p = &s->points[j];
            if (excluded(exclude, p->night))
                continue;
            struct night *n = night_of(ns, p->night, &hint);
            if (!n) {
                ns->v = mtb_realloc(ns->v, (ns->n + 1) * sizeof *ns->v);
                n = &ns->v[hint = ns->n++];
                memset(n, 0, sizeof *n);
                n->id = p->night;
                n->started = p->night_started;
                n->report = p->report;
                n->results_dir = p->results_dir;
                n->quiet = night_quiet(p, &n->busy_why);
            }
            /* the hosts its runs ran on (a night is usually one host's) */
            int seen = 0;
            for (size_t k = 0; k < n->nhosts; k++)
                seen |= !strcmp(n->hosts[k], s->host);
            if (!seen && *s->host) {
                n->hosts = mtb_realloc(n->hosts, (n->nhosts + 1) * sizeof *n->hosts);
                n->hosts[n->nhosts++] = s->host;
            }
            if (!strcmp(s->kind, "run")) {
                n->runs++;
                if (p->has_steal) {
                    n->steals = mtb_realloc(n->steals, (n->nsteals + 1) * sizeof *n->steals);
                    n->steals[n->nsteals++] = p->steal;
                }
            }
        }
    }
    if (ns->n)
        qsort(ns->v, ns->n, sizeof *ns->v, cmp_night);
    steal_busy(ns);
}

/* the night's place in time (1, 2, ...), 0 when it is not there */
static long long night_x(const struct nights *ns, long long id, size_t *hint)
{
    const struct night *n = night_of(ns, id, hint);
    return n ? (long long)(n - ns->v) + 1 : 0;
}

static json_t *nights_json(const struct nights *ns)
{
    json_t *out = json_array();
    for (size_t i = 0; i < ns->n; i++) {
        const struct night *n = &ns->v[i];
        json_t *hosts = json_array();
        for (size_t k = 0; k < n->nhosts; k++)
            json_array_append_new(hosts, json_string(n->hosts[k]));
        json_t *j = json_pack("{s:I,s:s,s:s,s:s,s:i,s:o,s:o,s:I}", "id", (json_int_t)n->id, "started", n->started,
                              "report", n->report, "results_dir", n->results_dir, "runs", n->runs, "quiet",
                              n->quiet < 0 ? json_null() : json_boolean(n->quiet), "hosts", hosts, "x",
                              (json_int_t)i + 1);
        if (n->busy_why)
            json_object_set_new(j, "busy_why", json_string(n->busy_why));
        if (n->has_steal)
            json_object_set_new(j, "steal", json_real(n->steal));
        if (n->busy)
            json_object_set_new(j, "busy", json_string(n->busy));
        json_array_append_new(out, j);
    }
    return out;
}

static json_t *revisions(const struct mtb_hist_point *p)
{
    json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s}", "mtebench_version", p->mtebench_version, "build_key", p->build_key,
                          "kernel_release", p->kernel_release, "kernel_build", p->kernel_build, "started", p->started);
    if (*p->base_build)
        json_object_set_new(r, "base_build", json_string(p->base_build));
    return r;
}

/* did the revisions stay the same from a to b (when they ran aside)? */
static int same_revisions(const struct mtb_hist_point *a, const struct mtb_hist_point *b)
{
    return !strcmp(a->mtebench_version, b->mtebench_version) && !strcmp(a->build_key, b->build_key) &&
           !strcmp(a->kernel_release, b->kernel_release) && !strcmp(a->kernel_build, b->kernel_build) &&
           !strcmp(a->base_build, b->base_build);
}

/* "nightly/memcached/default mix 1:10/tagged/async/emu/host/auto on HOST#hash" -> readable label */
static char *series_label(const struct mtb_hist_series *s, const struct metric *m)
{
    const char *key = s->series;
    if (!strncmp(key, "overhead:", 9))
        key += 9;
    char *k = mtb_strdup(key), *hash = strchr(k, '#');
    if (hash)
        *hash++ = 0;
    char *l = mtb_asprintf("%s — %s%s%s%s", k, m->name, hash ? " [" : "", hash ? hash : "", hash ? "]" : "");
    free(k);
    return l;
}

/* The points of one series and metric that count: ok, finite, in a night not excluded */
struct points {
    double *x, *y;   /* night index; value */
    int *g;          /* the night each belongs to (its group) */
    const struct mtb_hist_point **used; /* the history's points, parallel */
    size_t n;
    int emulated;    /* the records' platform.emulated, kept by the history */
};

static void points_of(const struct mtb_hist_series *s, const struct metric *m, const struct nights *ns,
                      json_t *exclude, struct points *pt)
{
    size_t np = s->npoints, hint = 0;
    memset(pt, 0, sizeof *pt);
    pt->x = mtb_calloc(np ? np : 1, sizeof *pt->x);
    pt->y = mtb_calloc(np ? np : 1, sizeof *pt->y);
    pt->g = mtb_calloc(np ? np : 1, sizeof *pt->g);
    pt->used = mtb_calloc(np ? np : 1, sizeof *pt->used);
    for (size_t j = 0; j < np; j++) {
        const struct mtb_hist_point *p = &s->points[j];
        double v = p->v[m->ix];
        if (excluded(exclude, p->night) || strcmp(p->status, "ok") || !isfinite(v))
            continue;
        pt->x[pt->n] = (double)night_x(ns, p->night, &hint);
        pt->g[pt->n] = (int)pt->x[pt->n];
        pt->y[pt->n] = v;
        pt->used[pt->n] = p;
        pt->emulated |= p->emulated;
        pt->n++;
    }
}

static void points_free(struct points *pt)
{
    free(pt->x);
    free(pt->y);
    free(pt->g);
    free(pt->used);
}

/* what a regression's bisection would search (cmd/nightly.c makes the
 * `bisect` command of it): the mtebench revisions of the nights before and
 * after it (pb, pa: a `git describe`, "-dirty" dropped) and the
 * configuration; the metric of an overhead series is the tagged runs'
 * throughput. Nothing when a revision is unknown or both are the same. */
static void bisect_from(json_t *ch, const struct mtb_hist_series *s, const char *metric,
                        const struct mtb_hist_point *pb, const struct mtb_hist_point *pa)
{
    char *good = mtb_strdup(pb->mtebench_version), *bad = mtb_strdup(pa->mtebench_version);
    for (char **v = (char *[]){ good, bad, NULL }; *v; v++) {
        size_t n = strlen(*v);
        if (n > 6 && !strcmp(*v + n - 6, "-dirty"))
            (*v)[n - 6] = 0;
    }
    if (*good && *bad && strcmp(good, "unknown") && strcmp(bad, "unknown") && strcmp(good, bad))
        json_object_set_new(ch, "bisect_from",
                            json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "good", good, "bad", bad, "service",
                                      s->service, "variant", s->variant, "mode", s->mode, "platform", s->platform,
                                      "workload", s->workload, "metric", !strcmp(metric, "p99") ? "p99_us" : "ops_per_sec"));
    free(good);
    free(bad);
}

/* one change point of a series as the dashboard and digest show it */
static json_t *change_json(const struct mtb_cp *c, const struct mtb_hist_series *s, const struct metric *m,
                           const char *id, const char *label, const struct points *pt, int last)
{
    const struct mtb_hist_point *pb = pt->used[c->index - 1], *pa = pt->used[c->index];
    const char *kind = c->regression ? "regression" : c->improvement ? "improvement" : "change";
    return json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:I,s:I,s:s,s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:f,s:f,"
                     "s:b,s:b,s:o,s:o,s:s,s:s}",
                     "series", s->series, "series_id", id, "label", label, "metric", m->name, "night",
                     (json_int_t)pa->night, "night_started", pa->night_started, "x", (json_int_t)pt->x[c->index],
                     "index", (json_int_t)c->index, "kind", kind, "change", c->change, "ci_lo", c->ci.lo, "ci_hi",
                     c->ci.hi, "before", c->before, "after", c->after, "n_before", (json_int_t)c->n_before,
                     "n_after", (json_int_t)c->n_after, "p_split", c->p_split, "p_mwu", c->p_mwu, "from_newest",
                     c->from_newest, "open", c->regression && last, "revisions_before", revisions(pb),
                     "revisions_after", revisions(pa), "report_before", pb->report, "report_after", pa->report);
}

/* the steal of the nights of points [from, to) (pt's, in time order): the
 * lower median of their nights' steal; -1 when no night of them has one */
static double side_steal(const struct nights *ns, const struct points *pt, size_t from, size_t to)
{
    double *v = mtb_calloc(to - from + 1, sizeof *v), last = -1, m = -1;
    size_t k = 0;
    for (size_t i = from; i < to; i++) {
        if (i > from && pt->x[i] == last)
            continue; /* one value per night */
        last = pt->x[i];
        const struct night *n = pt->x[i] >= 1 && (size_t)pt->x[i] <= ns->n ? &ns->v[(size_t)pt->x[i] - 1] : NULL;
        if (n && n->has_steal)
            v[k++] = n->steal;
    }
    if (k)
        m = lower_median(v, k);
    free(v);
    return m;
}

/* A regression that is the machine's: no revision changed across it, and
 * the nights after it lost MTB_NIGHT_STEAL_EXCESS more of their CPUs to the
 * hypervisor than the nights before it (the lower medians of the nights'
 * steal, each side). Its kind becomes "machine", with why; it is no open
 * regression and proposes no bisection. (CI on 96f0515: nights 2 and 3 at
 * 15-36% steal after a night at 0%; the rule for busy nights, against the
 * typical night, kept neither out, since two of three were busy.) */
static int machine_change(json_t *ch, const struct nights *ns, const struct points *pt, size_t at)
{
    if (!same_revisions(pt->used[at - 1], pt->used[at]))
        return 0;
    double before = side_steal(ns, pt, 0, at), after = side_steal(ns, pt, at, pt->n);
    if (before < 0 || after < 0 || after < before + MTB_NIGHT_STEAL_EXCESS)
        return 0;
    json_object_set_new(ch, "kind", json_string("machine"));
    json_object_set_new(ch, "machine_why",
                        json_sprintf("the hypervisor took %.0f%% of the runs' CPUs after it, %.0f%% before, and no "
                                     "revision changed: a slower machine, not slower code",
                                     100 * after, 100 * before));
    return 1;
}

/* A work series' changes (workcp.c's rule over nights: a night outside the
 * prediction interval of the nights before it) into changes,
 * the last one into open when it is more work: a regression. */
static void work_changes(const struct mtb_hist_series *s, const struct metric *m, const char *id, const char *label,
                         const struct points *pt, const struct mtb_cp_opts *o, json_t *changes, json_t *open)
{
    struct mtb_workcp *cps = NULL;
    size_t ncp = 0;
    if (!pt->n || mtb_workcp_detect(pt->y, pt->g, pt->n, o->threshold, o->min_change, o->window, &cps, &ncp) != 0)
        return;
    for (size_t k = 0; k < ncp; k++) {
        const struct mtb_workcp *c = &cps[k];
        const struct mtb_hist_point *pb = pt->used[c->index - 1], *pa = pt->used[c->index];
        int up = c->after > c->before, last = k == ncp - 1;
        json_t *ch = json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:I,s:I,s:s,s:s,s:f,s:f,s:f,s:f,s:I,s:i,s:b,s:o,s:o,s:s,s:s}",
                               "series", s->series, "series_id", id, "label", label, "metric", m->name, "night",
                               (json_int_t)pa->night, "night_started", pa->night_started, "x",
                               (json_int_t)pt->x[c->index], "index", (json_int_t)c->index, "kind",
                               up ? "regression" : "improvement", "rule", "counts", "before", c->before, "after",
                               c->after, "sd", c->sd, "threshold", c->threshold, "n_before", (json_int_t)c->n_before,
                               "n_after", 1, "open", up && last, "revisions_before", revisions(pb), "revisions_after",
                               revisions(pa), "report_before", pb->report, "report_after", pa->report);
        if (c->before != 0) /* relative where it means something (0 -> 1 STG a request is no percentage) */
            json_object_set_new(ch, "change", json_real((c->after - c->before) / fabs(c->before)));
        json_array_append(changes, ch);
        if (up && last)
            json_array_append(open, ch);
        json_decref(ch);
    }
    free(cps);
}

/* One series and metric: its points, its change points (an open regression
 * also into open). A series whose every point lies in a night kept out (a
 * host whose only nights were busy) is still there, with no point and
 * kept_out saying how many: shown, not compared. @return the series
 * object, or NULL with no point at all */
static json_t *analyse_series(const struct mtb_hist_series *s, const struct metric *m, const struct nights *ns,
                              json_t *exclude, const struct mtb_cp_opts *o, int sid, json_t *open)
{
    struct points pt, all;
    points_of(s, m, ns, exclude, &pt);
    points_of(s, m, ns, NULL, &all);
    size_t kept_out = all.n - pt.n;
    points_free(&all);
    if (!pt.n && !kept_out) {
        points_free(&pt);
        return NULL;
    }
    char *label = series_label(s, m);
    char id[16];
    snprintf(id, sizeof id, "s%d", sid);
    json_t *xs = json_array(), *ys = json_array(), *changes = json_array();
    for (size_t k = 0; k < pt.n; k++) {
        json_array_append_new(xs, json_integer((json_int_t)pt.x[k]));
        json_array_append_new(ys, json_real(pt.y[k]));
    }
    if (!strcmp(m->kind, "work")) /* counts: their own rule */
        work_changes(s, m, id, label, &pt, o, changes, open);
    struct mtb_cp *cps = NULL;
    size_t ncp = 0;
    int rc = pt.n && strcmp(m->kind, "work") ? mtb_cp_detect(pt.y, pt.g, pt.n, m->better, o, &cps, &ncp) : 0;
    for (size_t k = 0; rc == 0 && k < ncp; k++) {
        json_t *ch = change_json(&cps[k], s, m, id, label, &pt, k == ncp - 1);
        int machine = cps[k].regression && machine_change(ch, ns, &pt, cps[k].index);
        if (cps[k].regression && !machine && strcmp(m->kind, "capacity")) /* bisect measures closed-loop runs */
            bisect_from(ch, s, m->name, pt.used[cps[k].index - 1], pt.used[cps[k].index]);
        json_array_append(changes, ch);
        if (cps[k].regression && !machine && k == ncp - 1)
            json_array_append(open, ch);
        json_decref(ch);
    }
    free(cps);
    json_t *so = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:i,s:o,s:o,s:o}", "id", id, "key", s->series,
                           "label", label, "metric", m->name, "unit", m->unit, "better",
                           m->better == MTB_CP_HIGHER ? "higher" : "lower", "platform", s->platform, "host", s->host,
                           "emulated", pt.emulated, "points", (int)pt.n, "x", xs, "y", ys, "changes", changes);
    if (rc)
        json_object_set_new(so, "error", json_string(strerror(-rc)));
    if (kept_out)
        json_object_set_new(so, "kept_out", json_integer((json_int_t)kept_out));
    free(label);
    points_free(&pt);
    return so;
}

/* Busy nights (the quiet check marked them not quiet, or their runs' steal:
 * steal_busy) are kept out of the
 * change-point test when some night was quiet; on a machine never quiet
 * they are all there is, and are compared (the digest says which). */
static json_t *busy_nights(struct nights *ns, int *excluded_out)
{
    json_t *busy = json_array();
    int quiet = 0;
    for (size_t i = 0; i < ns->n; i++) {
        quiet |= ns->v[i].quiet == 1;
        if (ns->v[i].quiet == 0)
            json_array_append_new(busy, json_integer((json_int_t)ns->v[i].id));
    }
    *excluded_out = quiet && json_array_size(busy);
    for (size_t i = 0; i < ns->n; i++)
        if (ns->v[i].quiet == 0)
            ns->v[i].busy = quiet ? "kept out of the change-point test" : "compared: no night was quiet";
    return busy;
}

json_t *mtb_nightly_analyse(json_t *history, const struct mtb_cp_opts *o, json_t *exclude)
{
    struct metric metrics[MTB_NRUN_METRICS + MTB_NPAIR_METRICS + 3 + MTB_NWORK];
    size_t nm = analysed_metrics(metrics);
    const char *fields[MTB_NRUN_METRICS + MTB_NPAIR_METRICS + 3 + MTB_NWORK];
    for (size_t i = 0; i < nm; i++)
        fields[i] = metrics[i].field;
    struct mtb_hist_rows h;
    mtb_hist_rows_read(history, fields, nm, &h);
    struct nights ns;
    collect_nights(&h, exclude, &ns);
    int busy_out = 0;
    json_t *busy = busy_nights(&ns, &busy_out);
    json_t *all = json_array(), *open = json_array();
    /* the nights the change-point test leaves out: those asked, and the busy ones when some night was quiet */
    json_t *skip = json_array();
    if (exclude)
        json_array_extend(skip, exclude);
    if (busy_out)
        json_array_extend(skip, busy);
    int sid = 0;
    for (size_t i = 0; i < h.n; i++) {
        const struct mtb_hist_series *s = &h.series[i];
        for (const struct metric *m = metrics; m->kind; m++) {
            if (strcmp(m->kind, s->kind))
                continue;
            /* counts are the same on a busy night: only the nights asked are left out */
            json_t *so = analyse_series(s, m, &ns, strcmp(m->kind, "work") ? skip : exclude, o, sid + 1, open);
            if (so) {
                sid++;
                json_array_append_new(all, so);
            }
        }
    }
    json_decref(skip);
    json_t *out = json_pack("{s:o,s:o,s:o,s:o,s:b}", "nights", nights_json(&ns), "series", all, "open", open,
                            "busy_nights", busy, "busy_excluded", busy_out);
    nights_free(&ns);
    mtb_hist_rows_free(&h);
    return out;
}
