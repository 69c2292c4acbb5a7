/* nightly.c - see nightly.h */
#include "lib/jsonx.h"
#include "cmd/nightly.h"
#include "core/capacity_rows.h"
#include "core/nightly_rows.h"
#include "analysis/nightly_analyse.h"
#include "cmd/commands.h"
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
#include "core/work.h"
#include "report/report.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the command ------------------------------------------------------------------- */

enum { N_PLAN = 1, N_HISTORY, N_OUT, N_THRESHOLD, N_MIN_CHANGE, N_WINDOW, N_INGEST, N_BISECT, N_BISECT_BUDGET, N_PROM,
       N_HELP };
static const struct mtb_opt own[] = {
    MTB_OPT("plan", "FILE", "NIGHTLY_PLAN", N_PLAN, NULL, "the plan to run (default configs/nightly.conf)"),
    MTB_OPT("ingest", NULL, NULL, N_INGEST, NULL,
            "do not run: add the result directories given as arguments (one\n"
            "night each) instead: nightly --ingest DIR..."),
    MTB_OPT("history", "WHERE", "HISTORY", N_HISTORY, NULL,
            "the history: an SQLite file (default results/history.sqlite), or a\n"
            "PostgreSQL URL postgresql://[user[:password]@][host][:port]/db[?...]\n"
            "for several machines writing to one store (the password is never\n"
            "printed; PGPASSFILE or PGPASSWORD keep it off the command line)"),
    MTB_OPT("out", "DIR", NULL, N_OUT, NULL, "dashboard directory (default reports/nightly)"),
    MTB_OPT("threshold", "P", NULL, N_THRESHOLD, NULL, "significance: p below P (default 0.001)"),
    MTB_OPT("min-change", "F", NULL, N_MIN_CHANGE, NULL, "smallest relative change that is a regression (default 0.02 = 2%)"),
    MTB_OPT("window", "N", NULL, N_WINDOW, NULL, "nights compared either side of a change (default 20)"),
    MTB_OPT("bisect", NULL, NULL, N_BISECT, NULL,
            "run the bisection each new regression proposes (docs/BISECT.md),\n"
            "unattended, reports under OUT/bisect-N/"),
    MTB_OPT("bisect-budget", "T", NULL, N_BISECT_BUDGET, NULL, "--bisect: at most T for all (default 2h)"),
    MTB_OPT("prom-textfile", "DIR", NULL, N_PROM, NULL,
            "the night's figures as DIR/mtebench-nightly.prom (Prometheus text\n"
            "format, for node_exporter's textfile collector; docs/FORMATS.md)"),
    MTB_OPT("help", NULL, NULL, N_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const own_tabs[] = { own, NULL };

static void usage(FILE *f)
{
    fprintf(f, "usage: mtebench nightly [options] [plan options: --platform, --reps, --duration, --results, ...]\n"
               "       mtebench nightly --ingest DIR... [options]\n"
               "  Runs the plan (default configs/nightly.conf), appends its runs to the history, tests every\n"
               "  series (configuration x throughput, p99, overhead) for change points and writes the\n"
               "  dashboard (OUT/index.html) and a digest (OUT/digest.md).\n"
               "options:\n");
    mtb_opt_help(f, own_tabs, "nightly");
    fprintf(f, "plan options: those of `mtebench plan --help`.\n"
               "Exit status: 0 no new regression, 3 a new regression is confirmed, 1 runs failed or a file\n"
               "could not be written, 2 bad usage, 4 the history cannot be used (corrupt, foreign, newer).\n");
}

/* a record's plan name (config.plan; "" in records from before it was kept) */
static const char *first_plan(json_t *rec)
{
    struct mtb_rec_config c;
    mtb_rec_config_view(rec, &c);
    return c.plan;
}

/* One results directory's night: its records, capacity searches and
 * counted runs (their files), and its plan's name (NULL: the records'). */
struct night_set {
    const struct mtb_record_set *set;
    json_t *caps, *work, *work_files;
    const char *dir, *plan_name;
};

/* Add a results directory as one night, with its run report (built from
 * the records in memory) under out. @return night id, 0 if nothing new,
 * <0 error */
static long long add_set(struct mtb_history *h, const struct night_set *ns, const char *out, int *added, int *bad)
{
    const struct mtb_record_set *set = ns->set;
    json_t *caps = ns->caps, *work = ns->work, *work_files = ns->work_files;
    const char *dir = ns->dir, *plan_name = ns->plan_name;
    *added = 0;
    for (size_t i = 0; i < json_array_size(set->bad); i++) {
        struct mtb_record_bad b;
        mtb_record_bad_read(set, i, &b);
        fprintf(stderr, "mtebench nightly: %s: %s\n", b.file, b.problem);
        (*bad)++;
    }
    if (!json_array_size(set->records) && !json_array_size(caps) && !json_array_size(work))
        return -ENODATA;
    struct mtb_cap_rows cap0; /* the first search: the night's plan and page when it has no runs */
    mtb_cap_rows_read(json_array_get(caps, 0), &cap0);
    const char *plan = plan_name;
    if (!plan || !*plan)
        plan = json_array_size(set->records) ? first_plan(json_array_get(set->records, 0)) : cap0.plan;
    /* the night's run report, linked from the dashboard */
    char *s = mtb_strdup(dir);
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = 0;
    const char *base = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
    char *nights_dir = mtb_asprintf("%s/nights", out), *rdir = NULL, *report = NULL;
    json_t *sum = mtb_summary_build(set->records);
    if (json_array_size(caps)) /* the capacity searches: in the night's report and its textfile */
        json_object_set(sum, "capacity", caps);
    struct mtb_err re = { 0 };
    if (mtb_record_usable(set) && mtb_report_write(set, sum, NULL, base, nights_dir, &rdir, NULL, &re) == 0)
        report = mtb_asprintf("%s/index.html", rdir);
    else if (mtb_record_usable(set))
        mtb_warn("nightly: no run report for %s: %s", dir, re.msg);
    else if (json_array_size(caps)) /* capacity searches alone: the first one's page */
        report = mtb_asprintf("%s/capacity.html", cap0.dir);
    mtb_cap_rows_free(&cap0);
    if (mtb_prom_dir && (mtb_record_usable(set) || json_array_size(caps))) /* --prom-textfile: the night's figures */
        mtb_prom_after("nightly", sum);
    json_decref(sum);
    long long night = 0;
    struct mtb_night_in in = { .plan = *plan ? plan : "ingested", .results_dir = dir, .report = report,
                               .records = set->records, .files = set->files, .capacity = caps, .work = work,
                               .work_files = work_files };
    struct mtb_err e = { 0 };
    int rc = mtb_history_add_night(h, &in, &night, added, &e);
    if (rc) {
        fprintf(stderr, "mtebench nightly: %s\n", e.msg);
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
    struct mtb_argv rest; /* "nightly" and the plan's options, for mtb_cli_parse */
    char *def_hist, *def_out, *def_plan;
    double bisect_budget; /* --bisect: seconds for the proposed bisections; 0: none */
};

/* @return 0, or 1 when --help was asked (usage printed) */
static int parse_args(int argc, char **argv, struct nightly_args *na)
{
    memset(na, 0, sizeof *na);
    mtb_cp_defaults(&na->cpo);
    na->ingest = json_array();
    mtb_argv_push(&na->rest, "nightly");
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "nightly", MTB_OPT_PASS_UNKNOWN);
    int c, ingest = 0;
    long w;
    while ((c = mtb_opt_next(&p, own_tabs)) != MTB_OPT_DONE) {
        const char *v = p.val;
        switch (c) {
        case MTB_OPT_ERR: mtb_die(MTB_NIGHTLY_USAGE, "nightly: %s", p.err);
        case MTB_OPT_UNKNOWN: /* the plan's options, parsed again with the plan */
            if (mtb_cli_pass_on(&p, "nightly", &na->rest) != 0)
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: %s", p.err);
            break;
        case N_HELP: usage(stdout); mtb_opt_free(&p); return 1;
        case N_PLAN: na->plan_path = v; break;
        case N_HISTORY: na->history = v; break;
        case N_OUT: na->out = v; break;
        case N_INGEST: ingest = 1; break;
        case N_PROM: {
            struct mtb_err e = { 0 };
            if (mtb_prom_set_dir(v, &e) != 0)
                mtb_err_exit(&e);
            break;
        }
        case N_BISECT: na->bisect_budget = na->bisect_budget > 0 ? na->bisect_budget : 2 * 3600; break;
        case N_BISECT_BUDGET:
            if (mtb_parse_duration(v, &na->bisect_budget) || na->bisect_budget <= 0)
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: --bisect-budget wants a duration, e.g. 2h, not '%s'", v);
            break;
        case N_THRESHOLD:
            if (parse_double(v, 1e-12, 0.5, &na->cpo.threshold))
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: --threshold '%s' is not a p-value in (0, 0.5]", v);
            break;
        case N_MIN_CHANGE:
            if (parse_double(v, 0, 10, &na->cpo.min_change))
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: --min-change '%s' is not a fraction (0.02 = 2%%)", v);
            break;
        case N_WINDOW:
            if (mtb_parse_long(v, 1, 10000, &w) != 0)
                mtb_die(MTB_NIGHTLY_USAGE, "nightly: --window '%s' is not a number of nights from 1 to 10000", v);
            na->cpo.window = (size_t)w;
            break;
        }
    }
    for (int i = 0; i < p.npos; i++)
        if (ingest)
            json_array_append_new(na->ingest, json_string(p.pos[i]));
        else
            mtb_die(MTB_NIGHTLY_USAGE, "nightly: unexpected argument '%s' (result directories follow --ingest)", p.pos[i]);
    mtb_opt_free(&p);
    if (ingest && !json_array_size(na->ingest))
        mtb_die(MTB_NIGHTLY_USAGE, "nightly: --ingest needs at least one result directory");
    if (ingest && (na->plan_path || na->rest.n > 1))
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
    mtb_argv_free(&na->rest);
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
        json_array_foreach(caps, ci, cv) {
            struct mtb_cap_rows c;
            mtb_cap_rows_read(cv, &c);
            search_dir |= !strcmp(c.dir, dir);
            mtb_cap_rows_free(&c);
        }
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
        json_t *work = json_array(), *wfiles = json_array();
        mtb_work_records(dir, work, wfiles);
        if (json_array_size(work) && !json_array_size(set.records)) /* counted only: "no records" is no problem */
            json_array_clear(set.bad);
        long long night = add_set(h, &(struct night_set){ &set, caps, work, wfiles, dir, NULL }, na->out, &added, bad);
        mtb_record_set_free(&set);
        json_decref(caps);
        json_decref(work);
        json_decref(wfiles);
        if (night == -ENODATA) {
            fprintf(stderr, "mtebench nightly: %s: no run records, no capacity results and no counted runs\n", dir);
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
    mtb_cli_parse(na->rest.n, na->rest.v, &o, "nightly");
    struct mtb_plan plan;
    struct mtb_err e = { 0 };
    if (mtb_plan_load(&plan, na->plan_path, &o, &e) != 0)
        mtb_err_exit(&e);
    char *dir = o.results ? mtb_strdup(o.results) : mtb_cli_results_dir(plan.name);
    mtb_plan_banner("mtebench nightly", &plan, dir);
    json_t *files = json_array();
    json_t *records = plan.ncells ? mtb_plan_run(&plan, dir, o.force, failures, files, &e) : json_array();
    if (!records)
        mtb_err_exit(&e);
    int cstatus = 0; /* the entries with an slo: each a capacity search into dir/capacity-ENTRY */
    json_t *caps = mtb_capacity_entries(&plan, dir, o.force, stdout, &cstatus, &e);
    if (!caps)
        mtb_err_exit(&e);
    *failures += cstatus != 0;
    struct mtb_record_set set;
    if (mtb_record_set_from(records, files, dir, &set) != 0)
        mtb_die(MTB_NIGHTLY_ERROR, "nightly: out of memory");
    int added = 0, status = MTB_NIGHTLY_OK;
    long long night = add_set(h, &(struct night_set){ &set, caps, plan.work, plan.work_files, dir, plan.name }, na->out,
                              &added, bad);
    json_decref(caps);
    if (night > 0)
        json_array_append_new(new_nights, json_integer(night));
    else if (night < 0 && night != -ENODATA)
        status = MTB_NIGHTLY_HISTORY;
    mtb_plan_print_failed("mtebench nightly", &plan, (int)(plan.ncells * plan.reps));
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
    struct mtb_nightly_rows n, b;
    mtb_nightly_rows_read(now, &n);
    mtb_nightly_rows_read(before, &b);
    for (size_t i = 0; i < n.nopen; i++) {
        const struct mtb_nightly_change *r = &n.open[i];
        int known = 0;
        for (size_t j = 0; j < b.nopen; j++) {
            const struct mtb_nightly_change *q = &b.open[j];
            known |= !strcmp(r->series, q->series) && !strcmp(r->metric, q->metric) && r->night == q->night;
        }
        if (!known)
            json_array_append(fresh, r->j);
    }
    mtb_nightly_rows_free(&n);
    mtb_nightly_rows_free(&b);
    return fresh;
}

/* Each regression's `bisect` command, from what its bisection would
 * search (the analysis's bisect_from): the dashboard shows it, --bisect
 * runs it. */
static void propose_bisects(json_t *analysis)
{
    struct mtb_nightly_rows r;
    mtb_nightly_rows_read(analysis, &r);
    for (size_t i = 0; i < r.nseries; i++)
        for (size_t j = 0; j < r.series[i].nchanges; j++) {
            const struct mtb_nightly_change *ch = &r.series[i].changes[j];
            const struct mtb_bisect_from *b = &ch->bisect_from;
            if (!b->present)
                continue;
            char *cmd = mtb_bisect_command(b->good, b->bad, b->service, b->variant, b->mode, b->platform,
                                           *b->workload ? b->workload : NULL, b->metric);
            if (cmd) /* the open list holds the same change objects */
                json_object_set_new(ch->j, "bisect", json_string(cmd));
            free(cmd);
        }
    mtb_nightly_rows_free(&r);
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
    propose_bisects(now);
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
    if (na->bisect_budget > 0) {
        struct mtb_nightly_rows r; /* the new regressions, each with its bisect command (proposals above) */
        mtb_nightly_rows_read(now, &r);
        mtb_bisect_proposed(r.fresh, r.nfresh, na->out, na->bisect_budget, na->history);
        mtb_nightly_rows_free(&r);
    }
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
