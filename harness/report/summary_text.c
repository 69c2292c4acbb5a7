/* summary_text.c - see summary_text.h */
#include "lib/jsonx.h"
#include "report/summary_text.h"
#include "core/record.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONF 0.95

void mtb_summary_fmt_int(char *buf, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
        return;
    }
    /* digits of |v| from the double itself: llround and a negation overflow
     * at 2^63 (a record's ops/s of 2^63-1 is such a double) */
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%.0f", fabs(v));
    size_t len = strlen(tmp), o = 0;
    if (v <= -0.5 && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
}

int mtb_summary_low_conf(json_t *ci) { return json_is_object(ci) && mtb_jnum(ci, "conf") < CONF - 1e-9; }

int mtb_ci_cell(json_t *ci, enum mtb_ci_style style, char *est, size_t en, char *range, size_t rn)
{
    double m = json_is_number(json_object_get(ci, "median")) ? mtb_jnum(ci, "median") : mtb_jnum(ci, "geomean");
    range[0] = 0;
    if (!json_is_object(ci) || isnan(m)) {
        snprintf(est, en, "-");
        return 0;
    }
    double lo = mtb_jnum(ci, "lo"), hi = mtb_jnum(ci, "hi");
    const char *star = mtb_summary_low_conf(ci) ? "*" : "";
    if (style == MTB_CI_INT) {
        char a[32], b[32];
        mtb_summary_fmt_int(est, en, m);
        mtb_summary_fmt_int(a, sizeof a, lo);
        mtb_summary_fmt_int(b, sizeof b, hi);
        if (lo != hi)
            snprintf(range, rn, "[%s – %s]%s", a, b, star);
    } else if (style == MTB_CI_DELTA) {
        snprintf(est, en, "%+.1f%%", 100 * m);
        snprintf(range, rn, "[%+.1f%% – %+.1f%%]%s", 100 * lo, 100 * hi, star);
    } else {
        snprintf(est, en, "%.3fx", m);
        if (isnan(hi))
            snprintf(range, rn, "[%.3f – unbounded]", isnan(lo) ? 0 : lo);
        else
            snprintf(range, rn, "[%.3f – %.3f]%s", lo, hi, star);
    }
    return 1;
}

/* ---- the text table ---------------------------------------------------------------- */

/* the unit of a run metric's column head: "p99 us" */
static const char *text_unit(const struct mtb_run_metric *d) { return !strcmp(d->unit, "µs") ? "us" : d->unit; }

/* the config column's width: 16, or the longest name ("tagged+scudo/async") */
static int cfg_w = 16;

static void print_head(FILE *out, json_t *c, int emu, char *last, size_t lastn)
{
    json_t *w = json_object_get(c, "workload"), *rl = json_object_get(c, "run_length");
    char len[96];
    if (rl)
        snprintf(len, sizeof len, "%g s per run for %lld pilot pairs, then %g s", mtb_jnum(rl, "pilot_s"),
                 (long long)mtb_jnum(rl, "pilot_pairs"), mtb_jnum(rl, "chosen_s"));
    else
        snprintf(len, sizeof len, "%g s per run", mtb_jnum(w, "duration_s"));
    char *head = mtb_asprintf("%s on %s, kernel %s: mix %s, %lld conns, pipeline %lld, %s", mtb_jstr(c, "service"),
                              mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), mtb_jstr(w, "mix"),
                              (long long)mtb_jnum(w, "conns"), (long long)mtb_jnum(w, "pipeline"), len);
    if (strcmp(head, last)) {
        fprintf(out, "\n%s%s\n", head, emu ? "  [emulated: not hardware timing]" : "");
        fprintf(out, "  %-*s %4s  %-32s", cfg_w, "config", "runs", "ops/s median [95% CI]");
        for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
            if (mtb_run_metrics[m].views & MTB_V_TABLE) {
                char h[32];
                snprintf(h, sizeof h, "%s %s", mtb_run_metrics[m].label, text_unit(&mtb_run_metrics[m]));
                fprintf(out, " %10s", h);
            }
        fprintf(out, "\n");
        snprintf(last, lastn, "%s", head);
    }
    free(head);
}

