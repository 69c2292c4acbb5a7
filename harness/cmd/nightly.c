/* nightly.c - see nightly.h */
#include "lib/jsonx.h"
#include "cmd/nightly.h"
#include "cmd/capacity_cli.h"
#include "bisect/bisect.h"
#include "report/prom.h"
#include "analysis/summary.h"
#include "cmd/cli.h"
#include "report/dashboard.h"
#include "history/history.h"
#include "history/history_views.h"
#include "plan/plan.h"
#include "core/record.h"
#include "report/report.h"
#include "lib/util.h"
#include "lib/files.h"

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the lower median of v (n > 0; sorts v) */
static double lower_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
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

/* a regression's `bisect` command between the mtebench revisions of the
 * nights before and after it (a `git describe`, "-dirty" dropped); the metric
 * of an overhead series is the tagged runs' throughput */
static void propose_bisect(json_t *ch, json_t *s, const char *metric)
{
    json_t *rb = json_object_get(ch, "revisions_before"), *ra = json_object_get(ch, "revisions_after");
    char *good = mtb_strdup(mtb_jstr(rb, "mtebench_version")), *bad = mtb_strdup(mtb_jstr(ra, "mtebench_version"));
    char *wl = mtb_strdup(mtb_jstr(s, "workload"));
    for (char **v = (char *[]){ good, bad, NULL }; *v; v++) {
        size_t n = strlen(*v);
        if (n > 6 && !strcmp(*v + n - 6, "-dirty"))
            (*v)[n - 6] = 0;
    }
    const char *bm = !strcmp(metric, "p99") ? "p99_us" : "ops_per_sec";
    char *cmd = NULL;
    if (*good && *bad && strcmp(good, "unknown") && strcmp(bad, "unknown") && strcmp(good, bad))
        cmd = mtb_bisect_command(good, bad, mtb_jstr(s, "service"), mtb_jstr(s, "variant"), mtb_jstr(s, "mode"),
                                 mtb_jstr(s, "platform"), *wl ? wl : NULL, bm);
    if (cmd)
        json_object_set_new(ch, "bisect", json_string(cmd));
    free(cmd);
    free(good);
    free(bad);
    free(wl);
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
    struct mtb_cp *cps = NULL;
    size_t ncp = 0;
    int rc = pt.n ? mtb_cp_detect(pt.y, pt.g, pt.n, m->better, o, &cps, &ncp) : 0;
    for (size_t k = 0; rc == 0 && k < ncp; k++) {
        json_t *ch = change_json(&cps[k], s, m, id, label, &pt, k == ncp - 1);
        int machine = cps[k].regression && machine_change(ch, nights, &pt, cps[k].index);
        if (cps[k].regression && !machine && strcmp(m->kind, "capacity")) /* bisect measures closed-loop runs */
            propose_bisect(ch, s, m->name);
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
    struct metric metrics[MTB_NRUN_METRICS + MTB_NPAIR_METRICS + 3];
    analysed_metrics(metrics);
    json_array_foreach(history, i, s)
    {
        for (const struct metric *m = metrics; m->kind; m++) {
            if (strcmp(m->kind, mtb_jstr(s, "kind")))
                continue;
            json_t *so = analyse_series(s, m, nights, skip, o, sid + 1, open);
            if (so) {
                sid++;
                json_array_append_new(all, so);
            }
        }
    }
    json_decref(skip);
    return out;
}

/* ---- the command ------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtebench nightly [--plan FILE] [--history WHERE] [--out DIR] [--threshold P] [--min-change F]\n"
            "                        [--window N] [--ingest DIR...] [plan options: --platform, --reps, --duration,\n"
            "                        --warmup, --results, --machine, ...]\n"
            "  Runs the plan (default configs/nightly.conf), appends its runs to the history, tests every\n"
            "  series (configuration x throughput, p99, overhead) for change points and writes the\n"
            "  dashboard (OUT/index.html) and a digest (OUT/digest.md).\n"
            "  --plan FILE        the plan to run (default configs/nightly.conf)\n"
            "  --ingest DIR...    do not run: add these result directories (one night each) instead\n"
            "  --history WHERE    the history: an SQLite file (default results/history.sqlite), or a\n"
            "                     PostgreSQL URL postgresql://[user[:password]@][host][:port]/db[?...]\n"
            "                     for several machines writing to one store (the password is never\n"
            "                     printed; PGPASSFILE or PGPASSWORD keep it off the command line)\n"
            "  --out DIR          dashboard directory (default reports/nightly)\n"
            "  --threshold P      significance: p below P (default 0.001)\n"
            "  --min-change F     smallest relative change that is a regression (default 0.02 = 2%%)\n"
            "  --window N         nights compared either side of a change (default 20)\n"
            "  --bisect           run the bisection each new regression proposes (docs/BISECT.md), unattended,\n"
            "                     reports under OUT/bisect-N/; --bisect-budget T: at most T for all (default 2h)\n"
            "  --prom-textfile DIR  the night's figures as DIR/mtebench-nightly.prom (Prometheus text\n"
            "                     format, for node_exporter's textfile collector; docs/FORMATS.md)\n"
            "Exit status: 0 no new regression, 3 a new regression is confirmed, 1 runs failed or a file\n"
            "could not be written, 2 bad usage, 4 the history cannot be used (corrupt, foreign, newer).\n");
}

/* Add the records of one results directory as one night, with its run
 * report (built from the records in memory). @return night id, 0 if nothing
 * new, <0 error */
static long long add_set(struct mtb_history *h, const struct mtb_record_set *set, json_t *caps, const char *dir,
                         const char *plan_name, const char *out, int *added, int *bad)
{
    *added = 0;
    size_t i;
    json_t *b;
    json_array_foreach(set->bad, i, b)
    {
        fprintf(stderr, "mtebench nightly: %s: %s\n", mtb_jstr(b, "file"), mtb_jstr(b, "problem"));
        (*bad)++;
    }
    if (!json_array_size(set->records) && !json_array_size(caps))
        return -ENODATA;
    const char *plan = plan_name;
    if (!plan || !*plan)
        plan = json_array_size(set->records)
                   ? mtb_jstr(json_object_get(json_array_get(set->records, 0), "config"), "plan")
                   : mtb_jstr(json_array_get(caps, 0), "plan");
    /* the night's run report, linked from the dashboard */
    char *s = mtb_strdup(dir);
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = 0;
    const char *base = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
    char *nights_dir = mtb_asprintf("%s/nights", out), *rdir = NULL, err[MTB_ERRLEN], *report = NULL;
    json_t *sum = mtb_summary_build(set->records);
    if (json_array_size(caps)) /* the capacity searches: in the night's report and its textfile */
        json_object_set(sum, "capacity", caps);
    if (mtb_record_usable(set) &&
        mtb_report_write(set, sum, NULL, base, nights_dir, &rdir, NULL, err, sizeof err) == 0)
        report = mtb_asprintf("%s/index.html", rdir);
    else if (mtb_record_usable(set))
        mtb_warn("nightly: no run report for %s: %s", dir, err);
    else if (json_array_size(caps)) /* capacity searches alone: the first one's page */
        report = mtb_asprintf("%s/capacity.html", mtb_jstr(json_array_get(caps, 0), "dir"));
    if (mtb_prom_dir && (mtb_record_usable(set) || json_array_size(caps))) /* --prom-textfile: the night's figures */
        mtb_prom_after("nightly", sum);
    json_decref(sum);
    long long night = 0;
    int rc = mtb_history_add_night(h, *plan ? plan : "ingested", dir, report, set->records, set->files, caps, &night,
                                   added, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mtebench nightly: %s\n", err);
        night = rc;
    }
    free(report);
    free(rdir);
    free(nights_dir);
    free(s);
    return night;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

struct nightly_args {
    const char *plan_path, *history, *out;
    struct mtb_cp_opts cpo;
    json_t *ingest; /* result directories to add instead of running */
    char **rest;    /* the plan's options, for mtb_cli_parse */
    int nrest;
    char *def_hist, *def_out, *def_plan;
    double bisect_budget; /* --bisect: seconds for the proposed bisections; 0: none */
};

/* one option with a value; @return 1 if a was one */
static int option_value(struct nightly_args *na, const char *a, const char *v)
{
    if (strcmp(a, "--plan") && strcmp(a, "--history") && strcmp(a, "--out") && strcmp(a, "--threshold") &&
        strcmp(a, "--min-change") && strcmp(a, "--window") && strcmp(a, "--prom-textfile"))
        return 0;
    if (!v)
        mtb_die(MTB_NIGHTLY_USAGE, "nightly: %s needs a value", a);
    if (!strcmp(a, "--prom-textfile"))
        mtb_prom_set_dir(v);
    long w;
    if (!strcmp(a, "--plan"))
        na->plan_path = v;
    else if (!strcmp(a, "--history"))
        na->history = v;
    else if (!strcmp(a, "--out"))
        na->out = v;
    else if (!strcmp(a, "--threshold") && parse_double(v, 1e-12, 0.5, &na->cpo.threshold))
        mtb_die(MTB_NIGHTLY_USAGE, "nightly: --threshold '%s' is not a p-value in (0, 0.5]", v);
    else if (!strcmp(a, "--min-change") && parse_double(v, 0, 10, &na->cpo.min_change))
        mtb_die(MTB_NIGHTLY_USAGE, "nightly: --min-change '%s' is not a fraction (0.02 = 2%%)", v);
    else if (!strcmp(a, "--window")) {
        if (mtb_parse_long(v, 1, 10000, &w) != 0)
            mtb_die(MTB_NIGHTLY_USAGE, "nightly: --window '%s' is not a number of nights from 1 to 10000", v);
        na->cpo.window = (size_t)w;
    }
    return 1;
}

/* @return 0, or 1 when --help was asked (usage printed) */
static int parse_args(int argc, char **argv, struct nightly_args *na)
{
    memset(na, 0, sizeof *na);
    mtb_cp_defaults(&na->cpo);
    na->ingest = json_array();
    na->rest = mtb_calloc((size_t)argc + 1, sizeof *na->rest);
    na->rest[na->nrest++] = "nightly";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--ingest")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2))
                json_array_append_new(na->ingest, json_string(argv[++i]));
            if (!json_array_size(na->ingest))
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: --ingest needs at least one result directory");
        } else if (!strcmp(a, "--bisect")) {
            na->bisect_budget = 2 * 3600;
        } else if (!strcmp(a, "--bisect-budget")) {
            if (!v || mtb_parse_duration(v, &na->bisect_budget) || na->bisect_budget <= 0)
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: --bisect-budget wants a duration, e.g. 2h, not '%s'", v ? v : "");
            i++;
        } else if (option_value(na, a, v)) {
            i++;
        } else {
            na->rest[na->nrest++] = argv[i];
        }
    }
    if (json_array_size(na->ingest) && (na->plan_path || na->nrest > 1))
        mtb_die(MTB_NIGHTLY_USAGE, "nightly: --ingest adds existing results; it takes no plan or plan options");
    na->def_hist = mtb_asprintf("%s/history.sqlite", mtb_results_dir());
    na->def_out = mtb_asprintf("%s/nightly", mtb_reports_dir());
    na->def_plan = mtb_asprintf("%s/configs/nightly.conf", mtb_root());
    if (!na->history)
        na->history = na->def_hist;
    if (!na->out)
        na->out = na->def_out;
    if (!na->plan_path)
        na->plan_path = na->def_plan;
    return 0;
}

