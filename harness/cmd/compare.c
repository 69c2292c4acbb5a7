/* compare.c - see compare.h */
#include "lib/jsonx.h"
#include "cmd/compare.h"
#include "core/compare_rows.h"
#include "cmd/commands.h"
#include "cmd/bench_work.h"
#include "analysis/seqstop.h"
#include "core/build.h"
#include "report/report.h"
#include "cmd/cli.h"
#include "core/kernel.h"
#include "plan/plan.h"
#include "lib/proc.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/summary_rows.h"
#include "run/run.h"
#include "analysis/summary.h"
#include "report/summary_text.h"
#include "lib/util.h"
#include "lib/files.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXK 8

static int split_kernels(const char *list, char names[MAXK][128])
{
    int n = 0;
    char *copy = mtb_strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && n < MAXK; t = strtok_r(NULL, ",", &save))
        snprintf(names[n++], 128, "%s", t);
    free(copy);
    return n;
}

static const char *NOTE_TCG =
    "Measured under QEMU TCG (emulated: not hardware timing). TCG performs no tag checks "
    "while SCTLR_EL1.TCF says \"no faults\", so a kernel change such as TCMA1 cannot change "
    "the cost of kernel accesses here: no difference between the kernels is expected, and "
    "any difference shown is noise. The effect of TCMA1 (about 25% of memcached's "
    "throughput on AmpereOne in the 2026 study) shows only on MTE hardware, under KVM or "
    "on bare metal. What the kernels do differently is counted exactly here: COUNT=1 prints "
    "each kernel's Tag Checked accesses per request first (docs/COUNTING.md).";
static const char *NOTE_KVM =
    "Measured under KVM on MTE hardware: the kernels ran on the real tag-checking CPU, so "
    "a difference here is a hardware effect of the kernel change (within the intervals shown).";

/* the configurations (variant/mode) in order of appearance; whether any
 * record is emulated (its platform.emulated) and the first platform */
static json_t *configs_of(json_t *records, int *emulated, json_t **plat)
{
    json_t *configs = json_array();
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        struct mtb_rec_config c;
        mtb_rec_config_view(rec, &c);
        char *cfg = mtb_asprintf("%s/%s", c.variant, c.mode);
        mtb_jadd_unique(configs, cfg);
        free(cfg);
        *emulated |= mtb_record_emulated(rec);
        struct mtb_rec_env e;
        mtb_rec_env_read(rec, &e);
        if (!*plat && e.has_platform) /* the first record's platform: name, accel, QEMU */
            *plat = json_pack("{s:s,s:s,s:s}", "name", e.platform, "accel", e.accel, "qemu", e.qemu);
        mtb_rec_env_free(&e);
    }
    return configs;
}

/* each kernel's identity, from its first record */
static json_t *kernel_identities(json_t *records, char names[MAXK][128], int nk)
{
    size_t i;
    json_t *rec;
    json_t *ks = json_array();
    for (int k = 0; k < nk; k++) {
        /* the kernel identity of its first record */
        json_t *kernel = json_pack("{s:s}", "name", names[k]);
        json_array_foreach(records, i, rec)
        {
            struct mtb_rec_config c;
            mtb_rec_config_view(rec, &c);
            if (!strcmp(c.kernel, names[k])) {
                mtb_record_kernel_identity(rec, kernel);
                break;
            }
        }
        json_array_append_new(ks, kernel);
    }
    return ks;
}

/* the summary's configuration of cfg ("variant/mode") on kernel, or NULL */
static const struct mtb_sum_config *summary_config(const struct mtb_sum_rows *sum, const char *cfg, const char *kernel)
{
    for (size_t i = 0; i < sum->nconfigs; i++) {
        const struct mtb_sum_config *c = &sum->configs[i];
        char *name = mtb_asprintf("%s/%s", c->variant, c->mode);
        int same = !strcmp(name, cfg) && !strcmp(c->kernel, kernel);
        free(name);
        if (same)
            return c;
    }
    return NULL;
}

