/* bisect.c - a bisection over a service's patch history or a kernel tree
 * (bisect.h); the command's options are cmd/bisect_cli.c's. */
#include "bisect/bisect.h"
#include "bisect/bisect_int.h"
#include "bisect/bisect_search.h"
#include "history/history_bisect.h"
#include "lib/jsonx.h"
#include "core/kernel_tree.h"
#include "lib/proc.h"
#include "core/record.h"
#include "core/record_outcome.h"
#include "analysis/stats.h"
#include "lib/util.h"
#include "core/workload_fields.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* ---- the search's callbacks: builds and runs of a revision ------------------------- */

static char *self_exe(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return mtb_asprintf("%s/build/mtebench", mtb_root());
    buf[n] = 0;
    return mtb_strdup(buf);
}

/* `mtebench SUB EXTRA... PASS...` at the revision's tree; the output in log */
static int child(struct mtb_bisect_ctx *c, size_t i, const char *sub, const char *extra1, const char *extra2,
                 const char *log)
{
    struct mtb_argv a = { 0 };
    char *exe = self_exe();
    mtb_argv_push(&a, exe);
    mtb_argv_push(&a, sub);
    if (extra1)
        mtb_argv_push(&a, extra1);
    if (extra2)
        mtb_argv_push(&a, extra2);
    for (int k = 0; k < c->o->pass.n; k++)
        mtb_argv_push(&a, c->o->pass.v[k]);
    if (!c->r[i].tree) { /* the kernel axis: this checkout, the commit's kernel */
        mtb_argv_push(&a, "--platform");
        mtb_argv_push(&a, "vm");
        mtb_argv_pushf(&a, "--kernel=git:%s@%s", c->o->repo, c->r[i].sha);
    }
    char *env[] = { c->r[i].tree ? mtb_asprintf("MTEBENCH_ROOT=%s", c->r[i].tree) : NULL, NULL };
    struct mtb_spawn sp = { .argv = a.v, .env_add = env[0] ? env : NULL, .log_path = log };
    int st = mtb_proc_run(&sp, 4 * 3600);
    free(env[0]);
    free(exe);
    mtb_argv_free(&a);
    return st;
}

static int over_budget(struct mtb_bisect_ctx *c)
{
    if (c->o->max_time > 0 && mtb_mono() - c->t0 > c->o->max_time) {
        snprintf(c->err, sizeof c->err, "stopped: the budget of %.0f s is spent", c->o->max_time);
        return 1;
    }
    return 0;
}

/* r[i]'s build (a kernel's when kernel) ended with wait status st: skipped
 * when it failed, else new or found in the cache, as its log says */
static int build_ended(struct mtb_bisect_ctx *c, size_t i, int st, int kernel)
{
    struct mtb_bisect_commit *r = &c->r[i];
    if (st != 0) {
        printf("bisect: r%02zu %.12s \"%s\"%s does not build (log %s): skipped (as git bisect run's 125)\n", i,
               r->sha, r->subject, kernel ? ": the kernel" : "", r->build_log);
        return BS_BUILD_SKIP;
    }
    size_t len;
    char *log = mtb_read_file(r->build_log, &len);
    r->new_build = log && strstr(log, kernel ? "mtebench: built kernel" : " built ") != NULL;
    c->new_builds += r->new_build;
    free(log);
    printf("bisect: r%02zu %.12s \"%s\": %s%s\n", i, r->sha, r->subject, kernel ? "kernel " : "",
           r->new_build ? "built" : "build cached");
    return 0;
}

/* the kernel axis: `mtebench kernel build git:REPO@COMMIT` (incremental from stock's tree) */
static int build_kernel(struct mtb_bisect_ctx *c, size_t i)
{
    struct mtb_bisect_commit *r = &c->r[i];
    char *exe = self_exe(), *spec = mtb_asprintf("git:%s@%s", c->o->repo, r->sha);
    char *argv[] = { exe, "kernel", "build", spec, NULL };
    struct mtb_spawn sp = { .argv = argv, .log_path = r->build_log };
    int st = mtb_proc_run(&sp, 4 * 3600);
    free(exe);
    free(spec);
    return build_ended(c, i, st, 1);
}