static void args_free(struct nightly_args *na)
{
    json_decref(na->ingest);
    free(na->rest);
    free(na->def_hist);
    free(na->def_out);
    free(na->def_plan);
}

/* --ingest: each directory one night. @return a status */
static int ingest_dirs(struct mtb_history *h, const struct nightly_args *na, json_t *new_nights, int *bad)
{
    int status = MTB_NIGHTLY_OK;
    size_t i;
    json_t *d;
    json_array_foreach(na->ingest, i, d)
    {
        const char *dir = json_string_value(d);
        json_t *caps = mtb_capacity_find(dir, "mtebench nightly"), *cv;
        size_t ci;
        int search_dir = 0; /* `mtebench capacity`'s results: its runs are the search's, not a matrix's */
        json_array_foreach(caps, ci, cv) search_dir |= !strcmp(mtb_jstr(cv, "dir"), dir);
        struct mtb_record_set set;
        char *dirs[1] = { (char *)dir };
        if (mtb_record_load(dirs, search_dir ? 0 : 1, &set) != 0)
            mtb_die(MTB_NIGHTLY_ERROR, "nightly: out of memory");
        if (!json_array_size(set.records) && json_array_size(caps)) { /* a plan's searches alone: no matrix runs */
            mtb_record_set_free(&set);
            if (mtb_record_load(dirs, 0, &set) != 0)
                mtb_die(MTB_NIGHTLY_ERROR, "nightly: out of memory");
        }
        int added = 0;
        long long night = add_set(h, &set, caps, dir, NULL, na->out, &added, bad);
        mtb_record_set_free(&set);
        json_decref(caps);
        if (night == -ENODATA) {
            fprintf(stderr, "mtebench nightly: %s: no run records and no capacity results\n", dir);
            status = MTB_NIGHTLY_USAGE;
        } else if (night < 0) {
            status = MTB_NIGHTLY_HISTORY;
        } else if (night == 0) {
            fprintf(stderr, "mtebench nightly: %s: already in the history\n", dir);
        } else {
            fprintf(stderr, "mtebench nightly: %s: night %lld, %d runs\n", dir, night, added);
            json_array_append_new(new_nights, json_integer(night));
        }
    }
    return status;
}