/* one configuration's row; @return 1 if its interval is starred */
static int print_config(FILE *out, json_t *c)
{
    json_t *ops = json_object_get(c, "ops_per_sec");
    char m[32], lo[32], hi[32], cfg[64], ci[128], cores[24] = "";
    mtb_summary_fmt_int(m, sizeof m, mtb_jnum(ops, "median"));
    mtb_summary_fmt_int(lo, sizeof lo, mtb_jnum(ops, "lo"));
    mtb_summary_fmt_int(hi, sizeof hi, mtb_jnum(ops, "hi"));
    json_t *wc = json_object_get(json_object_get(c, "workload"), "cores");
    if (json_is_integer(wc)) /* a point of a core sweep */
        snprintf(cores, sizeof cores, " %lldc", (long long)json_integer_value(wc));
    snprintf(cfg, sizeof cfg, "%s/%s%s", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), cores);
    snprintf(ci, sizeof ci, "%s [%s - %s]%s", m, lo, hi, mtb_summary_low_conf(ops) ? "*" : "");
    fprintf(out, "  %-*s %4d  %-32s", cfg_w, cfg, (int)json_integer_value(json_object_get(c, "runs")), ci);
    for (size_t k = 1; k < MTB_NRUN_METRICS; k++)
        if (mtb_run_metrics[k].views & MTB_V_TABLE) {
            char v[32];
            mtb_summary_fmt_int(v, sizeof v, mtb_jnum(json_object_get(c, mtb_run_metrics[k].key), "median"));
            fprintf(out, " %10s", v);
        }
    fprintf(out, "%s%s\n", json_is_true(json_object_get(c, "client_bound")) ? "  client-bound" : "",
            json_is_true(json_object_get(c, "errors_over_limit")) ? "  ERRORS" : "");
    return mtb_summary_low_conf(ops);
}

/* "  overhead tagged/sync vs plain/off: 1.234x [..] per operation (6 pairs), p99 x1.1 [..]" */
static int print_overhead(FILE *out, json_t *o, int emu)
{
    json_t *oc = json_object_get(json_object_get(o, "workload"), "cores");
    char ocs[32] = "";
    if (json_is_integer(oc))
        snprintf(ocs, sizeof ocs, " at %lld core%s", (long long)json_integer_value(oc), json_integer_value(oc) == 1 ? "" : "s");
    fprintf(out, "  overhead %s/%s vs %s%s:", mtb_jstr(o, "variant"), mtb_jstr(o, "mode"),
            *mtb_jstr(o, "baseline") ? mtb_jstr(o, "baseline") : "plain/off", ocs);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        json_t *ci = json_object_get(o, d->key);
        if (!(d->views & MTB_V_TABLE))
            continue;
        if (m == 0)
            fprintf(out, " %.3fx [%.3f - %.3f]%s per operation (%d pairs)", mtb_jnum(ci, "median"), mtb_jnum(ci, "lo"),
                    mtb_jnum(ci, "hi"), mtb_summary_low_conf(ci) ? "*" : "",
                    (int)json_integer_value(json_object_get(o, "pairs")));
        else
            fprintf(out, ", %s x%.3f [%.3f - %.3f]%s", mtb_run_metrics[d->of].label, mtb_jnum(ci, "median"),
                    mtb_jnum(ci, "lo"), mtb_jnum(ci, "hi"), mtb_summary_low_conf(ci) ? "*" : "");
    }
    json_t *pv = json_object_get(o, "mann_whitney_p");
    if (json_is_number(pv))
        fprintf(out, ", Mann-Whitney p=%.3g", json_number_value(pv));
    json_t *sq = json_object_get(o, "sequential");
    if (json_is_object(sq)) {
        /* REPS=auto: "+-1.7% after 10 pairs" or "+-6.3% after 31 pairs (at most 15 min): noisy machine" */
        json_t *ci = json_object_get(o, mtb_pair_metrics[0].key);
        double hw = mtb_jnum(ci, "rel_halfwidth");
        int np = (int)json_integer_value(json_object_get(o, "pairs"));
        /* the method the pairs' shape chose: "t-interval on log ratios" */
        const char *meth = mtb_jstr(ci, "method"), *comma = strchr(meth, ',');
        int ml = comma ? (int)(comma - meth) : (int)strlen(meth);
        if (json_is_true(json_object_get(sq, "stopped_by_user")))
            fprintf(out, "; +-%.1f%% after %d pairs (%.*s; stopped by the user)", 100 * hw, np, ml, meth);
        else if (json_is_true(json_object_get(sq, "reached")))
            fprintf(out, "; +-%.1f%% after %d pairs (%.*s)", 100 * hw, np, ml, meth);
        else
            fprintf(out, "; +-%.1f%% after %d pairs (%.*s; at most %g min): noisy machine, see warnings", 100 * hw,
                    np, ml, meth, mtb_jnum(sq, "max_time_s") / 60);
    }
    fprintf(out, "%s\n", emu ? "  [emulated]" : "");
    return mtb_summary_low_conf(json_object_get(o, mtb_pair_metrics[0].key));
}