/* kernel against the reference in the summary's kernel axis: the throughput
 * ratio (kernel ÷ reference, median of the pairs with its CI), every pair
 * metric of the table, Mann–Whitney U; NULL when they were not compared */
static json_t *vs_reference(const struct mtb_sum_rows *sum, const char *cfg, const char *ref, const char *kernel)
{
    for (size_t i = 0; i < sum->nkernels; i++) {
        const struct mtb_sum_kernel *k = &sum->kernels[i];
        char *name = mtb_asprintf("%s/%s", k->variant, k->mode);
        int same = !strcmp(name, cfg) && !strcmp(k->kernel_a, ref) && !strcmp(k->kernel_b, kernel);
        free(name);
        if (!same || !k->ops_ratio.present)
            continue;
        json_t *v = json_deep_copy(k->ops_ratio.j);
        json_object_set_new(v, "reference", json_string(ref));
        json_object_set_new(v, "pairs", json_integer((json_int_t)k->pairs));
        json_object_set_new(v, "mann_whitney_p", isnan(k->mann_whitney_p) ? json_null() : json_real(k->mann_whitney_p));
        json_object_set_new(v, "significant", json_boolean(k->significant));
        for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
            json_object_set(v, mtb_pair_metrics[m].key, k->metric[m].j);
        return v;
    }
    return NULL;
}

/* the runs of cfg on kernel that did not end ok */
static int failed_runs(json_t *records, const char *cfg, const char *kernel)
{
    int n = 0;
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        struct mtb_rec_config c;
        mtb_rec_config_view(rec, &c);
        char *name = mtb_asprintf("%s/%s", c.variant, c.mode);
        n += !strcmp(name, cfg) && !strcmp(c.kernel, kernel) && mtb_record_status(rec) != MTB_RUN_OK;
        free(name);
    }
    return n;
}

/* One row per configuration and kernel, read from the summary: the runs, every
 * run metric of the table (median with CI, as in every other table), and
 * against the reference kernel the pair metrics of its kernel axis. */
json_t *mtb_compare_build(json_t *records, const char *kernels)
{
    char names[MAXK][128];
    int nk = split_kernels(kernels, names);
    json_t *plat = NULL;
    int emulated = 0;
    json_t *configs = configs_of(records, &emulated, &plat);
    json_t *sum = mtb_summary_build_ref(records, names[0]);
    struct mtb_sum_rows sr;
    mtb_sum_rows_read(sum, &sr);
    json_t *rows = json_array();
    size_t ci;
    json_t *cfgv;
    json_array_foreach(configs, ci, cfgv)
    {
        const char *cfg = json_string_value(cfgv);
        for (int k = 0; k < nk; k++) {
            const struct mtb_sum_config *c = summary_config(&sr, cfg, names[k]);
            json_t *row = json_pack("{s:s,s:s,s:i,s:i}", "config", cfg, "kernel", names[k], "runs",
                                    c ? (int)c->runs : 0, "failed", failed_runs(records, cfg, names[k]));
            for (size_t m = 0; c && m < MTB_NRUN_METRICS; m++)
                json_object_set(row, mtb_run_metrics[m].key, c->metric[m].j);
            json_t *v = k > 0 ? vs_reference(&sr, cfg, names[0], names[k]) : NULL;
            if (v)
                json_object_set_new(row, "vs_reference", v);
            json_array_append_new(rows, row);
        }
    }
    json_t *ks = kernel_identities(records, names, nk);
    json_t *out = json_pack("{s:s,s:o,s:s,s:o,s:b,s:s,s:b}", "schema", MTB_KERNEL_COMPARE_SCHEMA, "kernels", ks,
                            "reference", names[0], "rows", rows, "emulated", emulated, "note",
                            emulated ? NOTE_TCG : NOTE_KVM, "any_ok", sr.nconfigs > 0);
    json_object_set_new(out, "platform", plat ? plat : json_null());
    json_decref(configs);
    mtb_sum_rows_free(&sr);
    json_decref(sum);
    return out;
}