/* Run the plan and add its records (in memory) as one night. @return a status */
static int run_plan(struct mtb_history *h, const struct nightly_args *na, json_t *new_nights, int *failures, int *bad)
{
    struct mtb_opts o;
    mtb_cli_parse(na->nrest, na->rest, &o, "nightly");
    struct mtb_plan plan;
    mtb_plan_load(&plan, na->plan_path, &o);
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    char *dir = o.results ? mtb_strdup(o.results) : mtb_asprintf("%s/%s-%s", mtb_results_dir(), ts, plan.name);
    char nreps[32];
    mtb_reps_text(nreps, sizeof nreps, plan.reps);
    fprintf(stderr, "mtebench nightly: plan %s: %zu configurations x %s reps and %zu capacity searches on %s%s, "
            "results in %s\n", plan.name, plan.ncells, nreps, plan.ncaps, plan.platform->name,
            mtb_platform_emulated(plan.platform) ? " (emulated: not hardware timing)" : "", dir);
    json_t *files = json_array();
    json_t *records = plan.ncells ? mtb_plan_run(&plan, dir, o.force, failures, files) : json_array();
    int cstatus = 0; /* the entries with an slo: each a capacity search into dir/capacity-ENTRY */
    json_t *caps = mtb_capacity_entries(&plan, dir, o.force, stdout, &cstatus);
    *failures += cstatus != 0;
    struct mtb_record_set set;
    if (mtb_record_set_from(records, files, dir, &set) != 0)
        mtb_die(MTB_NIGHTLY_ERROR, "nightly: out of memory");
    int added = 0, status = MTB_NIGHTLY_OK;
    long long night = add_set(h, &set, caps, dir, plan.name, na->out, &added, bad);
    json_decref(caps);
    if (night > 0)
        json_array_append_new(new_nights, json_integer(night));
    else if (night < 0 && night != -ENODATA)
        status = MTB_NIGHTLY_HISTORY;
    mtb_plan_print_failed("mtebench nightly", plan.failed, (int)(plan.ncells * plan.reps));
    mtb_record_set_free(&set);
    json_decref(records);
    json_decref(files);
    free(dir);
    return status;
}

