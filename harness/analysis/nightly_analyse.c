/* nightly_analyse.c - the nightly's analysis (nightly.h: mtb_nightly_analyse):
 * the history's nights (busy or quiet, their steal), each series' change
 * points (timings: changepoint.c's test over runs; work counts:
 * workcp.c's rule over nights) and the open regressions. */
#include "lib/jsonx.h"
#include "analysis/nightly_analyse.h"
#include "analysis/stats.h"
#include "analysis/workcp.h"
#include "core/record.h"
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
};

static size_t analysed_metrics(struct metric *out)
{
    size_t n = 0;
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].nightly)
            out[n++] = (struct metric){ "run", mtb_run_metrics[m].nightly, mtb_run_metrics[m].key,
                                        mtb_run_metrics[m].unit,
                                        mtb_run_metrics[m].better == MTB_HIGHER ? MTB_CP_HIGHER : MTB_CP_LOWER };
    static char units[MTB_NPAIR_METRICS][96];
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        const char *of = mtb_run_metrics[d->of].label;
        snprintf(units[m], sizeof units[m], "x (%s %s ÷ %s %s)", d->tagged_num ? "tagged" : "baseline", of,
                 d->tagged_num ? "baseline" : "tagged", of);
        if (d->nightly)
            out[n++] = (struct metric){ "overhead", d->nightly, d->key, units[m], MTB_CP_LOWER };
    }
    /* a capacity search's estimate, one a night (plan entries with an slo) */
    out[n++] = (struct metric){ "capacity", "capacity", "capacity", "requests/s at the SLO", MTB_CP_HIGHER };
    out[n++] = (struct metric){ "capacity", "capacity overhead", "capacity_overhead",
                                "x (baseline capacity ÷ capacity)", MTB_CP_LOWER };
    /* MTE's work per request, counted (a plan's `count`): more is worse */
    for (size_t q = 0; q < MTB_NWORK; q++)
        out[n++] = (struct metric){ "work", mtb_work_quantities[q].label, mtb_work_quantities[q].key,
                                    "per request (counted)", MTB_CP_LOWER };
    out[n] = (struct metric){ 0 };
    return n;
}

static int excluded(json_t *exclude, json_int_t night)
{
    size_t i;
    json_t *v;
    json_array_foreach(exclude, i, v) if (json_integer_value(v) == night) return 1;
    return 0;
}

static int cmp_night(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(mtb_jstr(x, "started"), mtb_jstr(y, "started"));
    if (c)
        return c;
    json_int_t i = json_integer_value(json_object_get(x, "id")), j = json_integer_value(json_object_get(y, "id"));
    return (i > j) - (i < j);
}

/* The quiet check of a night's runs (environment.quiet of a record): 1
 * quiet, 0 not quiet (*why: its first finding), -1 unknown (no record
 * file here; PostgreSQL keeps "host:path"). */