/* What the price buys on each kernel: the detection matrices beside each
 * kernel's overhead of the same variant and mode (against plain/off on that
 * kernel: --baseline). 0, or -1 with err when a path holds no matrix. */
int mtb_compare_add_protection(json_t *cmp, json_t *records, char *const *paths, int n, char *err, size_t errlen)
{
    struct mtb_cmp_rows cr;
    mtb_cmp_rows_read(cmp, &cr);
    json_t *sum = mtb_summary_build_ref(records, cr.reference);
    mtb_cmp_rows_free(&cr);
    json_t *rows = mtb_report_protection(sum, paths, n, err, errlen);
    json_decref(sum);
    if (!rows)
        return -1;
    size_t nrows, priced = 0;
    struct mtb_sum_protection *v = mtb_sum_protection_read(rows, &nrows);
    for (size_t i = 0; i < nrows; i++)
        priced += v[i].slowdown.present;
    free(v);
    json_object_set_new(cmp, "protection", rows);
    if (!priced)
        json_object_set_new(cmp, "protection_note",
                            json_string("no overhead to set beside the catch rates: a kernel's overhead needs "
                                        "plain/off on it (--baseline, make BASELINE=1)"));
    return 0;
}

/* against the reference: "reference", "-", or "1.012x [0.990 – 1.030] p=0.41 (3 pairs)" (with_p: the
 * Mann–Whitney p) */
static void fmt_ratio(char *buf, size_t n, const struct mtb_cmp_row *row, const char *ref, int with_p)
{
    const struct mtb_cmp_vs *v = &row->vs;
    char est[48], range[96];
    if (!v->present) {
        snprintf(buf, n, "%s", !strcmp(row->kernel, ref) ? "reference" : "-");
        return;
    }
    mtb_ci_cell(&v->ratio, MTB_CI_RATIO, est, sizeof est, range, sizeof range);
    char pv[32] = "";
    if (with_p && !isnan(v->mann_whitney_p))
        snprintf(pv, sizeof pv, " p=%.2g", v->mann_whitney_p);
    snprintf(buf, n, "%s %s%s (%d pair%s)", est, range, pv, (int)v->pairs, v->pairs == 1 ? "" : "s");
}

/* a run metric's cell: the median, and with its interval when range is set */
static void fmt_metric(char *buf, size_t n, const struct mtb_cmp_row *row, size_t m, int range)
{
    char est[48], rg[96];
    mtb_ci_cell(&row->metric[m], MTB_CI_INT, est, sizeof est, rg, sizeof rg);
    snprintf(buf, n, "%s%s%s", est, range && *rg ? " " : "", range ? rg : "");
}

static const char *platform_label(const struct mtb_cmp_rows *c, char *buf, size_t n)
{
    snprintf(buf, n, "vm (%s, %s)%s", c->accel[0] ? c->accel : "?", c->qemu,
             c->emulated ? ", emulated: not hardware timing" : "");
    return buf;
}