/* the regressions open now and not open before this invocation's nights */
static json_t *new_regressions(json_t *now, json_t *before)
{
    json_t *fresh = json_array();
    size_t i, j;
    json_t *r, *q;
    json_array_foreach(json_object_get(now, "open"), i, r)
    {
        int known = 0;
        json_array_foreach(json_object_get(before, "open"), j, q) known |=
            !strcmp(mtb_jstr(r, "series"), mtb_jstr(q, "series")) && !strcmp(mtb_jstr(r, "metric"), mtb_jstr(q, "metric")) &&
            json_integer_value(json_object_get(r, "night")) == json_integer_value(json_object_get(q, "night"));
        if (!known)
            json_array_append(fresh, r);
    }
    return fresh;
}

/* Analyse the history, write the dashboard, print the digest.
 * @return MTB_NIGHTLY_REGRESSION if a new regression is confirmed, MTB_NIGHTLY_ERROR
 *         if the dashboard cannot be written, MTB_NIGHTLY_HISTORY, else 0 */
static int analyse(struct mtb_history *h, const struct nightly_args *na, json_t *new_nights, const char *shown)
{
    char err[MTB_ERRLEN];
    json_t *hist = NULL;
    if (mtb_history_load(h, &hist, err, sizeof err) != 0) {
        fprintf(stderr, "mtebench nightly: %s\n", err);
        return MTB_NIGHTLY_HISTORY;
    }
    long long nnights = mtb_history_nights(h, err, sizeof err);
    json_t *now = mtb_nightly_analyse(hist, &na->cpo, NULL);
    json_t *before = mtb_nightly_analyse(hist, &na->cpo, new_nights);
    json_t *fresh = new_regressions(now, before);
    int status = json_array_size(fresh) ? MTB_NIGHTLY_REGRESSION : MTB_NIGHTLY_OK;
    json_object_set_new(now, "new", fresh);
    json_object_set(now, "new_nights", new_nights);
    char gen[32];
    mtb_utc_iso(gen, sizeof gen);
    json_object_set_new(now, "settings",
                        json_pack("{s:f,s:f,s:I,s:I,s:s,s:s,s:I,s:s}", "threshold", na->cpo.threshold, "min_change",
                                  na->cpo.min_change, "window", (json_int_t)na->cpo.window, "min_points",
                                  (json_int_t)na->cpo.min_points, "history", shown, "generated", gen, "nights",
                                  (json_int_t)nnights, "version", MTEBENCH_VERSION));
    char *digest = NULL;
    if (mtb_dashboard_write(now, na->out, &digest, err, sizeof err) != 0) {
        fprintf(stderr, "mtebench nightly: %s\n", err);
        status = status ? status : MTB_NIGHTLY_ERROR;
    }
    if (digest)
        fputs(digest, stdout);
    /* the views dashboards read (contrib/grafana/, contrib/otava/), the change points and the digest */
    if (mtb_history_views_update(h, now, digest, err, sizeof err) != 0) {
        fprintf(stderr, "mtebench nightly: the history's views: %s\n", err);
        status = status ? status : MTB_NIGHTLY_ERROR;
    }
    printf("\ndashboard: %s/index.html\ndigest:    %s/digest.md\nhistory:   %s (%lld nights)\n", na->out, na->out,
           shown, nnights);
    if (na->bisect_budget > 0)
        mtb_bisect_proposed(json_object_get(now, "new"), na->out, na->bisect_budget, na->history);
    free(digest);
    json_decref(now);
    json_decref(before);
    json_decref(hist);
    return status;
}

