/* bisect_cli.c - `mtebench bisect --good REF --bad REF --service S [RUN
 * OPTIONS] [options]`: its options into a struct mtb_bisect_opts, the
 * others handed to every build and run (bisect/bisect.c searches). */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "bisect/bisect.h"
#include "lib/opttab.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_GOOD = 1, O_BAD, O_REPO, O_AXIS, O_METRIC, O_REPS, O_ADD_REPS, O_MAX_REPS, O_REFRESH, O_MIN_CHANGE,
       O_MAX_TIME, O_OUT, O_HISTORY, O_HELP };

static const struct mtb_opt own[] = {
    MTB_OPT("good", "REF", "GOOD", O_GOOD, NULL, "the commit where the metric was good"),
    MTB_OPT("bad", "REF", "BAD", O_BAD, NULL, "the commit where it was bad"),
    MTB_OPT("repo", "DIR", "REPO", O_REPO, NULL, "the git repository searched (default: this checkout)"),
    MTB_OPT("axis", "A", "AXIS", O_AXIS, NULL,
            "what is bisected: service (default): services/S and patches/S of --repo;\n"
            "kernel: the commits of the kernel git tree --repo, each built as\n"
            "KERNEL=git:REPO@COMMIT and run under PLATFORM=vm"),
    MTB_OPT("metric", "M", "METRIC", O_METRIC, NULL, "ops_per_sec (default), p50_us, p99_us, p999_us, ..."),
    MTB_OPT("reps", "N", "REPS", O_REPS, NULL, "first runs of each revision (default 10)"),
    MTB_OPT("add-reps", "N", NULL, O_ADD_REPS, NULL, "runs added to each side of an undecided comparison (default 10)"),
    MTB_OPT("max-reps", "N", "MAX_REPS", O_MAX_REPS, NULL, "at most N runs of a revision (default 40)"),
    MTB_OPT("refresh", "N", NULL, O_REFRESH, NULL, "runs of each neighbour interleaved with a new revision's (default 2)"),
    MTB_OPT("min-change", "P", "MIN_CHANGE", O_MIN_CHANGE, NULL, "the regression sought at least, e.g. 5% (default 5%)"),
    MTB_OPT("max-time", "T", "MAX_TIME", O_MAX_TIME, NULL, "stop after T of runs and builds (e.g. 2h; default: none)"),
    MTB_OPT("out", "DIR", NULL, O_OUT, NULL, "report, JSON and runs (default reports/bisect-TIME)"),
    MTB_OPT("history", "WHERE", "HISTORY", O_HISTORY, NULL,
            "the history that stores the bisection and each step's samples and\n"
            "verdict: an SQLite file (default results/history.sqlite) or a\n"
            "postgresql:// URL, as the nightly's; none: not stored"),
    MTB_OPT("help", NULL, NULL, O_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const own_tabs[] = { own, NULL };

static void usage(FILE *f)
{
    fprintf(f, "usage: mtebench bisect --good REF --bad REF --service S [RUN OPTIONS] [options]\n"
               "  The commit between REF good and REF bad of the service's patch history (services/S/ and\n"
               "  patches/S/) that changed one configuration's metric; runs decided by Pinpoint's rule.\n"
               "options:\n");
    mtb_opt_help(f, own_tabs, "bisect");
    fprintf(f, "  RUN OPTIONS go to every `mtebench run` (and `build`): --variant, --mode,\n"
               "  --platform, --workload, --duration, --warmup, ... (`mtebench run --help`).\n"
               "  Exit: 0 culprit named, 4 not reproduced, 1 the search failed, 2 bad input.\n");
}

/* a fraction or a percentage below 100% (5% or 0.05) */
static int parse_pct(const char *s, double *v)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || x <= 0)
        return -1;
    if (*end == '%') {
        x /= 100;
        end++;
    }
    if (*end || x >= 1)
        return -1;
    *v = x;
    return 0;
}

static long int_opt(const char *name, const char *v, long lo, long hi)
{
    long x;
    if (mtb_parse_long(v, lo, hi, &x))
        mtb_die(2, "bisect: --%s wants a whole number from %ld to %ld, not '%s'", name, lo, hi, v);
    return x;
}

static void parse_metric(struct mtb_bisect_opts *o, const char *v)
{
    for (int i = 0; i < MTB_NRUN_METRICS; i++)
        if (!strcmp(mtb_run_metrics[i].key, v)) {
            o->metric = (enum mtb_run_metric_id)i;
            o->cfg.better = mtb_run_metrics[i].better;
            return;
        }
    mtb_die(2, "bisect: unknown metric '%s' (accepted: ops_per_sec, p50_us, p90_us, p99_us, p999_us, p9999_us)", v);
}

