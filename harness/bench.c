/* bench.c - build, run and bench: the plan of one service and one mode
 * against its baseline (plain, off), interleaved over repetitions. */
#include "bench.h"
#include "build.h"
#include "cli.h"
#include "proc.h"
#include "run.h"
#include "summary.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *target_of(const struct mtb_opts *o)
{
    return o->target ? o->target : o->p->target();
}

int mtb_cmd_build(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "build");
    o.quiet = 1; /* no platform notice */
    if (!o.mode)
        o.mode = "off";
    mtb_cli_resolve(&o);
    char err[MTB_ERRLEN];
    int rc = 0;
    for (size_t i = 0; i < o.recipe->nvariants; i++) {
        const char *v = o.recipe->variants[i];
        if (o.variant ? strcmp(v, o.variant) != 0 : !strcmp(v, "oob"))
            continue; /* without --variant: the measured variants, not test-only ones */
        struct mtb_build b;
        if (mtb_build_ensure(o.recipe, v, target_of(&o), o.force, 0, &b, err, sizeof err) != 0) {
            mtb_warn("%s", err);
            rc = 1;
            continue;
        }
        printf("%s %s %s %s %s\n", o.recipe->name, v, target_of(&o), b.cached ? "cached" : "built", b.binary);
    }
    return rc;
}

static char *default_results(const char *what)
{
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    return mtb_asprintf("%s/results/%s-%s", mtb_root(), ts, what);
}

int mtb_cmd_run(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "run");
    if (!o.variant)
        o.variant = "plain";
    if (!o.mode)
        o.mode = "off";
    mtb_cli_resolve(&o);
    char err[MTB_ERRLEN];
    struct mtb_build b;
    if (o.build_dir ? mtb_build_load_dir(o.recipe, o.build_dir, &b, err, sizeof err) != 0
                    : mtb_build_ensure(o.recipe, o.variant, target_of(&o), o.force, o.quiet, &b, err, sizeof err) != 0)
        mtb_die(1, "%s", err);
    mtb_cli_kernel_ensure(&o);
    char *dir = o.results ? mtb_strdup(o.results) : default_results("run");
    char *what = mtb_asprintf("001-%s-%s", o.variant, o.m->name);
    char *rundir = mtb_asprintf("%s/%s", dir, what);
    struct mtb_run run = { .recipe = o.recipe, .variant = o.variant, .mode = o.m, .platform = o.p,
                           .kernel = o.kernel, .wl = &o.wl, .build = &b, .rep = 1, .index = 1,
                           .total = 1, .plan = "run", .dir = rundir, .quiet = o.quiet };
    json_t *rec = NULL;
    enum mtb_run_status st = mtb_run_one(&run, &rec);
    if (o.json) {
        json_dumpf(rec, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
    } else if (st == MTB_RUN_OK) {
        printf("%s %s/%s on %s%s: %.0f ops/s, p50 %.0f us, p99 %.0f us, p99.9 %.0f us\n", o.recipe->name,
               o.variant, o.m->name, o.p->name, mtb_platform_emulated(o.p) ? " (emulated: not hardware timing)" : "",
               mtb_record_num(rec, "ops_per_sec"), mtb_record_num(rec, "p50_us"),
               mtb_record_num(rec, "p99_us"), mtb_record_num(rec, "p999_us"));
    } else {
        printf("%s %s/%s on %s: %s: %s\n", o.recipe->name, o.variant, o.m->name, o.p->name,
               st == MTB_RUN_FAULT ? "FAULT" : "ERROR", json_string_value(json_object_get(rec, "error")));
    }
    printf("record: %s/record.json\n", rundir);
    json_decref(rec);
    free(what);
    free(rundir);
    free(dir);
    return st == MTB_RUN_OK ? 0 : st == MTB_RUN_FAULT ? 3 : 1;
}

static void fmt_eta(char *buf, size_t n, double secs)
{
    if (secs < 0)
        secs = 0;
    int s = (int)(secs + 0.5);
    if (s >= 60)
        snprintf(buf, n, "%dm%02ds", s / 60, s % 60);
    else
        snprintf(buf, n, "%ds", s);
}

