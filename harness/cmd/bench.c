/* bench.c - bench: the plan of one service and one mode against its
 * baseline (plain, off), interleaved over repetitions; and plan: a plan
 * file's matrix. */
#include "cmd/commands.h"
#include "cmd/bench_work.h"
#include "report/work_table.h"
#include "cmd/capacity_cli.h"
#include "common/duration.h"
#include "core/build.h"
#include "cmd/cli.h"
#include "plan/plan.h"
#include "lib/proc.h"
#include "run/quiet.h"
#include "report/report.h"
#include "run/run.h"
#include "core/record.h"
#include "core/record_outcome.h"
#include "core/summary_rows.h"
#include "lib/jsonx.h"
#include "report/prom.h"
#include "analysis/summary.h"
#include "report/summary_text.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "lib/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int finish(json_t *records, json_t *files, char *dir, const struct mtb_plan *plan, int total, json_t *caps);

int mtb_cmd_bench(int argc, char **argv)
{
    int failures = 0;
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "bench");
    if (!o.mode)
        mtb_die(2, "no MODE given (accepted: %s)", mtb_mode_names());
    mtb_cli_resolve(&o);
    const struct mtb_mode *off = mtb_mode_find("off");
    char why[MTB_ERRLEN];
    if (!o.p->mode_ok(off, why, sizeof why))
        mtb_die(2, "%s", why);

    /* the plan of one service and one mode against its baseline */
    struct mtb_plan plan;
    char *tag = mtb_asprintf("%s-%s", o.recipe->name, o.m->name);
    mtb_plan_init(&plan, "bench", &o);
    const char *vars[8];
    size_t nv = 0;
    if (o.variant && !(nv = mtb_plan_variants(o.recipe, o.variant, vars, 8, why, sizeof why)))
        mtb_die(2, "%s", why);
    struct mtb_err e = { 0 };
    struct mtb_plan_entry en = { "bench", o.recipe, &o.wl, &o.m, 1, vars, nv };
    if (mtb_plan_add(&plan, &en, &e) != 0)
        mtb_err_exit(&e);
    plan.adapt_runlen = o.reps == MTB_REPS_AUTO && !(o.wset.set & (1u << MTB_WL_duration)); /* runlen.c */
    mtb_opts_note_emu(&o, o.reps);
    if (o.dry_run) { /* the runs it would do; nothing is built or run */
        mtb_plan_print(&plan, stdout);
        free(tag);
        return 0;
    }
    char *dir = o.results ? mtb_strdup(o.results) : mtb_cli_results_dir(tag);
    char nreps[32];
    mtb_reps_text(nreps, sizeof nreps, o.reps);
    fprintf(stderr, "mtebench: %s: plain/off vs %s/%s on %s%s, %s reps x %g s (+%g s warm-up), results in %s\n",
            o.recipe->name, o.variant ? o.variant : "tagged", o.m->name, o.p->name,
            mtb_platform_emulated(o.p) ? " (emulated: not hardware timing)" : "", nreps, o.wl.duration, o.wl.warmup, dir);
    free(tag);
    /* without MTE hardware the timings cannot speak for MTE: its work,
     * counted exactly on vm, comes first (COUNT=0 leaves it out), once the
     * results directory is the plan's */
    struct mtb_bench_work work = { .o = &o };
    plan.before_runs = mtb_bench_work;
    plan.before_arg = &work;
    /* not finish(mtb_plan_run(..., &failures), failures): the order C evaluates arguments in is unspecified */
    json_t *files = json_array();
    json_t *records = mtb_plan_run(&plan, dir, o.force, &failures, files, &e);
    if (!records)
        mtb_err_exit(&e);
    int rc = finish(records, files, dir, &plan, (int)plan.ncells * (int)plan.reps_done, NULL);
    return rc == 0 && work.failed ? 1 : rc; /* COUNT=1 and the work could not be counted */
}

/* A plan of capacity entries alone: their results (printed and written by
 * each search), the Prometheus textfile, the status. */
static int capacity_only(const struct mtb_plan *plan, json_t *caps, int status)
{
    json_t *sum = json_pack("{s:O,s:[],s:[]}", "capacity", caps, "configs", "overheads");
    char *job = mtb_asprintf("plan-%s", plan->name);
    int unwritten = mtb_prom_after(job, sum);
    free(job);
    json_decref(sum);
    json_decref(caps);
    return status ? status : unwritten;
}