/* the allocators' three costs (summary "allocators"), a line each */
static void print_allocators(FILE *out, json_t *sum, int emu)
{
    size_t i, j;
    json_t *a, *t;
    json_array_foreach(json_object_get(sum, "allocators"), i, a)
    {
        json_t *al = json_object_get(json_object_get(a, "allocator_alone"), "slowdown");
        fprintf(out, "  allocator %s alone (plain+%s/off vs glibc's plain/off): %.3fx [%.3f - %.3f]%s per operation "
                "(%d pairs)%s\n", mtb_jstr(a, "allocator"), mtb_jstr(a, "allocator"), mtb_jnum(al, "median"),
                mtb_jnum(al, "lo"), mtb_jnum(al, "hi"), mtb_summary_low_conf(al) ? "*" : "",
                (int)json_integer_value(json_object_get(json_object_get(a, "allocator_alone"), "pairs")),
                emu ? "  [emulated]" : "");
        json_array_foreach(json_object_get(a, "tagging"), j, t)
        {
            json_t *s = json_object_get(t, "slowdown"), *g = json_object_get(t, "slowdown_glibc"),
                   *d = json_object_get(t, "difference");
            fprintf(out, "  tagging %s/%s: %.3fx under %s, %.3fx under glibc; ratio %.3f [%.3f - %.3f]%s (%d pairs)%s\n",
                    mtb_jstr(t, "variant"), mtb_jstr(t, "mode"), mtb_jnum(s, "median"), mtb_jstr(a, "allocator"),
                    mtb_jnum(g, "median"), mtb_jnum(d, "median"), mtb_jnum(d, "lo"), mtb_jnum(d, "hi"),
                    mtb_summary_low_conf(d) ? "*" : "", (int)json_integer_value(json_object_get(t, "pairs")),
                    emu ? "  [emulated]" : "");
        }
    }
}