void mtb_compare_print(json_t *cmp, FILE *out)
{
    struct mtb_cmp_rows c;
    mtb_cmp_rows_read(cmp, &c);
    char pl[512];
    fprintf(out, "\nkernel comparison on %s\n", platform_label(&c, pl, sizeof pl));
    fprintf(out, "%-16s %-10s %5s %-28s", "config", "kernel", "runs", "ops/s median [95% CI]");
    for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_TABLE)
            fprintf(out, " %9s", mtb_run_metrics[m].label);
    fprintf(out, "  throughput vs %s\n", c.reference);
    for (size_t i = 0; i < c.nrows; i++) {
        const struct mtb_cmp_row *row = &c.rows[i];
        char cell[160], ratio[200];
        fmt_metric(cell, sizeof cell, row, MTB_M_ops_per_sec, 1);
        fprintf(out, "%-16s %-10s %5d %-28s", row->config, row->kernel, (int)row->runs, cell);
        for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
            if (mtb_run_metrics[m].views & MTB_V_TABLE) {
                fmt_metric(cell, sizeof cell, row, m, 0);
                fprintf(out, " %9s", cell);
            }
        fmt_ratio(ratio, sizeof ratio, row, c.reference, 1);
        fprintf(out, "  %s\n", ratio);
    }
    fprintf(out, "(latencies in us; * below 95%% confidence)\nnote: %s\n", c.note);
    if (c.protection) {
        fprintf(out, "\n");
        mtb_report_protection_print(out, c.protection, c.emulated);
        if (c.protection_note)
            fprintf(out, "note: %s\n", c.protection_note);
    }
    mtb_cmp_rows_free(&c);
}

/* the kernels' identities as a Markdown table */
static void md_identities(FILE *f, const struct mtb_cmp_rows *c)
{
    fprintf(f, "| kernel | uname -r | build hash | config hash | patches |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < c->nkernels; i++) {
        const struct mtb_cmp_kernel *k = &c->kernels[i];
        fprintf(f, "| %s | %s | %.12s | %.12s | ", k->name, k->uname_r, k->build_hash, k->config_hash);
        for (size_t j = 0; j < k->npatches; j++) {
            const char *file = k->patches[j];
            fprintf(f, "%s%s", j ? ", " : "", strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
        }
        fprintf(f, "%s |\n", k->npatches ? "" : "none");
    }
}

/* the rows as a Markdown table: every run metric of the table with its CI,
 * the throughput ratio and the pair metrics against the reference */
static void md_rows(FILE *f, const struct mtb_cmp_rows *c)
{
    fprintf(f, "| config | kernel | runs |");
    size_t ncol = 3;
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_TABLE)
            fprintf(f, " %s%s%s [95%% CI] |", mtb_run_metrics[m].label,
                    strcmp(mtb_run_metrics[m].label, mtb_run_metrics[m].unit) ? " " : "",
                    strcmp(mtb_run_metrics[m].label, mtb_run_metrics[m].unit) ? mtb_run_metrics[m].unit : ""), ncol++;
    fprintf(f, " throughput vs %s [95%% CI] |", c->reference);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        if (mtb_pair_metrics[m].views & MTB_V_TABLE)
            fprintf(f, " %s |", mtb_pair_metrics[m].label), ncol++;
    fprintf(f, " Mann–Whitney p |\n|");
    for (size_t k = 0; k < ncol + 2; k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const struct mtb_cmp_row *row = &c->rows[i];
        char cell[200], est[48], rg[96];
        fprintf(f, "| %s | %s | %d |", row->config, row->kernel, (int)row->runs);
        for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
            if (mtb_run_metrics[m].views & MTB_V_TABLE) {
                fmt_metric(cell, sizeof cell, row, m, 1);
                fprintf(f, " %s |", cell);
            }
        fmt_ratio(cell, sizeof cell, row, c->reference, 0);
        fprintf(f, " %s |", cell);
        for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
            if (mtb_pair_metrics[m].views & MTB_V_TABLE) {
                mtb_ci_cell(&row->vs.pair[m], MTB_CI_RATIO, est, sizeof est, rg, sizeof rg);
                fprintf(f, " %s%s%s |", est, *rg ? " " : "", rg);
            }
        if (!isnan(row->vs.mann_whitney_p))
            fprintf(f, " %.3g%s |\n", row->vs.mann_whitney_p, row->vs.significant ? " (significant)" : "");
        else
            fprintf(f, " - |\n");
    }
}