/* a plan's counted runs (`count`): each configuration's work table against
 * its entry's baseline (the plain/off counted of the same service and kernel) */
static void print_work(const struct mtb_plan *plan)
{
    size_t i, j;
    json_t *r, *b;
    json_array_foreach(plan->work, i, r)
    {
        struct mtb_rec_config c, d;
        mtb_rec_config_view(r, &c);
        if (mtb_rec_config_is_baseline(&c))
            continue;
        json_t *base = NULL;
        json_array_foreach(plan->work, j, b)
        {
            mtb_rec_config_view(b, &d);
            if (!base && mtb_rec_config_is_baseline(&d) && !strcmp(d.service, c.service) && !strcmp(d.kernel, c.kernel))
                base = b;
        }
        if (base)
            mtb_work_table_pair(stdout, base, r);
        else
            mtb_work_table_print(stdout, r);
        printf("\n");
    }
}

int mtb_cmd_plan(int argc, char **argv)
{
    /* mtebench plan FILE [options]: run a plan file from configs/ */
    if (argc < 2 || argv[1][0] == '-')
        mtb_die(2, "plan: no plan file given (e.g. configs/paper.conf)");
    const char *path = argv[1];
    struct mtb_opts o;
    argv[1] = argv[0];
    mtb_cli_parse(argc - 1, argv + 1, &o, "plan");
    struct mtb_plan plan;
    struct mtb_err e = { 0 };
    if (mtb_plan_load(&plan, path, &o, &e) != 0)
        mtb_err_exit(&e);
    mtb_opts_note_emu(&o, plan.reps);
    int failures = 0;
    if (o.dry_run) {
        mtb_plan_print(&plan, stdout);
        return 0;
    }
    char *dir = o.results ? mtb_strdup(o.results) : mtb_cli_results_dir(plan.name);
    mtb_plan_banner("mtebench", &plan, dir);
    json_t *files = json_array();
    struct mtb_err re = { 0 };
    json_t *records = plan.ncells ? mtb_plan_run(&plan, dir, o.force, &failures, files, &re) : NULL;
    if (re.code)
        mtb_err_exit(&re);
    print_work(&plan);
    if (plan.count == MTB_PLAN_COUNT_ONLY) { /* counted, nothing timed */
        printf("(%zu counted runs; the records: %s/work/)\n", json_array_size(plan.work), dir);
        json_decref(records);
        json_decref(files);
        free(dir);
        return failures ? 1 : 0;
    }
    int cstatus = 0;
    json_t *caps = mtb_capacity_entries(&plan, dir, o.force, stdout, &cstatus, &re);
    if (!caps)
        mtb_err_exit(&re);
    if (!plan.ncells) {
        json_decref(files);
        free(dir);
        return capacity_only(&plan, caps, cstatus);
    }
    int rc = finish(records, files, dir, &plan, (int)plan.ncells * (int)plan.reps_done, caps);
    return rc ? rc : cstatus;
}

/* REPS=auto: how many pairs, how long, why it stopped (printed and in summary.json) */
static void auto_outcome(const struct mtb_plan *plan, json_t *sum)
{
    const struct mtb_seq_outcome *so = &plan->seq_out;
    char el[32];
    mtb_duration_format(el, sizeof el, so->elapsed);
    printf("\nREPS=auto: %ld pairs in %s; %s\n", so->pairs, el,
           so->why == MTB_SEQ_PRECISION ? "every overhead within the precision"
           : so->why == MTB_SEQ_MAX_TIME ? "stopped at MAX_TIME: noisy machine, see warnings"
           : so->why == MTB_SEQ_MAX_REPS ? "stopped at MAX_REPS (or the most pairs MAX_TIME allows): noisy machine, see warnings"
           : so->why == MTB_SEQ_USER ? "STOPPED BY THE USER (Ctrl-C): the report above is of the pairs done, the runs "
                                       "finished are kept (exit 130)"
                                         : "interrupted");
    const struct mtb_runlen *rl = &plan->runlen_choice;
    if (plan->runlen)
        printf("REPS=auto: run length %g s for the %d pilot pairs, then %g s (%s)\n", rl->pilot_s, rl->pilot_pairs,
               rl->chosen_s, rl->why ? rl->why : "");
    json_t *sq = json_pack("{s:s,s:I,s:f,s:s,s:f,s:f,s:i,s:f}", "rule", "bonferroni over planned looks", "pairs",
                           (json_int_t)so->pairs, "elapsed_s", so->elapsed, "stopped", mtb_seq_verdict_name(so->why),
                           "precision", plan->precision, "max_time_s", plan->max_time, "looks", (int)plan->seq.nlooks,
                           "look_conf", plan->seq.look_conf);
    if (plan->runlen)
        json_object_set(sq, "run_length", plan->runlen);
    json_object_set_new(sum, "sequential", sq);
}