void mtb_summary_print(json_t *sum, FILE *out)
{
    int emu = json_is_true(json_object_get(sum, "emulated"));
    int starred = 0;
    size_t i;
    json_t *c, *o, *w;
    char last[512] = "";
    cfg_w = 16;
    json_array_foreach(json_object_get(sum, "configs"), i, c)
    {
        int cw = (int)(strlen(mtb_jstr(c, "variant")) + 1 + strlen(mtb_jstr(c, "mode")) +
                      (json_is_integer(json_object_get(json_object_get(c, "workload"), "cores")) ? 5 : 0));
        cfg_w = cw > cfg_w ? cw : cfg_w;
    }
    json_array_foreach(json_object_get(sum, "configs"), i, c)
    {
        print_head(out, c, emu, last, sizeof last);
        starred |= print_config(out, c);
    }
    json_array_foreach(json_object_get(sum, "overheads"), i, o) starred |= print_overhead(out, o, emu);
    print_allocators(out, sum, emu);
    int seq = 0, user = 0;
    json_array_foreach(json_object_get(sum, "overheads"), i, o) {
        seq |= json_is_object(json_object_get(o, "sequential"));
        user |= json_is_true(json_object_get(json_object_get(o, "sequential"), "stopped_by_user"));
    }
    if (starred && user)
        fprintf(out, "  * too few pairs for the level of REPS=auto's looks: stopped by the user; shown is [min - max] "
                     "of the runs, with lower confidence\n");
    else if (starred && seq)
        fprintf(out, "  * too few pairs for the level of REPS=auto's looks before MAX_TIME; shown is [min - max] of "
                     "the runs, with lower confidence; raise MAX_TIME\n");
    else if (starred)
        fprintf(out, "  * fewer runs than a 95%% interval needs (6 pairs); shown is [min - max] of the runs, "
                     "with lower confidence; add REPS\n");
    json_array_foreach(json_object_get(sum, "warnings"), i, w) fprintf(out, "  warning: %s\n", json_string_value(w));
    if (emu)
        fprintf(out, "  Emulated (qemu-aarch64): ratios include emulation cost; not hardware MTE overheads.\n");
}

/* ---- Markdown ---------------------------------------------------------------------- */

/* a CI cell: "12,345 [11,000 – 13,000]", or the estimate alone (with_ci 0), or "-" */
static void md_cell(FILE *f, json_t *ci, enum mtb_ci_style style, int with_ci)
{
    char est[48], range[96];
    mtb_ci_cell(ci, style, est, sizeof est, range, sizeof range);
    fprintf(f, "%s%s%s", est, with_ci && *range ? " " : "", with_ci ? range : "");
}

json_t *mtb_summary_overhead_of(json_t *sum, json_t *c)
{
    size_t j;
    json_t *o;
    json_array_foreach(json_object_get(sum, "overheads"), j, o) if (
        !strcmp(mtb_jstr(o, "service"), mtb_jstr(c, "service")) && !strcmp(mtb_jstr(o, "variant"), mtb_jstr(c, "variant")) &&
        !strcmp(mtb_jstr(o, "mode"), mtb_jstr(c, "mode")) && !strcmp(mtb_jstr(o, "platform"), mtb_jstr(c, "platform")) &&
        !strcmp(mtb_jstr(o, "kernel"), mtb_jstr(c, "kernel")) && !strcmp(mtb_jstr(o, "host"), mtb_jstr(c, "host")) &&
        mtb_workload_equal(json_object_get(o, "workload"), json_object_get(c, "workload"))) return o;
    return NULL;
}

int mtb_summary_any_config(json_t *sum, const char *field)
{
    size_t i;
    json_t *c;
    int any = 0;
    json_array_foreach(json_object_get(sum, "configs"), i, c) any |= json_is_object(json_object_get(c, field));
    return any;
}

void mtb_summary_workload_label(json_t *w, char *buf, size_t n)
{
    /* the name, and what tells two configurations of one workload apart (a
     * plan's entries may differ only in mix or value size) */
    int k = snprintf(buf, n, "%s, mix %s, values %s", mtb_jstr(w, "name"), mtb_jstr(w, "mix"), mtb_jstr(w, "value_size"));
    if (json_is_integer(json_object_get(w, "cores")) && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ", %lld cores", (long long)mtb_jnum(w, "cores"));
}

void mtb_summary_cores_label(json_t *row, char *buf, size_t n)
{
    snprintf(buf, n, "%lld%s%s", (long long)mtb_jnum(row, "cores"), *mtb_jstr(row, "core_type") ? " " : "",
             mtb_jstr(row, "core_type"));
}

char *mtb_summary_per_request_text(json_t *pr)
{
    char *t = mtb_strdup("");
    const char *ev;
    json_t *v;
    json_object_foreach(pr, ev, v)
    {
        char *x = mtb_asprintf("%s%s%s %.4g", t, *t ? ", " : "", ev, json_number_value(v));
        free(t);
        t = x;
    }
    return t;
}