char *mtb_compare_markdown(json_t *cmp)
{
    char *buf = NULL, pl[512];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return mtb_strdup("");
    struct mtb_cmp_rows c;
    mtb_cmp_rows_read(cmp, &c);
    fprintf(f, "# Kernel comparison\n\nPlatform: %s\n\n> %s\n\n", platform_label(&c, pl, sizeof pl), c.note);
    md_identities(f, &c);
    fprintf(f, "\n");
    md_rows(f, &c);
    fprintf(f, "\nMedians over runs with their 95%% intervals (order statistics; `*`: fewer runs than a 95%% "
               "interval needs, 6, so the interval is the runs' range at the lower confidence kernels.json gives). "
               "Against the reference kernel, runs are paired by repetition (kernels interleaved within each "
               "repetition): the throughput ratio and the pair metrics are medians of the pairs with their CI, "
               "each pair metric with this kernel in the tagged run's place and the reference in the baseline's "
               "(overhead = reference ops/s ÷ this kernel's); Mann–Whitney U on the runs' throughput.\n");
    mtb_report_protection_md(f, c.protection, c.emulated);
    if (c.protection_note)
        fprintf(f, "\n%s%s.\n", json_array_size(c.protection) ? "" : "What the price buys: ", c.protection_note);
    mtb_cmp_rows_free(&c);
    fclose(f);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    if (mtb_write_atomic(path, text, strlen(text)) != 0)
        mtb_warn("cannot write %s", path);
}

/* KERNELS as the records name them (config.kernel): a git tree's or a patch
 * series' kernel by its label (git-<tree>-<commit>, stock+<dir>), an Image
 * path by its file name, as the vm platform names the kernel it ran (the
 * kernels are built by then: found in the cache). A heap string. */
static char *record_kernel_names(char names[MAXK][128], int nk)
{
    char *out = mtb_strdup("");
    for (int k = 0; k < nk; k++) {
        struct mtb_kernel kk;
        char err[MTB_ERRLEN];
        int found = mtb_kernel_ensure(names[k], NULL, 0, 1, &kk, err, sizeof err) == 0;
        char *n = mtb_asprintf("%s%s%s", out, k ? "," : "", found && kk.name[0] ? kk.name : names[k]);
        if (found)
            mtb_kernel_free(&kk);
        free(out);
        out = n;
    }
    return out;
}

/* KERNELS: two or more known names or Image paths, none twice. @return how many */
static int kernels_given(const char *list, char names[MAXK][128])
{
    int nk = split_kernels(list, names);
    if (nk < 2)
        mtb_die(2, "invalid KERNELS '%s' (accepted: two or more of %s, comma-separated)", list, mtb_kernel_names());
    for (int k = 0; k < nk; k++) {
        if (!strchr(names[k], '/') && !mtb_kernel_known(names[k]))
            mtb_die(2, "invalid KERNELS entry '%s' (accepted: %s, or the path of an arm64 Image)", names[k],
                    mtb_kernel_names());
        for (int j = 0; j < k; j++)
            if (!strcmp(names[j], names[k]))
                mtb_die(2, "KERNELS names '%s' twice", names[k]);
    }
    return nk;
}

/* DIR/kernels.json, DIR/kernels.md and reports/<DIR's name>.md, and where they are */
static void write_outputs(json_t *cmp, const char *dir)
{
    char *cj = json_dumps(cmp, JSON_INDENT(2) | JSON_SORT_KEYS);
    char *cjp = mtb_asprintf("%s/kernels.json", dir);
    write_file(cjp, cj);
    char *md = mtb_compare_markdown(cmp);
    char *mdp = mtb_asprintf("%s/kernels.md", dir);
    write_file(mdp, md);
    char *repdir = mtb_strdup(mtb_reports_dir());
    mtb_mkdir_p(repdir);
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    char *rmd = mtb_asprintf("%s/%s.md", repdir, base);
    write_file(rmd, md);
    printf("\nrecords: %s/*/record.json\ntable:   %s, %s\nreport:  %s\n", dir, cjp, mdp, rmd);
    free(cj);
    free(cjp);
    free(md);
    free(mdp);
    free(rmd);
    free(repdir);
}