static int cb_build(void *ctx, size_t i)
{
    struct mtb_bisect_ctx *c = ctx;
    struct mtb_bisect_commit *r = &c->r[i];
    if (over_budget(c))
        return -ETIME;
    char *logdir = mtb_asprintf("%s/logs", c->outdir);
    mtb_mkdir_p(logdir);
    r->build_log = mtb_asprintf("%s/build-%02zu-%.12s.log", logdir, i, r->sha);
    free(logdir);
    if (!strcmp(c->o->axis, "kernel"))
        return build_kernel(c, i);
    int rc = mtb_bisect_make_tree(c, i);
    if (rc) {
        printf("bisect: r%02zu %.12s \"%s\": no services/%s at this revision: skipped (as git bisect run's 125)\n",
               i, r->sha, r->subject, c->o->service);
        return BS_BUILD_SKIP;
    }
    return build_ended(c, i, child(c, i, "build", NULL, NULL, r->build_log), 0);
}

static json_t *load_record(const char *dir)
{
    char *pat = mtb_asprintf("%s/*/record.json", dir);
    glob_t g;
    json_t *rec = NULL;
    if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1)
        rec = json_load_file(g.gl_pathv[0], 0, NULL);
    if (g.gl_pathc)
        globfree(&g);
    free(pat);
    return rec;
}

/* the last lines of a log, indented, on stdout */
static void log_tail(const char *path, int lines)
{
    size_t len;
    char *t = mtb_read_file(path, &len);
    if (!t)
        return;
    char *p = t + len;
    for (int n = 0; p > t && n <= lines; p--)
        n += p[-1] == '\n';
    for (char *l = strtok(p, "\n"); l; l = strtok(NULL, "\n"))
        printf("bisect:   | %s\n", l);
    free(t);
}

/* one `mtebench run`; a failed run is tried once more (a transient failure of
 * a loaded machine), its log's tail shown; two in a row end the search */
static int cb_run(void *ctx, size_t i, double *v)
{
    struct mtb_bisect_ctx *c = ctx;
    struct mtb_bisect_commit *r = &c->r[i];
    for (int attempt = 0;; attempt++) {
        if (over_budget(c))
            return -ETIME;
        int no = ++c->run_no;
        char *dir = mtb_asprintf("%s/runs/%03d-r%02zu", c->outdir, no, i), *log = mtb_asprintf("%s.log", dir);
        int ws = child(c, i, "run", "--results", dir, log), st = ws >= 0 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        json_t *rec = load_record(dir);
        struct mtb_rec_outcome out = { 0 };
        if (rec)
            mtb_rec_outcome_read(rec, &out);
        const char *status = out.status ? out.status : "";
        *v = rec ? mtb_record_metric(rec, c->o->metric) : NAN;
        int ok = st == 0 && rec && !strcmp(status, "ok") && isfinite(*v);
        if (ok) {
            if (!r->build_key)
                r->build_key = mtb_strdup(json_is_string(out.build_key) ? json_string_value(out.build_key) : "");
            json_array_append_new(c->runs, json_pack("{s:i, s:i, s:s, s:f, s:s}", "n", no, "rev", (int)i, "sha",
                                                     r->sha, "value", *v, "dir", dir));
            printf("bisect: run %3d  r%02zu %.12s  %.6g %s\n", no, i, r->sha, *v, mtb_run_metrics[c->o->metric].unit);
        } else {
            printf("bisect: run %3d  r%02zu %.12s  failed (exit status %d, record status '%s'; log %s)%s\n", no, i,
                   r->sha, st, *status ? status : "none", log, attempt ? "" : ": once more");
            log_tail(log, 6);
            snprintf(c->err, sizeof c->err, "run %d of r%02zu %.12s failed twice (record status '%s'; log %s)", no, i,
                     r->sha, *status ? status : "none", log);
        }
        json_decref(rec);
        free(dir);
        free(log);
        if (ok) {
            c->err[0] = 0;
            return 0;
        }
        if (attempt)
            return -EIO;
    }
}

static void cb_step(void *ctx, const struct mtb_bisect_step *s)
{
    struct mtb_bisect_ctx *c = ctx;
    const struct mtb_pinpoint_cmp *p = &s->c;
    size_t na = c->revs[s->a].n, nb = c->revs[s->b].n;
    printf("bisect: compare r%02zu and r%02zu (%s): %s, p %.3g (MWU %.3g, KS %.3g; same above %.3g for %.2f IQR), "
           "%zu and %zu runs\n",
           s->a, s->b, s->why, mtb_pinpoint_verdict_name(p->v), p->p, p->p_mwu, p->p_ks, p->high, p->magnitude, na, nb);
    json_t *xa = json_array(), *xb = json_array();
    for (size_t k = 0; k < na; k++)
        json_array_append_new(xa, json_real(c->revs[s->a].x[k]));
    for (size_t k = 0; k < nb; k++)
        json_array_append_new(xb, json_real(c->revs[s->b].x[k]));
    json_t *js = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:o, s:o}", "a", (int)s->a, "b",
                           (int)s->b, "sha_a", c->r[s->a].sha, "sha_b", c->r[s->b].sha, "why", s->why, "verdict",
                           mtb_pinpoint_verdict_name(p->v), "p", p->p, "p_mwu", p->p_mwu, "p_ks", p->p_ks, "high", p->high,
                           "magnitude_iqr", p->magnitude, "samples_a", xa, "samples_b", xb);
    json_array_append_new(c->steps, js);
    char err[MTB_ERRLEN];
    if (c->hist && mtb_history_bisect_step(c->hist, c->hist_id, (int)json_array_size(c->steps) - 1, js, err,
                                           sizeof err) != 0) {
        printf("bisect: warning: this step and the next are not stored in the history: %s\n", err);
        mtb_history_close(c->hist);
        c->hist = NULL;
    }
}