/* Print and write the statistics of a finished plan: the records in memory,
 * the summary and its Markdown built once. */
static int finish(json_t *records, json_t *files, char *dir, const struct mtb_plan *plan, int total, json_t *caps)
{
    int failures = (int)plan->nfailed;
    struct mtb_record_set set;
    if (mtb_record_set_from(records, files, dir, &set) != 0)
        mtb_die(1, "out of memory");
    json_t *sum = mtb_summary_build(set.records);
    if (plan->reps == MTB_REPS_AUTO && plan->seq_out.why == MTB_SEQ_USER)
        mtb_sum_overheads_stopped_by_user(sum); /* the table line says so */
    if (json_array_size(caps)) /* a plan's capacity searches: in summary.json, the report and the textfile */
        json_object_set(sum, "capacity", caps);
    json_decref(caps);
    mtb_summary_print(sum, stdout);
    if (plan->reps == MTB_REPS_AUTO)
        auto_outcome(plan, sum);
    char *sj = json_dumps(sum, JSON_INDENT(2) | JSON_SORT_KEYS);
    char *sjp = mtb_asprintf("%s/summary.json", dir);
    char *md = mtb_summary_markdown(sum);
    char *smp = mtb_asprintf("%s/summary.md", dir);
    char *repdir = mtb_strdup(mtb_reports_dir());
    mtb_mkdir_p(repdir);
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    char *rmd = mtb_asprintf("%s/%s.md", repdir, base);
    /* only what was written is listed; what was not is named with the reason */
    int nwritten = 0, unwritten = 0;
    size_t k;
    json_t *r;
    json_array_foreach(set.records, k, r) {
        struct mtb_rec_outcome o;
        mtb_rec_outcome_read(r, &o);
        nwritten += !o.not_written;
    }
    printf("\n");
    if (nwritten)
        printf("records: %s/*/record.json\n", dir);
    const char *what[] = { "summary:", "summary:", "report: " }, *paths[] = { sjp, smp, rmd }, *texts[] = { sj, md, md };
    for (int w = 0; w < 3; w++) {
        int wrc = mtb_write_atomic(paths[w], texts[w], strlen(texts[w]));
        if (wrc == 0)
            printf("%s %s\n", what[w], paths[w]);
        else {
            mtb_warn("cannot write %s: %s", paths[w], mtb_errdesc(wrc));
            unwritten = 1;
        }
    }
    /* --prom-textfile: mtebench-bench-SERVICE.prom or mtebench-plan-NAME.prom */
    struct mtb_sum_rows sr;
    mtb_sum_rows_read(sum, &sr);
    char *job = !strcmp(plan->name, "bench") ? mtb_asprintf("bench-%s", sr.nconfigs ? sr.configs[0].service : "")
                                             : mtb_asprintf("plan-%s", plan->name);
    mtb_sum_rows_free(&sr);
    unwritten |= mtb_prom_after(job, sum);
    free(job);
    /* the full report of this results dir: reports/<name>/index.html, ... */
    char *hdir = NULL;
    struct mtb_err re = { 0 };
    if (mtb_report_write(&set, sum, md, base, repdir, &hdir, NULL, &re) == 0)
        printf("html:    %s/index.html\n", hdir);
    else
        mtb_warn("no HTML report: %s", re.msg);
    free(hdir);
    mtb_plan_print_failed("mtebench", plan, total);
    if (unwritten)
        fprintf(stderr, "mtebench: some results could not be written (above): exit 1\n");
    free(sj);
    free(sjp);
    free(md);
    free(smp);
    free(rmd);
    free(repdir);
    json_decref(sum);
    mtb_record_set_free(&set);
    json_decref(records);
    json_decref(files);
    free(dir);
    /* Ctrl-C during REPS=auto: the report of the pairs done, and the status of an interrupted run */
    return mtb_proc_interrupted ? 130 : failures || unwritten ? 1 : 0;
}