static int night_quiet(json_t *p, char *why, size_t n)
{
    const char *path = mtb_jstr(p, "record"), *colon = strchr(path, ':');
    json_t *rec = *path ? json_load_file(path, 0, NULL) : NULL;
    if (!rec && colon && colon[1] == '/')
        rec = json_load_file(colon + 1, 0, NULL);
    json_t *q = json_object_get(json_object_get(rec, "environment"), "quiet");
    int r = json_is_boolean(json_object_get(q, "quiet")) ? json_is_true(json_object_get(q, "quiet")) : -1;
    snprintf(why, n, "%s", r == 0 ? json_string_value(json_array_get(json_object_get(q, "warnings"), 0)) ?
                                    json_string_value(json_array_get(json_object_get(q, "warnings"), 0)) : "not quiet"
                                  : "");
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
static void steal_busy(json_t *nights)
{
    size_t i, j, k = 0;
    json_t *n, *v;
    double *med = mtb_calloc(json_array_size(nights) + 1, sizeof *med);
    json_array_foreach(nights, i, n) {
        json_t *st = json_object_get(n, "steals");
        if (!json_array_size(st))
            continue;
        double *x = mtb_calloc(json_array_size(st), sizeof *x);
        json_array_foreach(st, j, v) x[j] = json_number_value(v);
        double m = lower_median(x, json_array_size(st));
        free(x);
        json_object_set_new(n, "steal", json_real(m));
        med[k++] = m;
        json_object_del(n, "steals");
    }
    double typical = k ? lower_median(med, k) : 0;
    free(med);
    json_array_foreach(nights, i, n) {
        json_t *st = json_object_get(n, "steal");
        if (!st || json_is_false(json_object_get(n, "quiet")) ||
            json_number_value(st) <= typical + MTB_NIGHT_STEAL_EXCESS)
            continue;
        json_object_set_new(n, "quiet", json_false());
        json_object_set_new(n, "busy_why", json_sprintf("the hypervisor took %.0f%% of the runs' CPUs (steal; %.0f%% on "
                                                        "the typical night): a slower machine, not slower code",
                                                        100 * json_number_value(st), 100 * typical));
    }
}

/* every night seen in the points, in time order, numbered from 1 */
static json_t *collect_nights(json_t *history, json_t *exclude)
{
    json_t *byid = json_object();
    size_t i, j;
    json_t *s, *p;
    json_array_foreach(history, i, s) json_array_foreach(json_object_get(s, "points"), j, p)
    {
        json_int_t id = json_integer_value(json_object_get(p, "night"));
        if (excluded(exclude, id))
            continue;
        char k[32];
        snprintf(k, sizeof k, "%lld", (long long)id);
        json_t *n = json_object_get(byid, k);
        if (!n) {
            n = json_pack("{s:I,s:s,s:s,s:s,s:i}", "id", id, "started", mtb_jstr(p, "night_started"), "report",
                          mtb_jstr(p, "report"), "results_dir", mtb_jstr(p, "results_dir"), "runs", 0);
            char why[512];
            int q = night_quiet(p, why, sizeof why);
            json_object_set_new(n, "quiet", q < 0 ? json_null() : json_boolean(q));
            if (q == 0)
                json_object_set_new(n, "busy_why", json_string(why));
            json_object_set_new(n, "hosts", json_array());
            json_object_set_new(byid, k, n);
        }
        /* the hosts its runs ran on (a night is usually one host's) */
        json_t *hs = json_object_get(n, "hosts"), *hv;
        size_t hi;
        int seen = 0;
        json_array_foreach(hs, hi, hv) seen |= !strcmp(json_string_value(hv), mtb_jstr(s, "host"));
        if (!seen && *mtb_jstr(s, "host"))
            json_array_append_new(hs, json_string(mtb_jstr(s, "host")));
        if (!strcmp(mtb_jstr(s, "kind"), "run")) {
            json_object_set_new(n, "runs", json_integer(json_integer_value(json_object_get(n, "runs")) + 1));
            json_t *st = json_object_get(p, "steal");
            if (json_is_number(st)) {
                if (!json_object_get(n, "steals"))
                    json_object_set_new(n, "steals", json_array());
                json_array_append(json_object_get(n, "steals"), st);
            }
        }
    }
    size_t n = json_object_size(byid), k = 0;
    json_t **arr = mtb_calloc(n ? n : 1, sizeof *arr);
    const char *key;
    json_t *v;
    json_object_foreach(byid, key, v) arr[k++] = v;
    qsort(arr, n, sizeof *arr, cmp_night);
    json_t *out = json_array();
    for (k = 0; k < n; k++) {
        json_object_set_new(arr[k], "x", json_integer((json_int_t)k + 1));
        json_array_append(out, arr[k]);
    }
    free(arr);
    json_decref(byid);
    steal_busy(out);
    return out;
}

static json_int_t night_x(json_t *nights, json_int_t id)
{
    size_t i;
    json_t *n;
    json_array_foreach(nights, i, n) if (json_integer_value(json_object_get(n, "id")) == id) return (json_int_t)i + 1;
    return 0;
}

static json_t *revisions(json_t *p)
{
    json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s}", "mtebench_version", mtb_jstr(p, "mtebench_version"), "build_key",
                          mtb_jstr(p, "build_key"), "kernel_release", mtb_jstr(p, "kernel_release"), "kernel_build",
                          mtb_jstr(p, "kernel_build"), "started", mtb_jstr(p, "started"));
    if (*mtb_jstr(p, "base_build"))
        json_object_set_new(r, "base_build", json_string(mtb_jstr(p, "base_build")));
    return r;
}