int mtb_cmd_bench(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "bench");
    if (!o.mode)
        mtb_die(2, "no MODE given (accepted: %s)", mtb_mode_names());
    mtb_cli_resolve(&o);
    const struct mtb_mode *off = mtb_mode_find("off");
    char why[MTB_ERRLEN];
    if (!o.p->mode_ok(off, why, sizeof why))
        mtb_die(2, "%s", why);

    /* the plan: baseline (plain, off) and the requested (tagged, MODE) */
    struct {
        const char *variant;
        const struct mtb_mode *mode;
        struct mtb_build build;
    } cfg[2] = { { .variant = "plain", .mode = off }, { .variant = "tagged", .mode = o.m } };
    char err[MTB_ERRLEN];
    for (int i = 0; i < 2; i++)
        if (mtb_build_ensure(o.recipe, cfg[i].variant, target_of(&o), o.force, 0, &cfg[i].build, err, sizeof err) != 0)
            mtb_die(1, "%s", err);
    mtb_cli_kernel_ensure(&o);

    char *tag = mtb_asprintf("%s-%s", o.recipe->name, o.m->name);
    char *dir = o.results ? mtb_strdup(o.results) : default_results(tag);
    if (mtb_mkdir_p(dir) != 0)
        mtb_die(1, "cannot create %s", dir);
    int total = (int)o.reps * 2;
    json_t *plan = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:b}", "schema", "mtebench-plan/1", "service",
                             o.recipe->name, "mode", o.m->name, "platform", o.p->name, "kernel", o.kernel,
                             "reps", (int)o.reps, "emulated", mtb_platform_emulated(o.p));
    char *planp = mtb_asprintf("%s/plan.json", dir);
    char *pt = json_dumps(plan, JSON_INDENT(2) | JSON_SORT_KEYS);
    mtb_write_atomic(planp, pt, strlen(pt));
    free(pt);
    free(planp);
    json_decref(plan);

    fprintf(stderr, "mtebench: %s: plain/off vs tagged/%s on %s%s, %ld reps x %g s (+%g s warm-up), results in %s\n",
            o.recipe->name, o.m->name, o.p->name, mtb_platform_emulated(o.p) ? " (emulated: not hardware timing)" : "",
            o.reps, o.wl.duration, o.wl.warmup, dir);
    json_t *records = json_array();
    int tty = isatty(2), failures = 0, idx = 0;
    double t0 = mtb_mono();
    for (int rep = 1; rep <= o.reps; rep++) {
        for (int k = 0; k < 2; k++) {
            /* alternate the order (AB BA AB ...) so drift hits both alike */
            int c = (rep % 2) ? k : 1 - k;
            idx++;
            char eta[32] = "?";
            if (idx > 1)
                fmt_eta(eta, sizeof eta, (mtb_mono() - t0) / (idx - 1) * (total - idx + 1));
            else
                fmt_eta(eta, sizeof eta, total * (o.wl.duration + o.wl.warmup + (mtb_platform_emulated(o.p) ? 8 : 3)));
            fprintf(stderr, "%s[%d/%d] %s %s/%s rep %d/%ld, ETA %s ...%s", tty ? "\r\033[K" : "", idx, total,
                    o.recipe->name, cfg[c].variant, cfg[c].mode->name, rep, o.reps, eta, tty ? "" : "\n");
            char *rundir = mtb_asprintf("%s/%03d-%s-%s-rep%d", dir, idx, cfg[c].variant, cfg[c].mode->name, rep);
            struct mtb_run run = { .recipe = o.recipe, .variant = cfg[c].variant, .mode = cfg[c].mode,
                                   .platform = o.p, .kernel = o.kernel, .wl = &o.wl, .build = &cfg[c].build,
                                   .rep = rep, .index = idx, .total = total, .plan = "bench", .dir = rundir };
            json_t *rec = NULL;
            enum mtb_run_status st = mtb_run_one(&run, &rec);
            if (st == MTB_RUN_OK && tty)
                fprintf(stderr, " %.0f ops/s", mtb_record_num(rec, "ops_per_sec"));
            if (st != MTB_RUN_OK)
                failures++;
            json_array_append_new(records, rec);
            free(rundir);
        }
    }
    if (tty)
        fprintf(stderr, "\n");

    json_t *sum = mtb_summary_build(records);
    mtb_summary_print(sum, stdout);
    char *sj = json_dumps(sum, JSON_INDENT(2) | JSON_SORT_KEYS);
    char *sjp = mtb_asprintf("%s/summary.json", dir);
    mtb_write_atomic(sjp, sj, strlen(sj));
    char *md = mtb_summary_markdown(sum);
    char *smp = mtb_asprintf("%s/summary.md", dir);
    mtb_write_atomic(smp, md, strlen(md));
    char *repdir = mtb_asprintf("%s/reports", mtb_root());
    mtb_mkdir_p(repdir);
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    char *rmd = mtb_asprintf("%s/%s.md", repdir, base);
    mtb_write_atomic(rmd, md, strlen(md));
    printf("\nrecords: %s/*/record.json\nsummary: %s, %s\nreport:  %s\n", dir, sjp, smp, rmd);
    if (failures)
        fprintf(stderr, "mtebench: %d of %d runs did not finish cleanly; see the records in %s\n", failures, total, dir);
    free(sj);
    free(sjp);
    free(md);
    free(smp);
    free(rmd);
    free(repdir);
    json_decref(sum);
    json_decref(records);
    free(dir);
    free(tag);
    return failures ? 1 : 0;
}