int mtb_cmd_nightly(int argc, char **argv)
{
    struct nightly_args na;
    if (parse_args(argc, argv, &na)) {
        args_free(&na);
        return 0;
    }
    /* the history first: a broken one stops the night before anything runs.
     * Only its redacted form (no password) is ever printed or written. */
    char *shown = mtb_history_redact(na.history);
    char err[MTB_ERRLEN];
    struct mtb_history *h = NULL;
    int created = 0, rc = mtb_history_open(na.history, &h, &created, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mtebench nightly: %s\n", err);
        free(shown);
        args_free(&na);
        return rc == -EINVAL ? MTB_NIGHTLY_USAGE : MTB_NIGHTLY_HISTORY;
    }
    if (created)
        fprintf(stderr, "mtebench nightly: new history %s (%s)\n", shown, mtb_history_backend(h));
    if (mtb_mkdir_p(na.out) != 0)
        mtb_die(MTB_NIGHTLY_ERROR, "nightly: cannot create %s", na.out);
    json_t *new_nights = json_array();
    int failures = 0, bad = 0;
    int status = json_array_size(na.ingest) ? ingest_dirs(h, &na, new_nights, &bad)
                                            : run_plan(h, &na, new_nights, &failures, &bad);
    int astatus = analyse(h, &na, new_nights, shown);
    mtb_history_close(h);
    if (astatus == MTB_NIGHTLY_HISTORY)
        status = astatus;
    else if (astatus == MTB_NIGHTLY_REGRESSION)
        status = MTB_NIGHTLY_REGRESSION;
    else if (astatus == MTB_NIGHTLY_ERROR)
        status = status ? status : MTB_NIGHTLY_ERROR;
    else if (!status && (failures || bad))
        status = MTB_NIGHTLY_ERROR;
    json_decref(new_nights);
    free(shown);
    args_free(&na);
    return status;
}