static void md_results_head(FILE *f, const char *em)
{
    fprintf(f, "## Throughput and latency%s\n\nMedians over runs with 95%% CIs (order statistics; `*`: too few runs "
               "for 95%%, the interval is [min – max] with the confidence shown). Overhead = baseline ops/s ÷ tagged "
               "ops/s for each interleaved pair of runs (paired by repetition), median of the pairs.\n\n", em);
    fprintf(f, "| service | workload | platform | kernel | config | runs | ops/s [95%% CI] | conf |");
    size_t ncol = 8;
    for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_TABLE)
            fprintf(f, " %s %s |", mtb_run_metrics[m].label, mtb_run_metrics[m].unit), ncol++;
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        if (mtb_pair_metrics[m].views & MTB_V_TABLE)
            fprintf(f, " %s [CI] |", mtb_pair_metrics[m].label), ncol++;
    fprintf(f, " Mann–Whitney p |\n|");
    for (size_t k = 0; k <= ncol; k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
}

static void md_results(FILE *f, json_t *sum, const char *em)
{
    md_results_head(f, em);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(sum, "configs"), i, c)
    {
        json_t *ops = json_object_get(c, "ops_per_sec"), *w = json_object_get(c, "workload");
        fprintf(f, "| %s | mix %s, %lld conns | %s%s | %s | %s/%s%s%s | %d | ", mtb_jstr(c, "service"), mtb_jstr(w, "mix"),
                (long long)mtb_jnum(w, "conns"), mtb_jstr(c, "platform"), json_is_true(json_object_get(c, "emulated")) ? " (emulated)" : "",
                mtb_jstr(c, "kernel"), mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), json_object_get(c, "host") ? " on " : "",
                mtb_jstr(c, "host"), (int)json_integer_value(json_object_get(c, "runs")));
        md_cell(f, ops, MTB_CI_INT, 1);
        fprintf(f, " | %.0f%% |", 100 * mtb_jnum(ops, "conf"));
        for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
            if (mtb_run_metrics[m].views & MTB_V_TABLE) {
                fprintf(f, " ");
                md_cell(f, json_object_get(c, mtb_run_metrics[m].key), MTB_CI_INT, 0);
                fprintf(f, " |");
            }
        json_t *match = mtb_summary_overhead_of(sum, c);
        int base = mtb_record_is_baseline(c);
        for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
            if (mtb_pair_metrics[m].views & MTB_V_TABLE) {
                fprintf(f, " ");
                if (match)
                    md_cell(f, json_object_get(match, mtb_pair_metrics[m].key), MTB_CI_RATIO, 1);
                else
                    fprintf(f, "%s", base ? "baseline" : "-");
                fprintf(f, " |");
            }
        json_t *pv = json_object_get(match, "mann_whitney_p");
        if (json_is_number(pv))
            fprintf(f, " %.3g |\n", json_number_value(pv));
        else
            fprintf(f, match ? " - |\n" : " |\n");
    }
}

static void md_geomeans(FILE *f, json_t *sum, const char *em)
{
    size_t i, j;
    json_t *o;
    if (json_array_size(json_object_get(sum, "geomeans"))) {
        fprintf(f, "\n## Geometric mean of overheads%s\n\nAcross services and workloads; 95%% CI by bootstrap-t on "
                   "the log scale.\n\n| config | platform | kernel | n | geometric mean [CI] | over |\n|---|---|---|---|---|---|\n", em);
        json_array_foreach(json_object_get(sum, "geomeans"), i, o)
        {
            fprintf(f, "| %s/%s | %s | %s | %d | ", mtb_jstr(o, "variant"), mtb_jstr(o, "mode"), mtb_jstr(o, "platform"),
                    mtb_jstr(o, "kernel"), (int)json_integer_value(json_object_get(o, "n")));
            md_cell(f, json_object_get(o, "slowdown"), MTB_CI_RATIO, 1);
            fprintf(f, " | ");
            json_t *m;
            json_array_foreach(json_object_get(o, "of"), j, m) fprintf(f, "%s%s", j ? ", " : "", json_string_value(m));
            fprintf(f, " |\n");
        }
    }
}