/* ---- the history ------------------------------------------------------------------- */

/* the history opened and the bisection's row made, before anything runs.
 * @return 0, or -1 with e set (one that cannot be used, named) */
static int history_begin(struct mtb_bisect_ctx *c, struct mtb_err *e)
{
    struct mtb_bisect_opts *o = c->o;
    if (!strcmp(o->history, "none"))
        return 0;
    char err[MTB_ERRLEN];
    int rc = mtb_history_open(o->history, &c->hist, NULL, err, sizeof err);
    if (!rc) {
        json_t *pass = json_array();
        for (int k = 0; k < o->pass.n; k++)
            json_array_append_new(pass, json_string(o->pass.v[k]));
        json_t *b = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "axis", o->axis, "repo", o->repo, "service",
                              o->service, "metric", mtb_run_metrics[o->metric].key, "better",
                              o->cfg.better > 0 ? "higher" : "lower", "good", c->r[0].sha, "bad", c->r[c->n - 1].sha,
                              "run_options", pass);
        rc = mtb_history_bisect_begin(c->hist, b, &c->hist_id, err, sizeof err);
        json_decref(b);
    }
    if (rc) {
        char *shown = mtb_history_redact(o->history);
        mtb_err_set(e, MTB_ERR_INPUT, "bisect: the history %s cannot be used: %s (--history none: the bisection is "
                    "not stored)", shown, err);
        free(shown);
    }
    return rc ? -1 : 0;
}

/* the bisection's outcome in its row; the history closed */
static void history_end(struct mtb_bisect_ctx *c, json_t *j)
{
    if (!c->hist)
        return;
    char err[MTB_ERRLEN], *report = mtb_asprintf("%s/report.md", c->outdir), *shown = mtb_history_redact(c->o->history);
    if (mtb_history_bisect_end(c->hist, c->hist_id, j, report, err, sizeof err) != 0)
        printf("bisect: warning: the outcome is not stored in the history: %s\n", err);
    else
        printf("bisect: stored in the history %s: bisection %lld, %zu steps\n", shown, c->hist_id,
               json_array_size(c->steps));
    free(report);
    free(shown);
    mtb_history_close(c->hist);
    c->hist = NULL;
}

/* ---- the command ------------------------------------------------------------------- */

static void print_outcome(struct mtb_bisect_ctx *c, const struct mtb_bisect_result *res, double secs)
{
    const char *unit = mtb_run_metrics[c->o->metric].unit;
    if (c->err[0])
        printf("bisect: FAILED: %s\n", c->err);
    else if (res->outcome == BS_NOT_REPRODUCED)
        printf("bisect: not reproduced: %s\n", res->why);
    else if (res->outcome != BS_FOUND)
        printf("bisect: FAILED: %s\n", res->why);
    for (size_t k = 0; k < res->nculprits && !c->err[0]; k++) {
        const struct mtb_bisect_culprit *u = &res->culprits[k];
        const struct mtb_bisect_rev *g = &c->revs[u->good], *b = &c->revs[u->bad];
        printf("bisect: culprit%s r%02zu %.12s \"%s\": %s %.6g -> %.6g %s, %+.1f%% [%+.1f%%, %+.1f%%] (p %.3g; %zu and "
               "%zu runs)\n",
               res->nculprits > 1 ? " (one of two changes)" : "", u->bad, c->r[u->bad].sha, c->r[u->bad].subject,
               mtb_run_metrics[c->o->metric].key, mtb_stats_median(g->x, g->n), mtb_stats_median(b->x, b->n), unit,
               100 * u->effect, 100 * u->lo, 100 * u->hi, u->c.p, g->n, b->n);
        if (u->skipped)
            printf("bisect:   or one of the %zu revisions before it that did not build (r%02zu..r%02zu)\n", u->skipped,
                   u->good + 1, u->bad - 1);
    }
    printf("bisect: %zu revisions in the range, %d tested, %d builds (%d new, %d did not build), %d runs, %.0f s\n",
           c->n, res->tested, res->builds, c->new_builds, res->skipped, res->runs, secs);
}