/* "nightly/memcached/default mix 1:10/tagged/async/emu/host/auto on HOST#hash" -> readable label */
static char *series_label(json_t *s, const struct metric *m)
{
    const char *key = mtb_jstr(s, "series");
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
    json_t *used;    /* the history's points, parallel */
    size_t n;
    int emulated;    /* the records' platform.emulated, kept by the history */
};

static void points_of(json_t *s, const struct metric *m, json_t *nights, json_t *exclude, struct points *pt)
{
    json_t *pts = json_object_get(s, "points"), *p;
    size_t np = json_array_size(pts), j;
    memset(pt, 0, sizeof *pt);
    pt->x = mtb_calloc(np ? np : 1, sizeof *pt->x);
    pt->y = mtb_calloc(np ? np : 1, sizeof *pt->y);
    pt->g = mtb_calloc(np ? np : 1, sizeof *pt->g);
    pt->used = json_array();
    json_array_foreach(pts, j, p)
    {
        json_int_t night = json_integer_value(json_object_get(p, "night"));
        double v = mtb_jnum(p, m->field);
        if (excluded(exclude, night) || strcmp(mtb_jstr(p, "status"), "ok") || !isfinite(v))
            continue;
        pt->x[pt->n] = (double)night_x(nights, night);
        pt->g[pt->n] = (int)pt->x[pt->n];
        pt->y[pt->n] = v;
        json_array_append(pt->used, p);
        pt->emulated |= json_is_true(json_object_get(p, "emulated")) || json_integer_value(json_object_get(p, "emulated")) > 0;
        pt->n++;
    }
}

static void points_free(struct points *pt)
{
    free(pt->x);
    free(pt->y);
    free(pt->g);
    json_decref(pt->used);
}

/* what a regression's bisection would search (cmd/nightly.c makes the
 * `bisect` command of it): the mtebench revisions of the nights before and
 * after it (a `git describe`, "-dirty" dropped) and the configuration; the
 * metric of an overhead series is the tagged runs' throughput. Nothing when
 * a revision is unknown or both are the same. */
static void bisect_from(json_t *ch, json_t *s, const char *metric)
{
    json_t *rb = json_object_get(ch, "revisions_before"), *ra = json_object_get(ch, "revisions_after");
    char *good = mtb_strdup(mtb_jstr(rb, "mtebench_version")), *bad = mtb_strdup(mtb_jstr(ra, "mtebench_version"));
    for (char **v = (char *[]){ good, bad, NULL }; *v; v++) {
        size_t n = strlen(*v);
        if (n > 6 && !strcmp(*v + n - 6, "-dirty"))
            (*v)[n - 6] = 0;
    }
    if (*good && *bad && strcmp(good, "unknown") && strcmp(bad, "unknown") && strcmp(good, bad))
        json_object_set_new(ch, "bisect_from",
                            json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "good", good, "bad", bad, "service",
                                      mtb_jstr(s, "service"), "variant", mtb_jstr(s, "variant"), "mode",
                                      mtb_jstr(s, "mode"), "platform", mtb_jstr(s, "platform"), "workload",
                                      mtb_jstr(s, "workload"), "metric",
                                      !strcmp(metric, "p99") ? "p99_us" : "ops_per_sec"));
    free(good);
    free(bad);
}