int mtb_cmd_compare_kernels(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "compare-kernels");
    if (o.reps == MTB_REPS_AUTO)
        o.reps = 3; /* REPS=auto is for bench and plans; the kernel comparison keeps a fixed count */
    if (!o.mode)
        mtb_die(2, "no MODE given (accepted: %s)", mtb_mode_names());
    if (o.platform && strcmp(o.platform, "vm") != 0)
        mtb_die(2, "compare-kernels runs on PLATFORM=vm (got '%s'): only there is the kernel chosen", o.platform);
    o.platform = "vm";
    if (!o.kernels)
        o.kernels = "stock,tcma1";
    char names[MAXK][128];
    int nk = kernels_given(o.kernels, names);
    o.kernel = names[0];
    o.quiet = 1;
    mtb_cli_resolve(&o);
    o.quiet = 0;

    char err[MTB_ERRLEN];
    json_t *probe = json_object(), *rows = mtb_report_protection(probe, o.detect, o.ndetect, err, sizeof err);
    json_decref(probe);
    if (!rows)
        mtb_die(2, "--detect %s", err); /* before any run */
    json_decref(rows);
    /* a plan with a kernel axis, run by plan.c: builds and kernels first,
     * plan.json, the quiet check and provenance, cells interleaved */
    struct mtb_plan plan;
    mtb_plan_init(&plan, "compare-kernels", &o);
    const struct mtb_mode *off = mtb_mode_find("off");
    for (int k = 0; k < nk; k++) {
        mtb_plan_add_cell(&plan, "compare-kernels", o.recipe, &o.wl, "tagged", o.m, names[k]);
        if (o.baseline)
            mtb_plan_add_cell(&plan, "compare-kernels", o.recipe, &o.wl, "plain", off, names[k]);
    }
    if (o.dry_run) {
        mtb_plan_print(&plan, stdout);
        return 0;
    }
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    char *dir = o.results ? mtb_strdup(o.results)
                          : mtb_asprintf("%s/%s-kernels-%s-%s", mtb_results_dir(), ts, o.recipe->name, o.m->name);
    int total = (int)o.reps * (int)plan.ncells, failures = 0;
    fprintf(stderr, "mtebench: compare-kernels: %s tagged/%s%s on kernels %s (vm), %ld reps x %g s, results in %s\n",
            o.recipe->name, o.m->name, o.baseline ? " and plain/off" : "", o.kernels, o.reps, o.wl.duration, dir);
    /* under TCG the timings cannot tell the kernels' MTE work apart: counted
     * first, once the kernels are built (COUNT=0 leaves it out) */
    struct mtb_bench_work work = { .o = &o, .nkernels = nk < MTB_WORK_MAXK ? nk : MTB_WORK_MAXK };
    for (int k = 0; k < work.nkernels; k++)
        work.kernels[k] = names[k];
    plan.before_runs = mtb_bench_work;
    plan.before_arg = &work;
    struct mtb_err re = { 0 };
    json_t *records = mtb_plan_run(&plan, dir, o.force, &failures, NULL, &re);
    if (!records)
        mtb_err_exit(&re);
    char *recnames = record_kernel_names(names, nk);
    json_t *cmp = mtb_compare_build(records, recnames);
    free(recnames);
    if (o.ndetect && mtb_compare_add_protection(cmp, records, o.detect, o.ndetect, err, sizeof err) != 0)
        fprintf(stderr, "mtebench: compare-kernels: --detect %s\n", err);
    mtb_compare_print(cmp, stdout);
    write_outputs(cmp, dir);
    mtb_plan_print_failed("mtebench", &plan, total);
    json_decref(cmp);
    json_decref(records);
    free(dir);
    return failures || work.failed ? 1 : 0;
}