/* What comes before the first build: the range's revisions, the kernel
 * tree checked (axis kernel), the history's row, the output directory.
 * @return 0, or -1 with e set */
static int bisect_begin(struct mtb_bisect_ctx *c, struct mtb_err *e)
{
    const struct mtb_bisect_opts *o = c->o;
    int st;
    free(mtb_bisect_git(o->repo, &st, (const char *[]){ "rev-parse", "--git-dir", NULL }));
    if (st)
        return mtb_err_set(e, MTB_ERR_INPUT, "bisect: %s is not a git repository (--repo)", o->repo);
    if (mtb_bisect_revisions(c, e) != 0)
        return -1;
    if (!strcmp(o->axis, "kernel")) { /* the tree checked once, before anything is built */
        struct mtb_ktree t;
        char kerr[512], *spec = mtb_asprintf("git:%s@%s", o->repo, c->r[0].sha);
        int krc = mtb_ktree_parse(spec, &t, kerr, sizeof kerr);
        free(spec);
        if (krc < 0)
            return mtb_err_set(e, MTB_ERR_INPUT, "bisect: %s", kerr);
        mtb_ktree_free(&t);
    }
    if (history_begin(c, e) != 0)
        return -1;
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    c->outdir = o->out ? mtb_strdup(o->out) : mtb_asprintf("%s/bisect-%s", mtb_reports_dir(), ts);
    char *runs = mtb_asprintf("%s/runs", c->outdir);
    int mrc = mtb_mkdir_p(c->outdir);
    mrc = mrc ? mrc : mtb_mkdir_p(runs);
    if (mrc)
        mtb_err_set(e, MTB_ERR_INPUT, "bisect: cannot create %s: %s", runs, mtb_errdesc(mrc));
    free(runs);
    return e->code ? -1 : 0;
}

int mtb_bisect_run(struct mtb_bisect_opts *op, struct mtb_err *e)
{
    struct mtb_bisect_opts o = *op;
    if (!o.repo)
        o.repo = mtb_root();
    char *def_hist = mtb_asprintf("%s/history.sqlite", mtb_results_dir());
    if (!o.history)
        o.history = def_hist;
    struct mtb_bisect_ctx c = { .o = &o, .steps = json_array(), .runs = json_array() };
    if (bisect_begin(&c, e) != 0) {
        if (c.hist)
            mtb_history_close(c.hist);
        json_decref(c.steps);
        json_decref(c.runs);
        free(def_hist);
        return -1;
    }
    if (!strcmp(o.axis, "kernel"))
        printf("bisect: %zu revisions of the kernel tree %s, %.12s (good) .. %.12s (bad), %s under vm, metric %s; out "
               "%s\n", c.n, o.repo, c.r[0].sha, c.r[c.n - 1].sha, o.service, mtb_run_metrics[o.metric].key, c.outdir);
    else
        printf("bisect: %zu revisions of services/%s and patches/%s, %.12s (good) .. %.12s (bad), metric %s; out %s\n",
               c.n, o.service, o.service, c.r[0].sha, c.r[c.n - 1].sha, mtb_run_metrics[o.metric].key, c.outdir);
    c.revs = mtb_calloc(c.n, sizeof *c.revs);
    struct mtb_bisect_ops ops = { &c, cb_build, cb_run, cb_step };
    struct mtb_bisect_result res = { 0 };
    c.t0 = mtb_mono();
    int rc = mtb_bisect_search(c.revs, c.n, &o.cfg, &ops, &res);
    double secs = mtb_mono() - c.t0;
    if (rc && !c.err[0])
        snprintf(c.err, sizeof c.err, "%s", res.why[0] ? res.why : mtb_errdesc(-rc));
    json_t *j = mtb_bisect_result_json(&c, &res, secs);
    print_outcome(&c, &res, secs);
    int wrc = mtb_bisect_write_report(&c, j);
    history_end(&c, j);
    json_decref(j);
    /* the trees are links and two small folders; runs keep their records */
    char *trees = mtb_asprintf("%s/trees", c.outdir);
    mtb_rm_rf(trees);
    free(trees);
    int code = c.err[0] || wrc ? 1 : res.outcome == BS_FOUND ? MTB_BISECT_FOUND : MTB_BISECT_NOT_REPRODUCED;
    mtb_bisect_free(c.revs, c.n);
    free(def_hist);
    return code;
}