static void md_allocators(FILE *f, json_t *sum, const char *em)
{
    size_t i, j;
    json_t *a, *t;
    if (!json_array_size(json_object_get(sum, "allocators")))
        return;
    fprintf(f, "\n## Allocators%s\n\nThree costs: the allocator alone (its plain/off against glibc's plain/off), "
               "tagging under each allocator (each against its own plain/off), and their ratio (per repetition, "
               "median; 95%% CI).\n\n| service | allocator | configuration | slowdown under it [CI] | under glibc [CI] | "
               "ratio [CI] | pairs |\n|---|---|---|---|---|---|---|\n", em);
    json_array_foreach(json_object_get(sum, "allocators"), i, a)
    {
        fprintf(f, "| %s | %s | plain/off: the allocator alone | ", mtb_jstr(a, "service"), mtb_jstr(a, "allocator"));
        md_cell(f, json_object_get(json_object_get(a, "allocator_alone"), "slowdown"), MTB_CI_RATIO, 1);
        fprintf(f, " | 1 (the baseline) | - | %d |\n",
                (int)json_integer_value(json_object_get(json_object_get(a, "allocator_alone"), "pairs")));
        json_array_foreach(json_object_get(a, "tagging"), j, t)
        {
            fprintf(f, "| %s | %s | %s/%s | ", mtb_jstr(a, "service"), mtb_jstr(a, "allocator"), mtb_jstr(t, "variant"),
                    mtb_jstr(t, "mode"));
            md_cell(f, json_object_get(t, "slowdown"), MTB_CI_RATIO, 1);
            fprintf(f, " | ");
            md_cell(f, json_object_get(t, "slowdown_glibc"), MTB_CI_RATIO, 1);
            fprintf(f, " | ");
            md_cell(f, json_object_get(t, "difference"), MTB_CI_RATIO, 1);
            fprintf(f, " | %d |\n", (int)json_integer_value(json_object_get(t, "pairs")));
        }
    }
}

const char *const mtb_summary_kernel_cols[MTB_SUMMARY_KERNEL_NCOLS] = { "service", "config", "platform", "kernel A", "kernel B",
                                                        "runs A/B", "ops/s A", "ops/s B", "delta B vs A [CI]",
                                                        "Mann–Whitney p", "overhead A", "overhead B" };
const char mtb_summary_kernel_note[] =
    "Delta = kernel B ops/s ÷ kernel A ops/s − 1 for runs paired by repetition (median of the pairs, 95% CI); "
    "significance from a two-sided Mann–Whitney U test on the runs' throughput. Overhead A/B: each kernel's "
    "slowdown of this configuration against its own plain/off baseline.";

void mtb_summary_kernel_row(json_t *k, struct mtb_summary_kernel_row *r)
{
    snprintf(r->text[0], sizeof r->text[0], "%s", mtb_jstr(k, "service"));
    snprintf(r->text[1], sizeof r->text[1], "%s/%s", mtb_jstr(k, "variant"), mtb_jstr(k, "mode"));
    snprintf(r->text[2], sizeof r->text[2], "%s%s", mtb_jstr(k, "platform"),
             json_is_true(json_object_get(k, "emulated")) ? " (emulated)" : "");
    snprintf(r->text[3], sizeof r->text[3], "%s", mtb_jstr(k, "kernel_a"));
    snprintf(r->text[4], sizeof r->text[4], "%s", mtb_jstr(k, "kernel_b"));
    snprintf(r->text[5], sizeof r->text[5], "%lld/%lld", (long long)json_integer_value(json_object_get(k, "runs_a")),
             (long long)json_integer_value(json_object_get(k, "runs_b")));
    mtb_summary_fmt_int(r->text[6], sizeof r->text[6], mtb_jnum(k, "ops_a"));
    mtb_summary_fmt_int(r->text[7], sizeof r->text[7], mtb_jnum(k, "ops_b"));
    r->delta = json_object_get(k, "delta");
    json_t *pv = json_object_get(k, "mann_whitney_p");
    if (json_is_number(pv))
        snprintf(r->p, sizeof r->p, "%.3g (%s)", json_number_value(pv),
                 json_is_true(json_object_get(k, "significant")) ? "significant, p < 0.05" : "not significant");
    else
        snprintf(r->p, sizeof r->p, "-");
    r->slowdown[0] = json_object_get(k, "slowdown_a");
    r->slowdown[1] = json_object_get(k, "slowdown_b");
}

