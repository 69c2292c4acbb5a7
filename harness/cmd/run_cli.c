/* run_cli.c - `mtebench run`: one run (what a plan's cells, a vm guest and a
 * server host execute). */
#include "cmd/commands.h"
#include "core/record_outcome.h"
#include "report/work_table.h"
#include "cmd/cli.h"
#include "core/build.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "plan/plan.h"
#include "run/quiet.h"
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtb_cmd_run(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "run");
    if (!o.variant)
        o.variant = "plain";
    if (!o.mode)
        o.mode = "off";
    mtb_cli_resolve(&o);
    if (o.dry_run) { /* the run it would do; nothing is built or run */
        printf("run %s %s %s/%s on %s%s%s: mix %s, %ld conns, pipeline %ld, %g s\n", o.recipe->name, o.wl.name,
               o.variant, o.m->name, o.p->name, o.p->named_kernels ? ", kernel " : "",
               o.p->named_kernels ? o.kernel : "", o.wl.mix, o.wl.conns, o.wl.pipeline, o.wl.duration);
        return 0;
    }
    char err[MTB_ERRLEN];
    /* --count: the vm platform loads the plugin; its guest's run (platform
     * host there) marks the measured window; nothing else can count */
    if (o.count && strcmp(o.p->name, "vm") != 0 && strcmp(o.p->name, "host") != 0)
        mtb_die(2, "run --count counts MTE's work under the vm platform's plugin (--platform vm), not on %s "
                "(docs/COUNTING.md)", o.p->name);
    if (o.bug_trigger && !o.bug)
        mtb_die(2, "--bug-trigger %s without --bug: name the bug it triggers", o.bug_trigger);
    if (o.bug) { /* a detection trial's far run: the switch and the trigger detect sets here */
        if (!mtb_recipe_variant_bugs(o.recipe, o.variant))
            mtb_die(2, "--bug %s: variant %s of %s has no re-introduced bugs (bugs = yes: its -bugs variants)", o.bug,
                    o.variant, o.recipe->name);
        if (o.bug_trigger && !mtb_file_exists(o.bug_trigger))
            mtb_die(2, "--bug-trigger %s: no such file", o.bug_trigger);
    }
    struct mtb_build b;
    if (o.build_dir ? mtb_build_load_dir(o.recipe, o.build_dir, &b, err, sizeof err) != 0
                    : mtb_build_ensure(o.recipe, o.variant, mtb_cli_target(&o), o.force, o.quiet, &b, err, sizeof err) != 0)
        mtb_die(1, "%s", err);
    struct mtb_err ke = { 0 };
    if (mtb_opts_kernel_ensure(&o, &ke) != 0)
        mtb_err_exit(&ke);
    char *dir = o.results ? mtb_strdup(o.results) : mtb_cli_results_dir("run");
    if (o.nallocs > 1)
        mtb_die(2, "run takes one allocator (ALLOCATOR=%s names %zu): bench and plans take a list", o.allocator,
                o.nallocs);
    char lab[128];
    char *what = mtb_asprintf("001-%s-%s", mtb_variant_label(o.variant, o.allocs[0], lab, sizeof lab), o.m->name);
    char *rundir = mtb_asprintf("%s/%s", dir, what);
    /* one run: the profile's first sweep point when CORES/the profile asks for a sweep */
    struct mtb_err qe = { 0 };
    json_t *env = mtb_quiet_environment(&o.mach, o.strict, o.quiet, 0, &qe);
    if (!env)
        mtb_err_exit(&qe);
    if (o.cores || o.mach.ncores || o.mach.ntypes) {
        struct mtb_plan one;
        mtb_plan_init(&one, "run", &o);
        const struct mtb_mode *m = o.m;
        struct mtb_err e = { 0 };
        struct mtb_plan_entry en = { "run", o.recipe, &o.wl, &m, 1, NULL, 0 };
        if (mtb_plan_add(&one, &en, &e) != 0)
            mtb_err_exit(&e);
        o.wl = one.cells[0].wl; /* the first point */
    }
    struct mtb_run run = { .environment = env, .recipe = o.recipe, .variant = o.variant, .mode = o.m,
                           .allocator = o.allocs[0], .platform = o.p,
                           .kernel = o.kernel, .wl = &o.wl, .build = &b, .machine = &o.mach, .rep = 1, .index = 1,
                           .total = 1, .plan = "run", .dir = rundir, .quiet = o.quiet,
                           .external_load = o.external_load, .count = o.count,
                           .fault_report = o.fault_report, .core = o.core, .bug_switch = o.bug,
                           .trigger = o.bug_trigger };
    json_t *rec = NULL;
    enum mtb_run_status st = mtb_run_one(&run, &rec);
    if (o.json) {
        json_dumpf(rec, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
    } else if (st == MTB_RUN_OK) {
        printf("%s %s/%s on %s%s: %.0f ops/s, p50 %.0f us, p99 %.0f us, p99.9 %.0f us\n", o.recipe->name,
               lab, o.m->name, o.p->name,
               o.count ? " (counted: instrumented, not a timing)"
                       : mtb_platform_emulated(o.p) ? " (emulated: not hardware timing)" : "",
               mtb_record_num(rec, "ops_per_sec"), mtb_record_num(rec, "p50_us"),
               mtb_record_num(rec, "p99_us"), mtb_record_num(rec, "p999_us"));
    } else {
        printf("%s %s/%s on %s: %s: %s\n", o.recipe->name, lab, o.m->name, o.p->name,
               st == MTB_RUN_FAULT ? "FAULT" : "ERROR", mtb_rec_outcome_error(rec));
    }
    struct mtb_rec_outcome ro;
    mtb_rec_outcome_read(rec, &ro);
    if (!o.json && st == MTB_RUN_OK && ro.has_work)
        mtb_work_table_print(stdout, rec);
    printf("record: %s/record.json\n", rundir);
    json_decref(rec);
    json_decref(env);
    mtb_quiet_restore();
    free(what);
    free(rundir);
    free(dir);
    return st == MTB_RUN_OK ? 0 : st == MTB_RUN_FAULT ? 3 : 1;
}