/* where a value of a workload key ends (mtb_workload_key: a number, a JSON
 * string, or a JSON object or array, such as params, with commas inside) */
static const char *value_end(const char *v)
{
    int depth = 0, in_str = 0;
    const char *p = v;
    for (; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
        } else if (*p == '"')
            in_str = 1;
        else if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']')
            depth--;
        else if (*p == ',' && depth <= 0)
            break;
    }
    return p;
}

/* the history's workload key (name="default",mix="1:10",conns=16,duration_s=1,...)
 * as run options: --workload NAME and the fields `run` takes by name */
static void workload_opts(FILE *f, const char *key, int name_only)
{
    /* the key's name, then each field's record key and option (core/workload_fields.h: a field added
     * there is passed on here too); a duration's value takes "s" */
    static const char *const map[][3] = {
        { "name", "workload", "" },
#define X(f, kind, key, opt, json, ...) { json, opt, #kind },
        MTB_WORKLOAD_FIELDS(X)
#undef X
    };
    const char *p = key;
    while (p && *p) {
        const char *eq = strchr(p, '=');
        if (!eq)
            break;
        char name[32], val[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
        const char *v = eq + 1, *end = value_end(v);
        if (*v == '"') /* a string: its text between the quotes */
            snprintf(val, sizeof val, "%.*s", end > v + 1 && end[-1] == '"' ? (int)(end - v - 2) : 0, v + 1);
        else if (*v == '{' || *v == '[') /* an object or array (params): no option */
            val[0] = 0;
        else
            snprintf(val, sizeof val, "%.*s", (int)(end - v), v);
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
            if (!strcmp(name, map[k][0]) && (k == 0) == name_only && *val && !strchr(val, ' ') && strcmp(val, "0"))
                fprintf(f, " --%s %s%s", map[k][1], val, !strcmp(map[k][2], "DUR") ? "s" : "");
        p = *end == ',' ? end + 1 : NULL;
    }
}

char *mtb_bisect_command(const char *good, const char *bad, const char *service, const char *variant,
                         const char *mode, const char *platform, const char *workload, const char *metric)
{
    if (!good || !bad || !service || !variant || !mode || !platform || !*good || !*bad)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "mtebench bisect --good %.12s --bad %.12s --service %s --variant %s --mode %s --platform %s", good, bad,
            service, variant, mode, platform);
    if (workload && strchr(workload, '=')) {
        workload_opts(f, workload, 1); /* --workload first: the fields override its values */
        workload_opts(f, workload, 0);
    }
    else if (workload && *workload)
        fprintf(f, " --workload %s", workload);
    fprintf(f, " --metric %s", metric ? metric : "ops_per_sec");
    fclose(f);
    return buf;
}

int mtb_bisect_proposed(const struct mtb_nightly_change *changes, size_t n, const char *out, double budget,
                        const char *history)
{
    double t0 = mtb_mono();
    int found = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *cmd = changes[i].bisect;
        if (!*cmd)
            continue;
        double left = budget - (mtb_mono() - t0);
        if (left < 60) {
            printf("nightly: bisect budget spent; not run: %s\n", cmd);
            continue;
        }
        struct mtb_argv a = { 0 };
        mtb_argv_split(&a, cmd);
        if (a.n < 2) {
            mtb_argv_free(&a);
            continue;
        }
        free(a.v[0]);
        a.v[0] = self_exe();
        char *dir = mtb_asprintf("%s/bisect-%d", out, ++k), *log = mtb_asprintf("%s.log", dir);
        mtb_argv_pushf(&a, "--max-time=%.0f", left);
        mtb_argv_pushf(&a, "--out=%s", dir);
        if (history)
            mtb_argv_pushf(&a, "--history=%s", history);
        printf("nightly: bisecting %s (at most %.0f s; log %s)\n", changes[i].label, left, log);
        struct mtb_spawn sp = { .argv = a.v, .log_path = log };
        int ws = mtb_proc_run(&sp, left + 600), st = ws >= 0 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        printf("nightly: bisect %d: %s (report %s/report.md)\n", k,
               st == MTB_BISECT_FOUND ? "culprit named" : st == MTB_BISECT_NOT_REPRODUCED ? "not reproduced" : "failed",
               dir);
        found += st == MTB_BISECT_FOUND;
        free(dir);
        free(log);
        mtb_argv_free(&a);
    }
    return found;
}