/* one change point of a series as the dashboard and digest show it */
static json_t *change_json(const struct mtb_cp *c, json_t *s, const struct metric *m, const char *id, const char *label,
                           const struct points *pt, int last)
{
    json_t *pb = json_array_get(pt->used, c->index - 1), *pa = json_array_get(pt->used, c->index);
    const char *kind = c->regression ? "regression" : c->improvement ? "improvement" : "change";
    return json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:I,s:I,s:s,s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:f,s:f,"
                     "s:b,s:b,s:o,s:o,s:s,s:s}",
                     "series", mtb_jstr(s, "series"), "series_id", id, "label", label, "metric", m->name,
                     "night", json_integer_value(json_object_get(pa, "night")), "night_started",
                     mtb_jstr(pa, "night_started"), "x", (json_int_t)pt->x[c->index], "index",
                     (json_int_t)c->index, "kind", kind, "change", c->change, "ci_lo", c->ci.lo,
                     "ci_hi", c->ci.hi, "before", c->before, "after", c->after, "n_before",
                     (json_int_t)c->n_before, "n_after", (json_int_t)c->n_after, "p_split",
                     c->p_split, "p_mwu", c->p_mwu, "from_newest", c->from_newest, "open",
                     c->regression && last, "revisions_before", revisions(pb),
                     "revisions_after", revisions(pa), "report_before", mtb_jstr(pb, "report"),
                     "report_after", mtb_jstr(pa, "report"));
}

/* the steal of the nights of points [from, to) (pt's, in time order): the
 * lower median of their nights' steal; -1 when no night of them has one */