json_t *mtb_summary_kernel_notes(json_t *kernels)
{
    json_t *notes = json_array(), *o;
    size_t i;
    json_array_foreach(kernels, i, o) if (*mtb_jstr(o, "note")) mtb_jadd_unique(notes, mtb_jstr(o, "note"));
    return notes;
}

static void md_kernels(FILE *f, json_t *sum, const char *em)
{
    json_t *ks = json_object_get(sum, "kernels"), *o;
    size_t i;
    if (!json_array_size(ks))
        return;
    fprintf(f, "\n## Kernel comparison%s\n\n%s\n\n|", em, mtb_summary_kernel_note);
    for (int c = 0; c < MTB_SUMMARY_KERNEL_NCOLS; c++)
        fprintf(f, " %s |", mtb_summary_kernel_cols[c]);
    fprintf(f, "\n|");
    for (int c = 0; c < MTB_SUMMARY_KERNEL_NCOLS; c++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    json_array_foreach(ks, i, o)
    {
        struct mtb_summary_kernel_row r;
        mtb_summary_kernel_row(o, &r);
        fprintf(f, "|");
        for (int c = 0; c < 8; c++)
            fprintf(f, " %s |", r.text[c]);
        fprintf(f, " ");
        md_cell(f, r.delta, MTB_CI_DELTA, 1);
        fprintf(f, " | %s | ", r.p);
        md_cell(f, r.slowdown[0], MTB_CI_RATIO, 1);
        fprintf(f, " | ");
        md_cell(f, r.slowdown[1], MTB_CI_RATIO, 1);
        fprintf(f, " |\n");
    }
    json_t *notes = mtb_summary_kernel_notes(ks);
    json_array_foreach(notes, i, o) fprintf(f, "\n> Kernel comparison %s.\n", json_string_value(o));
    json_decref(notes);
}

static void md_cores(FILE *f, json_t *sum, const char *em)
{
    size_t i;
    json_t *o;
    if (json_array_size(json_object_get(sum, "cores"))) {
        fprintf(f, "\n## Throughput and overhead against server cores%s\n\nEach point of the core sweep runs the "
                   "service on that many CPUs of the profile (threads, workers, clients set to match); overhead as "
                   "above.\n\n| service | workload | platform | kernel | config | cores | service CPUs | ops/s [95%% CI] | "
                   "overhead [CI] |\n|---|---|---|---|---|---|---|---|---|\n", em);
        json_array_foreach(json_object_get(sum, "cores"), i, o)
        {
            char cores[96];
            mtb_summary_cores_label(o, cores, sizeof cores);
            fprintf(f, "| %s | %s | %s | %s | %s/%s | %s | %s | ", mtb_jstr(o, "service"), mtb_jstr(o, "workload"),
                    mtb_jstr(o, "platform"), mtb_jstr(o, "kernel"), mtb_jstr(o, "variant"), mtb_jstr(o, "mode"), cores,
                    mtb_jstr(o, "service_cpus"));
            md_cell(f, json_object_get(o, "ops_per_sec"), MTB_CI_INT, 1);
            fprintf(f, " | ");
            if (json_is_object(json_object_get(o, "slowdown")))
                md_cell(f, json_object_get(o, "slowdown"), MTB_CI_RATIO, 1);
            else
                fprintf(f, "%s", !strcmp(mtb_jstr(o, "variant"), "plain") ? "baseline" : "-");
            fprintf(f, " |\n");
        }
    }
}

/* Markdown: figures per request of each configuration (summary field
 * `field`: perf events, tag operations), or nothing when none has any. */
static void md_per_request(FILE *f, json_t *sum, const char *field, const char *title, const char *col,
                           const char *what, const char *em)
{
    size_t i;
    json_t *c;
    if (!mtb_summary_any_config(sum, field))
        return;
    fprintf(f, "\n## %s%s\n\n%s\n\n| service | workload | config | %s |\n|---|---|---|---|\n", title, em, what, col);
    json_array_foreach(json_object_get(sum, "configs"), i, c)
    {
        json_t *pr = json_object_get(c, field);
        if (!json_is_object(pr))
            continue;
        char wl[192];
        mtb_summary_workload_label(json_object_get(c, "workload"), wl, sizeof wl);
        char *t = mtb_summary_per_request_text(pr);
        fprintf(f, "| %s | %s | %s/%s | %s |\n", mtb_jstr(c, "service"), wl, mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), t);
        free(t);
    }
}