/* an option of run's, handed on to every build and run with its value */
static void pass_on(struct mtb_bisect_opts *o, struct mtb_optp *p)
{
    if (!strcmp(p->name, "results") || !strcmp(p->name, "build") || !strcmp(p->name, "resume"))
        mtb_die(2, "bisect: --%s is bisect's to set (runs go under --out)", p->name);
    int n = o->pass.n;
    if (mtb_cli_pass_on(p, "run", &o->pass) != 0)
        mtb_die(2, "bisect: %s (see mtebench bisect --help and mtebench run --help)", p->err);
    if (!strcmp(p->name, "service") && o->pass.n == n + 2)
        o->service = o->pass.v[n + 1];
}

static void parse(struct mtb_bisect_opts *o, int argc, char **argv)
{
    mtb_bisect_defaults(&o->cfg);
    o->metric = MTB_M_ops_per_sec;
    o->axis = "service";
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "bisect", MTB_OPT_PASS_UNKNOWN);
    int c;
    while ((c = mtb_opt_next(&p, own_tabs)) != MTB_OPT_DONE) {
        const char *v = p.val;
        switch (c) {
        case MTB_OPT_ERR: mtb_die(2, "bisect: %s", p.err);
        case MTB_OPT_UNKNOWN: pass_on(o, &p); break;
        case O_HELP: usage(stdout); exit(0);
        case O_GOOD: o->good = v; break;
        case O_BAD: o->bad = v; break;
        case O_REPO: o->repo = v; break;
        case O_AXIS: o->axis = v; break;
        case O_OUT: o->out = v; break;
        case O_HISTORY: o->history = v; break;
        case O_METRIC: parse_metric(o, v); break;
        case O_REPS: o->cfg.reps = (int)int_opt(p.name, v, 1, 1000); break;
        case O_ADD_REPS: o->cfg.add_reps = (int)int_opt(p.name, v, 1, 1000); break;
        case O_MAX_REPS: o->cfg.max_reps = (int)int_opt(p.name, v, 1, 1000); break;
        case O_REFRESH: o->cfg.refresh = (int)int_opt(p.name, v, 0, 100); break;
        case O_MIN_CHANGE:
            if (parse_pct(v, &o->cfg.min_change))
                mtb_die(2, "bisect: --min-change wants a fraction or a percentage below 100%%, e.g. 5%%, not '%s'", v);
            break;
        case O_MAX_TIME:
            if (mtb_parse_duration(v, &o->max_time) || o->max_time <= 0)
                mtb_die(2, "bisect: --max-time wants a duration, e.g. 90m or 2h, not '%s'", v);
            break;
        }
    }
    if (p.npos)
        mtb_die(2, "bisect: unexpected argument '%s' (see mtebench bisect --help)", p.pos[0]);
    mtb_opt_free(&p);
    if (!o->good || !o->bad)
        mtb_die(2, "bisect: --good REF and --bad REF are both needed (see mtebench bisect --help)");
    if (strcmp(o->axis, "service") && strcmp(o->axis, "kernel"))
        mtb_die(2, "bisect: axis '%s' is not built yet (accepted: service, kernel)", o->axis);
    if (!strcmp(o->axis, "kernel")) {
        if (!o->repo)
            mtb_die(2, "bisect: --axis kernel wants --repo, the kernel's git work tree");
        for (int k = 0; k < o->pass.n; k++)
            if (!strcmp(o->pass.v[k], "--kernel") || !strcmp(o->pass.v[k], "--platform"))
                mtb_die(2, "bisect: --axis kernel sets %s itself (vm, each commit's kernel)", o->pass.v[k]);
    }
    if (!o->service)
        mtb_die(2, "bisect: --service S is needed (the service whose patch history is searched)");
    if (o->cfg.max_reps < o->cfg.reps)
        mtb_die(2, "bisect: --max-reps (%d) is below --reps (%d)", o->cfg.max_reps, o->cfg.reps);
}

int mtb_cmd_bisect(int argc, char **argv)
{
    struct mtb_bisect_opts o = { 0 };
    parse(&o, argc, argv);
    struct mtb_err e = { 0 };
    int rc = mtb_bisect_run(&o, &e);
    mtb_argv_free(&o.pass);
    if (rc < 0)
        mtb_err_exit(&e);
    return rc;
}