static double side_steal(json_t *nights, const struct points *pt, size_t from, size_t to)
{
    double *v = mtb_calloc(to - from + 1, sizeof *v), last = -1, m = -1;
    size_t k = 0;
    for (size_t i = from; i < to; i++) {
        if (i > from && pt->x[i] == last)
            continue; /* one value per night */
        last = pt->x[i];
        json_t *n = json_array_get(nights, (size_t)pt->x[i] - 1), *st = json_object_get(n, "steal");
        if (json_is_number(st))
            v[k++] = json_number_value(st);
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
static int machine_change(json_t *ch, json_t *nights, const struct points *pt, size_t at)
{
    json_t *rb = json_deep_copy(json_object_get(ch, "revisions_before")),
           *ra = json_deep_copy(json_object_get(ch, "revisions_after"));
    json_object_del(rb, "started"); /* when, not what */
    json_object_del(ra, "started");
    int same = json_equal(rb, ra);
    json_decref(rb);
    json_decref(ra);
    if (!same)
        return 0;
    double before = side_steal(nights, pt, 0, at), after = side_steal(nights, pt, at, pt->n);
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
static void work_changes(json_t *s, const struct metric *m, const char *id, const char *label, const struct points *pt,
                         const struct mtb_cp_opts *o, json_t *changes, json_t *open)
{
    struct mtb_workcp *cps = NULL;
    size_t ncp = 0;
    if (!pt->n || mtb_workcp_detect(pt->y, pt->g, pt->n, o->threshold, o->min_change, o->window, &cps, &ncp) != 0)
        return;
    for (size_t k = 0; k < ncp; k++) {
        const struct mtb_workcp *c = &cps[k];
        json_t *pb = json_array_get(pt->used, c->index - 1), *pa = json_array_get(pt->used, c->index);
        int up = c->after > c->before, last = k == ncp - 1;
        json_t *ch = json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:I,s:I,s:s,s:s,s:f,s:f,s:f,s:f,s:I,s:i,s:b,s:o,s:o,s:s,s:s}",
                               "series", mtb_jstr(s, "series"), "series_id", id, "label", label, "metric", m->name,
                               "night", json_integer_value(json_object_get(pa, "night")), "night_started",
                               mtb_jstr(pa, "night_started"), "x", (json_int_t)pt->x[c->index], "index",
                               (json_int_t)c->index, "kind", up ? "regression" : "improvement", "rule", "counts",
                               "before", c->before, "after", c->after, "sd", c->sd, "threshold",
                               c->threshold, "n_before", (json_int_t)c->n_before, "n_after", 1, "open", up && last,
                               "revisions_before", revisions(pb), "revisions_after", revisions(pa), "report_before",
                               mtb_jstr(pb, "report"), "report_after", mtb_jstr(pa, "report"));
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
static json_t *analyse_series(json_t *s, const struct metric *m, json_t *nights, json_t *exclude,
                              const struct mtb_cp_opts *o, int sid, json_t *open)
{
    struct points pt, all;
    points_of(s, m, nights, exclude, &pt);
    points_of(s, m, nights, NULL, &all);
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
        int machine = cps[k].regression && machine_change(ch, nights, &pt, cps[k].index);
        if (cps[k].regression && !machine && strcmp(m->kind, "capacity")) /* bisect measures closed-loop runs */
            bisect_from(ch, s, m->name);
        json_array_append(changes, ch);
        if (cps[k].regression && !machine && k == ncp - 1)
            json_array_append(open, ch);
        json_decref(ch);
    }
    free(cps);
    json_t *so = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:i,s:o,s:o,s:o}", "id", id, "key",
                           mtb_jstr(s, "series"), "label", label, "metric", m->name, "unit", m->unit, "better",
                           m->better == MTB_CP_HIGHER ? "higher" : "lower", "platform", mtb_jstr(s, "platform"),
                           "host", mtb_jstr(s, "host"), "emulated", pt.emulated, "points", (int)pt.n, "x", xs, "y", ys,
                           "changes", changes);
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
static json_t *busy_nights(json_t *nights, int *excluded_out)
{
    json_t *busy = json_array();
    size_t i;
    json_t *n;
    int quiet = 0;
    json_array_foreach(nights, i, n) {
        quiet |= json_is_true(json_object_get(n, "quiet"));
        if (json_is_false(json_object_get(n, "quiet")))
            json_array_append_new(busy, json_integer(json_integer_value(json_object_get(n, "id"))));
    }
    *excluded_out = quiet && json_array_size(busy);
    json_array_foreach(nights, i, n) if (json_is_false(json_object_get(n, "quiet")))
        json_object_set_new(n, "busy", json_string(quiet ? "kept out of the change-point test"
                                                         : "compared: no night was quiet"));
    return busy;
}

json_t *mtb_nightly_analyse(json_t *history, const struct mtb_cp_opts *o, json_t *exclude)
{
    json_t *nights = collect_nights(history, exclude);
    int busy_out = 0;
    json_t *busy = busy_nights(nights, &busy_out);
    json_t *out = json_pack("{s:o,s:[],s:[],s:o,s:b}", "nights", nights, "series", "open", "busy_nights", busy,
                            "busy_excluded", busy_out);
    /* the nights the change-point test leaves out: those asked, and the busy ones when some night was quiet */
    json_t *skip = json_array();
    if (exclude)
        json_array_extend(skip, exclude);
    if (busy_out)
        json_array_extend(skip, busy);
    json_t *all = json_object_get(out, "series"), *open = json_object_get(out, "open");
    size_t i;
    json_t *s;
    int sid = 0;
    struct metric metrics[MTB_NRUN_METRICS + MTB_NPAIR_METRICS + 3 + MTB_NWORK];
    analysed_metrics(metrics);
    json_array_foreach(history, i, s)
    {
        for (const struct metric *m = metrics; m->kind; m++) {
            if (strcmp(m->kind, mtb_jstr(s, "kind")))
                continue;
            /* counts are the same on a busy night: only the nights asked are left out */
            json_t *so = analyse_series(s, m, nights, strcmp(m->kind, "work") ? skip : exclude, o, sid + 1, open);
            if (so) {
                sid++;
                json_array_append_new(all, so);
            }
        }
    }
    json_decref(skip);
    return out;
}