static void md_perf(FILE *f, json_t *sum, const char *em)
{
    md_per_request(f, sum, "perf_per_request", "perf events per request", "events per request",
                   "Counted on the service for the measurement window only (perf stat); median over runs of event count ÷ requests.",
                   em);
    md_per_request(f, sum, "tag_ops_per_request", "tag operations per request", "per request",
                   "The service's own counters of per-object tagging (objtag: tag_ops = memcached chunks, nginx "
                   "pool allocations, PostgreSQL AllocSet chunks or RocksDB Arena allocations retagged, "
                   "granules_tagged = 16-byte granules) over the run incl. warm-up (RocksDB: its measured "
                   "benchmark), ÷ its own request count (memcached cmd_get + cmd_set, nginx requests, PostgreSQL "
                   "transactions, db_bench operations); median over runs.",
                   em);
}

static void md_env(FILE *f, json_t *sum)
{
    size_t i, j;
    json_t *w;
    if (json_array_size(json_object_get(sum, "warnings")))
        fprintf(f, "\n## Warnings\n\n");
    json_array_foreach(json_object_get(sum, "warnings"), i, w) fprintf(f, "- %s\n", json_string_value(w));
    json_t *env = json_object_get(sum, "environment");
    if (json_is_object(env)) {
        static const char *keys[] = { "cpu_model", "midr", "microcode", "cpus", "kernels", "kernel_cmdline", "mte",
                                      "platforms", "qemu", "glibc", "compilers", "builds", "pinning", "quiet",
                                      "mtebench_versions" };
        static const char *labels[] = { "CPU model", "MIDR", "microcode", "cores", "kernel", "kernel command line", "MTE",
                                        "platform", "QEMU", "glibc", "compilers", "builds", "pinning (read back)",
                                        "quiet-machine check", "mtebench version" };
        fprintf(f, "\n## Environment\n\n");
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            json_t *a = json_object_get(env, keys[k]);
            if (!json_array_size(a))
                continue;
            fprintf(f, "- %s: ", labels[k]);
            json_array_foreach(a, j, w) fprintf(f, "%s%s", j ? "; " : "", json_string_value(w));
            fprintf(f, "\n");
        }
        fprintf(f, "- dates: %s – %s\n", mtb_jstr(env, "first_started"), mtb_jstr(env, "last_finished"));
    }
}

char *mtb_summary_markdown(json_t *sum)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int emu = json_is_true(json_object_get(sum, "emulated"));
    const char *em = emu ? " (emulated)" : "";
    fprintf(f, "# mtebench summary%s\n\n", emu ? " (emulated: not hardware timing)" : "");
    md_results(f, sum, em);
    md_geomeans(f, sum, em);
    md_allocators(f, sum, em);
    md_kernels(f, sum, em);
    md_cores(f, sum, em);
    md_perf(f, sum, em);
    md_env(f, sum);
    if (emu)
        fprintf(f, "\n> Measured under aarch64 user-mode emulation (qemu-aarch64 -cpu max). Emulation cost is "
                   "not MTE cost: these ratios are not hardware overheads.\n");
    fclose(f);
    return buf;
}
