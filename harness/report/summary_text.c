/* summary_text.c - see summary_text.h */
#include "lib/jsonx.h"
#include "report/summary_text.h"
#include "core/record.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int mtb_ci_cell(const struct mtb_ci *ci, enum mtb_ci_style style, char *est, size_t en, char *range, size_t rn)
{
    double m = mtb_ci_estimate(ci);
    range[0] = 0;
    if (!ci->present || isnan(m)) {
        snprintf(est, en, "-");
        return 0;
    }
    double lo = ci->lo, hi = ci->hi;
    const char *star = mtb_ci_low_conf(ci) ? "*" : "";
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

static void print_head(FILE *out, const struct mtb_sum_config *c, int emu, char *last, size_t lastn)
{
    const struct mtb_sum_workload *w = &c->workload;
    char len[96];
    if (c->has_run_length)
        snprintf(len, sizeof len, "%g s per run for %lld pilot pairs, then %g s", c->pilot_s,
                 (long long)c->pilot_pairs, c->chosen_s);
    else
        snprintf(len, sizeof len, "%g s per run", w->duration_s);
    char *head = mtb_asprintf("%s on %s, kernel %s: mix %s, %lld conns, pipeline %lld, %s", c->service, c->platform,
                              c->kernel, w->mix, (long long)w->conns, (long long)w->pipeline, len);
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
static int print_config(FILE *out, const struct mtb_sum_config *c)
{
    const struct mtb_ci *ops = &c->metric[MTB_M_ops_per_sec];
    char m[32], lo[32], hi[32], cfg[64], ci[128], cores[24] = "";
    mtb_summary_fmt_int(m, sizeof m, ops->median);
    mtb_summary_fmt_int(lo, sizeof lo, ops->lo);
    mtb_summary_fmt_int(hi, sizeof hi, ops->hi);
    if (c->workload.has_cores) /* a point of a core sweep */
        snprintf(cores, sizeof cores, " %lldc", c->workload.cores);
    snprintf(cfg, sizeof cfg, "%s/%s%s", c->variant, c->mode, cores);
    snprintf(ci, sizeof ci, "%s [%s - %s]%s", m, lo, hi, mtb_ci_low_conf(ops) ? "*" : "");
    fprintf(out, "  %-*s %4d  %-32s", cfg_w, cfg, (int)c->runs, ci);
    for (size_t k = 1; k < MTB_NRUN_METRICS; k++)
        if (mtb_run_metrics[k].views & MTB_V_TABLE) {
            char v[32];
            mtb_summary_fmt_int(v, sizeof v, c->metric[k].median);
            fprintf(out, " %10s", v);
        }
    fprintf(out, "%s%s\n", c->client_bound ? "  client-bound" : "", c->errors_over_limit ? "  ERRORS" : "");
    return mtb_ci_low_conf(ops);
}

/* "  overhead tagged/sync vs plain/off: 1.234x [..] per operation (6 pairs), p99 x1.1 [..]" */
static int print_overhead(FILE *out, const struct mtb_sum_overhead *o, int emu)
{
    char ocs[32] = "";
    if (o->workload.has_cores)
        snprintf(ocs, sizeof ocs, " at %lld core%s", o->workload.cores, o->workload.cores == 1 ? "" : "s");
    fprintf(out, "  overhead %s/%s vs %s%s:", o->variant, o->mode, *o->baseline ? o->baseline : "plain/off", ocs);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        const struct mtb_ci *ci = &o->metric[m];
        if (!(d->views & MTB_V_TABLE))
            continue;
        if (m == 0)
            fprintf(out, " %.3fx [%.3f - %.3f]%s per operation (%d pairs)", ci->median, ci->lo, ci->hi,
                    mtb_ci_low_conf(ci) ? "*" : "", (int)o->pairs);
        else
            fprintf(out, ", %s x%.3f [%.3f - %.3f]%s", mtb_run_metrics[d->of].label, ci->median, ci->lo, ci->hi,
                    mtb_ci_low_conf(ci) ? "*" : "");
    }
    if (!isnan(o->mann_whitney_p))
        fprintf(out, ", Mann-Whitney p=%.3g", o->mann_whitney_p);
    if (o->sequential) {
        /* REPS=auto: "+-1.7% after 10 pairs" or "+-6.3% after 31 pairs (at most 15 min): noisy machine" */
        const struct mtb_ci *ci = &o->metric[0];
        double hw = ci->rel_halfwidth;
        int np = (int)o->pairs;
        /* the method the pairs' shape chose: "t-interval on log ratios" */
        const char *meth = ci->method, *comma = strchr(meth, ',');
        int ml = comma ? (int)(comma - meth) : (int)strlen(meth);
        if (o->stopped_by_user)
            fprintf(out, "; +-%.1f%% after %d pairs (%.*s; stopped by the user)", 100 * hw, np, ml, meth);
        else if (o->reached)
            fprintf(out, "; +-%.1f%% after %d pairs (%.*s)", 100 * hw, np, ml, meth);
        else
            fprintf(out, "; +-%.1f%% after %d pairs (%.*s; at most %g min): noisy machine, see warnings", 100 * hw,
                    np, ml, meth, o->max_time_s / 60);
    }
    fprintf(out, "%s\n", emu ? "  [emulated]" : "");
    return mtb_ci_low_conf(&o->metric[0]);
}

/* the allocators' three costs (summary "allocators"), a line each */
static void print_allocators(FILE *out, const struct mtb_sum_rows *r, int emu)
{
    for (size_t i = 0; i < r->nallocators; i++) {
        const struct mtb_sum_allocator *a = &r->allocators[i];
        const struct mtb_ci *al = &a->alone;
        fprintf(out, "  allocator %s alone (plain+%s/off vs glibc's plain/off): %.3fx [%.3f - %.3f]%s per operation "
                "(%d pairs)%s\n", a->allocator, a->allocator, al->median, al->lo, al->hi, mtb_ci_low_conf(al) ? "*" : "",
                (int)a->alone_pairs, emu ? "  [emulated]" : "");
        for (size_t j = 0; j < a->ntagging; j++) {
            const struct mtb_sum_tagging *t = &a->tagging[j];
            const struct mtb_ci *d = &t->difference;
            fprintf(out, "  tagging %s/%s: %.3fx under %s, %.3fx under glibc; ratio %.3f [%.3f - %.3f]%s (%d pairs)%s\n",
                    t->variant, t->mode, t->slowdown.median, a->allocator, t->slowdown_glibc.median, d->median, d->lo,
                    d->hi, mtb_ci_low_conf(d) ? "*" : "", (int)t->pairs, emu ? "  [emulated]" : "");
        }
    }
}

void mtb_summary_print(json_t *sum, FILE *out)
{
    struct mtb_sum_rows r;
    mtb_sum_rows_read(sum, &r);
    int emu = r.emulated;
    int starred = 0;
    size_t i;
    json_t *w;
    char last[512] = "";
    cfg_w = 16;
    for (i = 0; i < r.nconfigs; i++) {
        const struct mtb_sum_config *c = &r.configs[i];
        int cw = (int)(strlen(c->variant) + 1 + strlen(c->mode) + (c->workload.has_cores ? 5 : 0));
        cfg_w = cw > cfg_w ? cw : cfg_w;
    }
    for (i = 0; i < r.nconfigs; i++) {
        print_head(out, &r.configs[i], emu, last, sizeof last);
        starred |= print_config(out, &r.configs[i]);
    }
    for (i = 0; i < r.noverheads; i++)
        starred |= print_overhead(out, &r.overheads[i], emu);
    print_allocators(out, &r, emu);
    int seq = 0, user = 0;
    for (i = 0; i < r.noverheads; i++) {
        seq |= r.overheads[i].sequential;
        user |= r.overheads[i].stopped_by_user;
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
    json_array_foreach(r.warnings, i, w) fprintf(out, "  warning: %s\n", json_string_value(w));
    if (emu)
        fprintf(out, "  Emulated (qemu-aarch64): ratios include emulation cost; not hardware MTE overheads.\n");
    mtb_sum_rows_free(&r);
}

/* ---- Markdown ---------------------------------------------------------------------- */

/* a CI cell: "12,345 [11,000 – 13,000]", or the estimate alone (with_ci 0), or "-" */
static void md_cell(FILE *f, const struct mtb_ci *ci, enum mtb_ci_style style, int with_ci)
{
    char est[48], range[96];
    mtb_ci_cell(ci, style, est, sizeof est, range, sizeof range);
    fprintf(f, "%s%s%s", est, with_ci && *range ? " " : "", with_ci ? range : "");
}

int mtb_summary_any_config(const struct mtb_sum_rows *r, enum mtb_sum_per_request pr)
{
    for (size_t i = 0; i < r->nconfigs; i++)
        if (r->configs[i].per_request[pr])
            return 1;
    return 0;
}

void mtb_summary_workload_label(const struct mtb_sum_workload *w, char *buf, size_t n)
{
    /* the name, and what tells two configurations of one workload apart (a
     * plan's entries may differ only in mix or value size) */
    int k = snprintf(buf, n, "%s, mix %s, values %s", w->name, w->mix, w->value_size);
    if (w->has_cores && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ", %lld cores", w->cores);
}

void mtb_summary_cores_label(const struct mtb_sum_cores *row, char *buf, size_t n)
{
    snprintf(buf, n, "%lld%s%s", (long long)row->cores, *row->core_type ? " " : "", row->core_type);
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

static void md_results(FILE *f, const struct mtb_sum_rows *r, const char *em)
{
    md_results_head(f, em);
    for (size_t i = 0; i < r->nconfigs; i++) {
        const struct mtb_sum_config *c = &r->configs[i];
        const struct mtb_ci *ops = &c->metric[MTB_M_ops_per_sec];
        fprintf(f, "| %s | mix %s, %lld conns | %s%s | %s | %s/%s%s%s | %d | ", c->service, c->workload.mix,
                (long long)c->workload.conns, c->platform, c->emulated ? " (emulated)" : "", c->kernel, c->variant,
                c->mode, c->has_host ? " on " : "", c->host, (int)c->runs);
        md_cell(f, ops, MTB_CI_INT, 1);
        fprintf(f, " | %.0f%% |", 100 * ops->conf);
        for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
            if (mtb_run_metrics[m].views & MTB_V_TABLE) {
                fprintf(f, " ");
                md_cell(f, &c->metric[m], MTB_CI_INT, 0);
                fprintf(f, " |");
            }
        const struct mtb_sum_overhead *match = c->overhead;
        for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
            if (mtb_pair_metrics[m].views & MTB_V_TABLE) {
                fprintf(f, " ");
                if (match)
                    md_cell(f, &match->metric[m], MTB_CI_RATIO, 1);
                else
                    fprintf(f, "%s", c->baseline ? "baseline" : "-");
                fprintf(f, " |");
            }
        if (match && !isnan(match->mann_whitney_p))
            fprintf(f, " %.3g |\n", match->mann_whitney_p);
        else
            fprintf(f, match ? " - |\n" : " |\n");
    }
}

static void md_geomeans(FILE *f, const struct mtb_sum_rows *r, const char *em)
{
    size_t j;
    if (r->ngeomeans) {
        fprintf(f, "\n## Geometric mean of overheads%s\n\nAcross services and workloads; 95%% CI by bootstrap-t on "
                   "the log scale.\n\n| config | platform | kernel | n | geometric mean [CI] | over |\n|---|---|---|---|---|---|\n", em);
        for (size_t i = 0; i < r->ngeomeans; i++) {
            const struct mtb_sum_geomean *o = &r->geomeans[i];
            fprintf(f, "| %s/%s | %s | %s | %d | ", o->variant, o->mode, o->platform, o->kernel, (int)o->n);
            md_cell(f, &o->slowdown, MTB_CI_RATIO, 1);
            fprintf(f, " | ");
            json_t *m;
            json_array_foreach(o->of, j, m) fprintf(f, "%s%s", j ? ", " : "", json_string_value(m));
            fprintf(f, " |\n");
        }
    }
}

static void md_allocators(FILE *f, const struct mtb_sum_rows *r, const char *em)
{
    if (!r->nallocators)
        return;
    fprintf(f, "\n## Allocators%s\n\nThree costs: the allocator alone (its plain/off against glibc's plain/off), "
               "tagging under each allocator (each against its own plain/off), and their ratio (per repetition, "
               "median; 95%% CI).\n\n| service | allocator | configuration | slowdown under it [CI] | under glibc [CI] | "
               "ratio [CI] | pairs |\n|---|---|---|---|---|---|---|\n", em);
    for (size_t i = 0; i < r->nallocators; i++) {
        const struct mtb_sum_allocator *a = &r->allocators[i];
        fprintf(f, "| %s | %s | plain/off: the allocator alone | ", a->service, a->allocator);
        md_cell(f, &a->alone, MTB_CI_RATIO, 1);
        fprintf(f, " | 1 (the baseline) | - | %d |\n", (int)a->alone_pairs);
        for (size_t j = 0; j < a->ntagging; j++) {
            const struct mtb_sum_tagging *t = &a->tagging[j];
            fprintf(f, "| %s | %s | %s/%s | ", a->service, a->allocator, t->variant, t->mode);
            md_cell(f, &t->slowdown, MTB_CI_RATIO, 1);
            fprintf(f, " | ");
            md_cell(f, &t->slowdown_glibc, MTB_CI_RATIO, 1);
            fprintf(f, " | ");
            md_cell(f, &t->difference, MTB_CI_RATIO, 1);
            fprintf(f, " | %d |\n", (int)t->pairs);
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

void mtb_summary_kernel_row(const struct mtb_sum_kernel *k, struct mtb_summary_kernel_row *r)
{
    snprintf(r->text[0], sizeof r->text[0], "%s", k->service);
    snprintf(r->text[1], sizeof r->text[1], "%s/%s", k->variant, k->mode);
    snprintf(r->text[2], sizeof r->text[2], "%s%s", k->platform, k->emulated ? " (emulated)" : "");
    snprintf(r->text[3], sizeof r->text[3], "%s", k->kernel_a);
    snprintf(r->text[4], sizeof r->text[4], "%s", k->kernel_b);
    snprintf(r->text[5], sizeof r->text[5], "%lld/%lld", k->runs_a, k->runs_b);
    mtb_summary_fmt_int(r->text[6], sizeof r->text[6], k->ops_a);
    mtb_summary_fmt_int(r->text[7], sizeof r->text[7], k->ops_b);
    r->delta = &k->delta;
    if (!isnan(k->mann_whitney_p))
        snprintf(r->p, sizeof r->p, "%.3g (%s)", k->mann_whitney_p,
                 k->significant ? "significant, p < 0.05" : "not significant");
    else
        snprintf(r->p, sizeof r->p, "-");
    r->slowdown[0] = &k->slowdown_a;
    r->slowdown[1] = &k->slowdown_b;
}

json_t *mtb_summary_kernel_notes(const struct mtb_sum_rows *r)
{
    json_t *notes = json_array();
    for (size_t i = 0; i < r->nkernels; i++)
        mtb_jadd_unique(notes, r->kernels[i].note);
    return notes;
}

static void md_kernels(FILE *f, const struct mtb_sum_rows *rows, const char *em)
{
    json_t *o;
    size_t i;
    if (!rows->nkernels)
        return;
    fprintf(f, "\n## Kernel comparison%s\n\n%s\n\n|", em, mtb_summary_kernel_note);
    for (int c = 0; c < MTB_SUMMARY_KERNEL_NCOLS; c++)
        fprintf(f, " %s |", mtb_summary_kernel_cols[c]);
    fprintf(f, "\n|");
    for (int c = 0; c < MTB_SUMMARY_KERNEL_NCOLS; c++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (i = 0; i < rows->nkernels; i++) {
        struct mtb_summary_kernel_row r;
        mtb_summary_kernel_row(&rows->kernels[i], &r);
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
    json_t *notes = mtb_summary_kernel_notes(rows);
    json_array_foreach(notes, i, o) fprintf(f, "\n> Kernel comparison %s.\n", json_string_value(o));
    json_decref(notes);
}

static void md_cores(FILE *f, const struct mtb_sum_rows *r, const char *em)
{
    if (r->ncores) {
        fprintf(f, "\n## Throughput and overhead against server cores%s\n\nEach point of the core sweep runs the "
                   "service on that many CPUs of the profile (threads, workers, clients set to match); overhead as "
                   "above.\n\n| service | workload | platform | kernel | config | cores | service CPUs | ops/s [95%% CI] | "
                   "overhead [CI] |\n|---|---|---|---|---|---|---|---|---|\n", em);
        for (size_t i = 0; i < r->ncores; i++) {
            const struct mtb_sum_cores *o = &r->cores[i];
            char cores[96];
            mtb_summary_cores_label(o, cores, sizeof cores);
            fprintf(f, "| %s | %s | %s | %s | %s/%s | %s | %s | ", o->service, o->workload, o->platform, o->kernel,
                    o->variant, o->mode, cores, o->service_cpus);
            md_cell(f, &o->ops_per_sec, MTB_CI_INT, 1);
            fprintf(f, " | ");
            if (o->slowdown.present)
                md_cell(f, &o->slowdown, MTB_CI_RATIO, 1);
            else
                fprintf(f, "%s", !strcmp(o->variant, "plain") ? "baseline" : "-");
            fprintf(f, " |\n");
        }
    }
}

/* Markdown: figures per request of each configuration (summary field
 * `field`: perf events, tag operations), or nothing when none has any. */
static void md_per_request(FILE *f, const struct mtb_sum_rows *r, enum mtb_sum_per_request pr, const char *title,
                           const char *col, const char *what, const char *em)
{
    if (!mtb_summary_any_config(r, pr))
        return;
    fprintf(f, "\n## %s%s\n\n%s\n\n| service | workload | config | %s |\n|---|---|---|---|\n", title, em, what, col);
    for (size_t i = 0; i < r->nconfigs; i++) {
        const struct mtb_sum_config *c = &r->configs[i];
        if (!c->per_request[pr])
            continue;
        char wl[192];
        mtb_summary_workload_label(&c->workload, wl, sizeof wl);
        char *t = mtb_summary_per_request_text(c->per_request[pr]);
        fprintf(f, "| %s | %s | %s/%s | %s |\n", c->service, wl, c->variant, c->mode, t);
        free(t);
    }
}

static void md_perf(FILE *f, const struct mtb_sum_rows *r, const char *em)
{
    md_per_request(f, r, MTB_PR_perf, "perf events per request", "events per request",
                   "Counted on the service for the measurement window only (perf stat); median over runs of event count ÷ requests.",
                   em);
    md_per_request(f, r, MTB_PR_tag_ops, "tag operations per request", "per request",
                   "The service's own counters of per-object tagging (objtag: tag_ops = memcached chunks, nginx "
                   "pool allocations, PostgreSQL AllocSet chunks or RocksDB Arena allocations retagged, "
                   "granules_tagged = 16-byte granules) over the run incl. warm-up (RocksDB: its measured "
                   "benchmark), ÷ its own request count (memcached cmd_get + cmd_set, nginx requests, PostgreSQL "
                   "transactions, db_bench operations); median over runs.",
                   em);
}

static void md_env(FILE *f, const struct mtb_sum_rows *r)
{
    size_t i, j;
    json_t *w;
    if (json_array_size(r->warnings))
        fprintf(f, "\n## Warnings\n\n");
    json_array_foreach(r->warnings, i, w) fprintf(f, "- %s\n", json_string_value(w));
    if (r->has_environment) {
        fprintf(f, "\n## Environment\n\n");
        for (size_t k = 0; k < MTB_NENV; k++) {
            if (!json_array_size(r->env[k]))
                continue;
            fprintf(f, "- %s: ", mtb_sum_env_labels[k]);
            json_array_foreach(r->env[k], j, w) fprintf(f, "%s%s", j ? "; " : "", json_string_value(w));
            fprintf(f, "\n");
        }
        fprintf(f, "- dates: %s – %s\n", r->first_started, r->last_finished);
    }
}

char *mtb_summary_markdown(json_t *sum)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct mtb_sum_rows r;
    mtb_sum_rows_read(sum, &r);
    int emu = r.emulated;
    const char *em = emu ? " (emulated)" : "";
    fprintf(f, "# mtebench summary%s\n\n", emu ? " (emulated: not hardware timing)" : "");
    md_results(f, &r, em);
    md_geomeans(f, &r, em);
    md_allocators(f, &r, em);
    md_kernels(f, &r, em);
    md_cores(f, &r, em);
    md_perf(f, &r, em);
    md_env(f, &r);
    mtb_sum_rows_free(&r);
    if (emu)
        fprintf(f, "\n> Measured under aarch64 user-mode emulation (qemu-aarch64 -cpu max). Emulation cost is "
                   "not MTE cost: these ratios are not hardware overheads.\n");
    fclose(f);
    return buf;
}
