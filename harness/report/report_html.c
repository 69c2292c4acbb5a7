/* report_html.c - the report's index.html (see report.h): self-contained
 * (inline CSS and gnuplot's SVG), its tables generated from the summary and
 * record.h's metric table. */
#include "lib/jsonx.h"
#include "report/report.h"
#include "report/capacity_out.h"
#include "core/capacity_rows.h"
#include "core/fault_rows.h"
#include "core/record_outcome.h"
#include "core/summary_rows.h"
#include "report/plot.h"
#include "core/work.h"
#include "analysis/summary.h"
#include "report/summary_text.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- escaping -------------------------------------------------------------- */

char *mtb_html_escape(const char *s)
{
    if (!s)
        s = "";
    char *out = mtb_calloc(6 * strlen(s) + 1, 1), *o = out;
    for (; *s; s++) {
        const char *r = NULL;
        switch (*s) {
        case '&': r = "&amp;"; break;
        case '<': r = "&lt;"; break;
        case '>': r = "&gt;"; break;
        case '"': r = "&quot;"; break;
        case '\'': r = "&#39;"; break;
        }
        if (r) {
            strcpy(o, r);
            o += strlen(r);
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return out;
}

/* fputs HTML-escaped text */
static void hput(FILE *f, const char *s)
{
    char *e = mtb_html_escape(s);
    fputs(e, f);
    free(e);
}

/* ---- HTML ------------------------------------------------------------------ */

const char mtb_report_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1200px;"
    "padding:0 18px 40px;color:#1d1d1f;background:#fff}"
    "h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd;"
    "padding-bottom:3px}h3{font-size:15px;margin:18px 0 6px}"
    ".emu{background:#fff1f0;border:1px solid #e0a0a0;color:#8a1020;padding:8px 12px;border-radius:4px;"
    "font-weight:600}.tag{color:#b00020;font-weight:600}"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}"
    "caption{text-align:left;font-weight:600;padding:4px 0;caption-side:top}"
    "th,td{border:1px solid #d8d8d8;padding:3px 7px;text-align:right;vertical-align:top}"
    "th{background:#f3f4f6}td.l,th.l{text-align:left}small{color:#555}"
    "tr.base td{background:#fafafa}.warn{color:#8a4b00}.bad{color:#8a1020}"
    ".plot{max-width:1000px;margin:8px 0 18px}.plot svg{width:100%;height:auto;display:block}"
    "dl.env{display:grid;grid-template-columns:max-content auto;gap:2px 14px}dl.env dt{font-weight:600}"
    "dl.env dd{margin:0}code{background:#f3f4f6;padding:0 3px}nav a{margin-right:12px}"
    ".head{font-size:17px}.note{color:#444}";


/* a CI in a cell: "12,345<br><small>[11,000 – 13,000]</small>" (the cell text is shared with the Markdown) */
static void td_cell(FILE *f, const struct mtb_ci *ci, enum mtb_ci_style style)
{
    char est[48], range[96];
    mtb_ci_cell(ci, style, est, sizeof est, range, sizeof range);
    fprintf(f, "<td>%s", est);
    if (*range)
        fprintf(f, "<br><small>%s</small>", range);
    fprintf(f, "</td>");
}
static void td_ci(FILE *f, const struct mtb_ci *ci) { td_cell(f, ci, MTB_CI_INT); }
static void td_ratio(FILE *f, const struct mtb_ci *ci, int delta) { td_cell(f, ci, delta ? MTB_CI_DELTA : MTB_CI_RATIO); }

static void td_conf(FILE *f, const struct mtb_ci *ci)
{
    double c = ci->conf;
    if (isnan(c))
        fprintf(f, "<td>-</td>");
    else if (c <= 0)
        fprintf(f, "<td class=\"warn\">none (1 run)</td>");
    else
        fprintf(f, "<td%s>%.1f%%</td>", c < 0.95 - 1e-9 ? " class=\"warn\"" : "", 100 * c);
}

static void td_text(FILE *f, const char *s, int left)
{
    fprintf(f, "<td%s>", left ? " class=\"l\"" : "");
    hput(f, s);
    fprintf(f, "</td>");
}

static void caption(FILE *f, const char *title, int emulated)
{
    fprintf(f, "<caption>");
    hput(f, title);
    if (emulated)
        fprintf(f, " <span class=\"tag\">(%s)</span>", MTB_PLOT_EMU_LABEL);
    fprintf(f, "</caption>\n");
}

/* one configuration's row of the results table: its identity, every run
 * metric and, for a tagged one, every pair metric against its baseline */
static void results_row(FILE *f, const struct mtb_sum_config *c)
{
    const struct mtb_sum_workload *w = &c->workload;
    fprintf(f, "<tr%s>", c->baseline ? " class=\"base\"" : "");
    td_text(f, c->service, 1);
    char *wl = mtb_asprintf("mix %s, %lld conns, pipeline %lld, %lld keys, %g s", w->mix, (long long)w->conns,
                            (long long)w->pipeline, (long long)w->keys, w->duration_s);
    td_text(f, wl, 1);
    free(wl);
    char *pl = mtb_asprintf("%s%s", c->platform, c->emulated ? " (emulated)" : "");
    td_text(f, pl, 1);
    free(pl);
    td_text(f, c->kernel, 1);
    char *cfg = mtb_asprintf("%s/%s%s%s%s%s%s", c->variant, c->mode, c->client_bound ? " (client-bound)" : "",
                             c->errors_over_limit ? " (errors above the limit)" : "", c->noisy ? " (noisy)" : "",
                             c->has_host ? " on " : "", c->host);
    td_text(f, cfg, 1);
    free(cfg);
    fprintf(f, "<td>%lld</td>", c->runs);
    td_ci(f, &c->metric[MTB_M_ops_per_sec]);
    td_conf(f, &c->metric[MTB_M_ops_per_sec]);
    for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_TABLE)
            td_ci(f, &c->metric[m]);
    const struct mtb_sum_overhead *o = c->overhead;
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        if (mtb_pair_metrics[m].views & MTB_V_TABLE) {
            if (o)
                td_ratio(f, &o->metric[m], 0);
            else
                fprintf(f, "<td>%s</td>", c->baseline ? "baseline" : "-");
        }
    if (o) {
        fprintf(f, "<td>%lld</td>", o->pairs);
        if (!isnan(o->mann_whitney_p))
            fprintf(f, "<td>%.3g</td>", o->mann_whitney_p);
        else
            fprintf(f, "<td>-</td>");
    } else {
        fprintf(f, "<td></td><td></td>");
    }
    fprintf(f, "</tr>\n");
}

/* every latency metric of the table, per configuration */
static void html_latencies(FILE *f, const struct mtb_sum_rows *r, int emu)
{
    fprintf(f, "<table>\n");
    caption(f, "Latency percentiles per configuration (µs): median over runs, 95% CI below", emu);
    fprintf(f, "<tr><th class=\"l\">service</th><th class=\"l\">config</th><th class=\"l\">kernel</th>");
    for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
        fprintf(f, "<th>%s</th>", mtb_run_metrics[m].label);
    fprintf(f, "</tr>\n");
    for (size_t i = 0; i < r->nconfigs; i++) {
        const struct mtb_sum_config *c = &r->configs[i];
        fprintf(f, "<tr>");
        td_text(f, c->service, 1);
        char *cfg = mtb_asprintf("%s/%s%s%s", c->variant, c->mode, c->has_host ? " on " : "", c->host);
        td_text(f, cfg, 1);
        free(cfg);
        td_text(f, c->kernel, 1);
        for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
            td_ci(f, &c->metric[m]);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

static void html_results(FILE *f, const struct mtb_sum_rows *r, int emu)
{
    fprintf(f, "<section id=\"results\"><h2>Throughput and latency</h2>\n<table>\n");
    caption(f, "Per service, workload and mode: medians over runs, 95% CI below each", emu);
    fprintf(f, "<tr><th class=\"l\">service</th><th class=\"l\">workload</th><th class=\"l\">platform</th>"
               "<th class=\"l\">kernel</th><th class=\"l\">config</th><th>runs</th><th>ops/s</th><th>CI conf.</th>");
    for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_TABLE)
            fprintf(f, "<th>%s %s</th>", mtb_run_metrics[m].label, mtb_run_metrics[m].unit);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        if (mtb_pair_metrics[m].views & MTB_V_TABLE)
            fprintf(f, "<th>%s%s</th>", mtb_pair_metrics[m].label, m == 0 ? " (slowdown)" : "");
    fprintf(f, "<th>pairs</th><th>Mann–Whitney p</th></tr>\n");
    for (size_t i = 0; i < r->nconfigs; i++)
        results_row(f, &r->configs[i]);
    fprintf(f, "</table>\n<p class=\"note\">Overhead (slowdown) = baseline ops/s ÷ tagged ops/s for each pair of "
               "interleaved runs (paired by repetition), summarised by the median of the pairs, as the 2026 study "
               "did; 1.25x means 25%% more time per operation. CIs are distribution-free order-statistic intervals; "
               "<small>*</small> marks an interval with less than 95%% confidence (too few runs: it is [min – max] "
               "and the confidence column says what it achieves; 6 runs or pairs reach 95%%).</p>\n");
    html_latencies(f, r, emu);
}

void mtb_report_plot(FILE *f, const char *script, const char *id_prefix, int width, int height, json_t *problems)
{
    if (!script)
        return;
    char err[MTB_ERRLEN];
    char *svg = NULL;
    if (mtb_plot_render(script, id_prefix, width, height, &svg, err, sizeof err) != 0) {
        fprintf(f, "<p class=\"warn\">plot not drawn: ");
        hput(f, err);
        fprintf(f, "</p>\n");
        json_array_append_new(problems, json_string(err));
        return;
    }
    fprintf(f, "<div class=\"plot\">\n%s</div>\n", svg);
    free(svg);
}

static void html_plot(FILE *f, const char *script, int *nplot, int width, int height, json_t *problems)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "p%d-", ++*nplot);
    mtb_report_plot(f, script, prefix, width, height, problems);
}

static void html_overheads(FILE *f, json_t *sum, const struct mtb_sum_rows *r, int emu, int *nplot, json_t *problems)
{
    fprintf(f, "<section id=\"overhead\"><h2>Overhead of tagging</h2>\n");
    if (!r->noverheads) {
        fprintf(f, "<p>No overhead: the records hold no tagged configuration with a plain/off baseline of the same "
                   "repetition.</p></section>\n");
        return;
    }
    char *s = mtb_plot_overhead_script(sum);
    html_plot(f, s, nplot, 900, 380, problems);
    free(s);
    if (r->ngeomeans) {
        fprintf(f, "<table>\n");
        caption(f, "Geometric mean of the overheads across services and workloads (95% CI, bootstrap-t on the log scale)", emu);
        fprintf(f, "<tr><th class=\"l\">config</th><th class=\"l\">platform</th><th class=\"l\">kernel</th><th>n</th>"
                   "<th>geometric mean</th><th class=\"l\">over</th></tr>\n");
        size_t j;
        json_t *m;
        for (size_t i = 0; i < r->ngeomeans; i++) {
            const struct mtb_sum_geomean *g = &r->geomeans[i];
            fprintf(f, "<tr>");
            char *cfg = mtb_asprintf("%s/%s", g->variant, g->mode);
            td_text(f, cfg, 1);
            free(cfg);
            td_text(f, g->platform, 1);
            td_text(f, g->kernel, 1);
            fprintf(f, "<td>%lld</td>", g->n);
            td_ratio(f, &g->slowdown, 0);
            fprintf(f, "<td class=\"l\">");
            json_array_foreach(g->of, j, m)
            {
                if (j)
                    fprintf(f, ", ");
                hput(f, json_string_value(m));
            }
            fprintf(f, "</td></tr>\n");
        }
        fprintf(f, "</table>\n<p class=\"note\">With one workload the geometric mean is that workload's overhead "
                   "and has no interval of its own.</p>\n");
    }
    fprintf(f, "</section>\n");
}

/* What the price buys: the catch rate of mtebench detect's matrices beside
 * the overhead of the same service, variant and mode (report --detect) */
static void html_protection(FILE *f, json_t *sum, int emu, int *nplot, json_t *problems)
{
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(sum, &sec);
    json_t *rows = sec.protection;
    if (!json_array_size(rows))
        return;
    size_t n;
    struct mtb_sum_protection *v = mtb_sum_protection_read(rows, &n);
    fprintf(f, "<section id=\"protection\"><h2>What the price buys</h2>\n<p class=\"note\">Each configuration's "
               "overhead beside the bugs of its service's catalogue it catches by a tag check (most trials; "
               "<code>mtebench detect</code>, docs/DETECTION.md), with Wilson 95%% intervals over bugs. Detection "
               "is exact under QEMU (its tag checks follow the architecture); timings under emulation are "
               "emulated.</p>\n<table><tr><th>configuration</th><th>overhead (time per operation)</th><th>bugs "
               "caught</th><th>fraction [95%%]</th><th>explained (cause and object) [95%%]</th><th>detection measured "
               "on</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        struct mtb_protection_text t;
        mtb_report_protection_text(&v[i], emu, &t);
        const char *cells[] = { t.config, t.cost, t.caught, t.fraction, t.explained, t.where };
        fputs("<tr>", f);
        for (size_t k = 0; k < sizeof cells / sizeof *cells; k++) {
            fputs("<td>", f);
            hput(f, cells[k]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fprintf(f, "</table>\n");
    free(v);
    char *script = mtb_plot_protection_script(rows, emu);
    html_plot(f, script, nplot, 900, 460, problems);
    free(script);
    fprintf(f, "</section>\n");
}

/* Capacity at an SLO: each capacity search's result among the results (its
 * directory's capacity.json), plot and tables as capacity.html has them */
static void html_capacity(FILE *f, json_t *sum, int *nplot, json_t *problems)
{
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(sum, &sec);
    json_t *r;
    size_t i;
    json_array_foreach(sec.capacity, i, r) {
        struct mtb_cap_rows cr;
        mtb_cap_rows_read(r, &cr);
        char *t = mtb_asprintf("Capacity of %s %s at %s", cr.service, cr.workload, cr.slo_text);
        mtb_cap_rows_free(&cr);
        fprintf(f, "<section id=\"capacity-%zu\"><h2>", i + 1);
        hput(f, t);
        fprintf(f, "</h2>\n<p class=\"note\">mtebench capacity (docs/CAPACITY.md): its runs are among this "
                   "report's records, one configuration per offered rate.</p>\n");
        char id[32];
        snprintf(id, sizeof id, "p%d-", ++*nplot);
        mtb_capacity_html(f, r, id, problems);
        fprintf(f, "</section>\n");
        free(t);
    }
}

/* MTE's work per request of the counted runs among the results (bench's
 * pair, a plan's count): exact, not timed (docs/COUNTING.md) */
static void html_work(FILE *f, json_t *sum)
{
    struct mtb_sum_work *w;
    size_t n;
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(sum, &sec);
    mtb_sum_work_read(sec.work, &w, &n);
    if (!n) {
        free(w);
        return;
    }
    fprintf(f, "<section id=\"work\"><h2>MTE's work per request (exact, counted)</h2>\n<p class=\"note\">Counted "
               "on vm with the plugin (docs/COUNTING.md), never timed: per request on the service's vCPU, the "
               "load's window less an idle one. In brackets, the ratio to plain/off on the same kernel.</p>\n"
               "<table><tr><th class=\"l\">config</th><th class=\"l\">kernel</th>");
    for (int q = 0; q < MTB_NWORK; q++) {
        fprintf(f, "<th>");
        hput(f, mtb_work_quantities[q].label);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
    for (size_t i = 0; i < n; i++) {
        const struct mtb_sum_work *r = &w[i];
        char *cfg = mtb_asprintf("%s %s/%s", r->service, r->variant, r->mode);
        fprintf(f, "<tr><td class=\"l\">");
        hput(f, cfg);
        fprintf(f, "</td><td class=\"l\">");
        hput(f, r->kernel);
        fprintf(f, "</td>");
        free(cfg);
        for (int q = 0; q < MTB_NWORK; q++) {
            fprintf(f, "<td>%.2f", r->values[q]);
            if (r->has_ratio[q] && !r->baseline)
                fprintf(f, "<br><small>%.2fx</small>", r->ratio[q]);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table></section>\n");
    free(w);
}

/* Throughput and overhead against server cores (a core sweep) */
static void html_cores(FILE *f, json_t *sum, const struct mtb_sum_rows *rows, int emu, int *nplot, json_t *problems)
{
    if (!rows->ncores)
        return;
    fprintf(f, "<section id=\"cores\"><h2>Throughput and overhead against server cores</h2>\n<p class=\"note\">Each "
               "point of the core sweep runs the service on that many CPUs of the machine profile, with as many service "
               "threads (memcached <code>-t</code>, nginx <code>worker_processes</code>, pgbench clients and jobs, "
               "db_bench threads).</p>\n");
    char *s = mtb_plot_cores_script(sum);
    html_plot(f, s, nplot, 900, 380, problems);
    free(s);
    fprintf(f, "<table>\n");
    caption(f, "Throughput (median, 95% CI) and overhead against server cores", emu);
    fprintf(f, "<tr><th class=\"l\">service</th><th class=\"l\">workload</th><th class=\"l\">platform</th>"
               "<th class=\"l\">kernel</th><th class=\"l\">config</th><th>cores</th><th class=\"l\">service CPUs</th>"
               "<th>ops/s</th><th>overhead</th></tr>\n");
    for (size_t i = 0; i < rows->ncores; i++) {
        const struct mtb_sum_cores *r = &rows->cores[i];
        fprintf(f, "<tr>");
        td_text(f, r->service, 1);
        td_text(f, r->workload, 1);
        td_text(f, r->platform, 1);
        td_text(f, r->kernel, 1);
        char *cfg = mtb_asprintf("%s/%s", r->variant, r->mode);
        td_text(f, cfg, 1);
        free(cfg);
        char cores[96];
        mtb_summary_cores_label(r, cores, sizeof cores);
        td_text(f, cores, 0);
        td_text(f, r->service_cpus, 1);
        td_ci(f, &r->ops_per_sec);
        if (r->slowdown.present)
            td_ratio(f, &r->slowdown, 0);
        else
            td_text(f, !strcmp(r->variant, "plain") ? "baseline" : "-", 0);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

/* figures per request of each configuration (summary field `field`: perf
 * events, tag operations), baseline against tagged */
static void html_per_request(FILE *f, const struct mtb_sum_rows *r, int emu, enum mtb_sum_per_request pr,
                             const char *id, const char *title, const char *what)
{
    if (!mtb_summary_any_config(r, pr))
        return;
    fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n<table>\n", id, title);
    caption(f, what, emu);
    fprintf(f, "<tr><th class=\"l\">service</th><th class=\"l\">workload</th><th class=\"l\">config</th>"
               "<th class=\"l\">%s</th></tr>\n", title);
    for (size_t i = 0; i < r->nconfigs; i++) {
        const struct mtb_sum_config *c = &r->configs[i];
        if (!c->per_request[pr])
            continue;
        fprintf(f, "<tr>");
        td_text(f, c->service, 1);
        char wl[192];
        mtb_summary_workload_label(&c->workload, wl, sizeof wl);
        td_text(f, wl, 1);
        char *cfg = mtb_asprintf("%s/%s", c->variant, c->mode);
        td_text(f, cfg, 1);
        free(cfg);
        char *t = mtb_summary_per_request_text(c->per_request[pr]);
        td_text(f, t, 1);
        free(t);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

/* the allocators' three costs (summary "allocators") */
static void html_allocators(FILE *f, const struct mtb_sum_rows *r)
{
    if (!r->nallocators)
        return;
    fprintf(f, "<section id=\"allocators\"><h2>Allocators</h2>\n<table>\n");
    caption(f, "What an allocator costs alone, and tagging under it beside tagging under glibc", r->emulated);
    fprintf(f, "<tr><th class=\"l\">service</th><th class=\"l\">allocator</th><th class=\"l\">configuration</th>"
               "<th>slowdown under it</th><th>under glibc</th><th>ratio</th><th>pairs</th></tr>\n");
    for (size_t i = 0; i < r->nallocators; i++) {
        const struct mtb_sum_allocator *a = &r->allocators[i];
        fprintf(f, "<tr>");
        td_text(f, a->service, 1);
        td_text(f, a->allocator, 1);
        td_text(f, "plain/off: the allocator alone", 1);
        td_ratio(f, &a->alone, 0);
        fprintf(f, "<td>1 (baseline)</td><td>-</td><td>%lld</td></tr>\n", a->alone_pairs);
        for (size_t j = 0; j < a->ntagging; j++) {
            const struct mtb_sum_tagging *t = &a->tagging[j];
            fprintf(f, "<tr>");
            td_text(f, a->service, 1);
            td_text(f, a->allocator, 1);
            char *cfg = mtb_asprintf("%s/%s", t->variant, t->mode);
            td_text(f, cfg, 1);
            free(cfg);
            td_ratio(f, &t->slowdown, 0);
            td_ratio(f, &t->slowdown_glibc, 0);
            td_ratio(f, &t->difference, 0);
            fprintf(f, "<td>%lld</td></tr>\n", t->pairs);
        }
    }
    fprintf(f, "</table>\n<p class=\"note\">The allocator alone: its plain/off against glibc's plain/off of the same "
               "repetition. Tagging: each configuration against its own allocator's plain/off, beside the same "
               "configuration under glibc; ratio: the two slowdowns' ratio per repetition (median, 95%% CI).</p>\n"
               "</section>\n");
}

static void html_kernels(FILE *f, const struct mtb_sum_rows *rows)
{
    json_t *k;
    if (!rows->nkernels)
        return;
    fprintf(f, "<section id=\"kernels\"><h2>Kernel comparison</h2>\n<table>\n");
    int emu = 0;
    size_t i;
    for (i = 0; i < rows->nkernels; i++)
        emu |= rows->kernels[i].emulated;
    caption(f, "Same service, workload, variant and mode under two kernels", emu);
    fprintf(f, "<tr>");
    for (int c = 0; c < MTB_SUMMARY_KERNEL_NCOLS; c++) {
        fprintf(f, "<th%s>", c < 5 ? " class=\"l\"" : "");
        hput(f, mtb_summary_kernel_cols[c]);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
    for (i = 0; i < rows->nkernels; i++) {
        struct mtb_summary_kernel_row r;
        mtb_summary_kernel_row(&rows->kernels[i], &r);
        fprintf(f, "<tr>");
        for (int c = 0; c < 8; c++)
            td_text(f, r.text[c], c < 5);
        td_ratio(f, r.delta, 1);
        td_text(f, r.p, 0);
        td_ratio(f, r.slowdown[0], 0);
        td_ratio(f, r.slowdown[1], 0);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n<p class=\"note\">");
    hput(f, mtb_summary_kernel_note);
    fprintf(f, "</p>\n");
    json_t *notes = mtb_summary_kernel_notes(rows);
    json_array_foreach(notes, i, k)
    {
        fprintf(f, "<p class=\"%s\">Kernel comparison ", emu ? "emu" : "note");
        hput(f, json_string_value(k));
        fprintf(f, ".</p>\n");
    }
    json_decref(notes);
    fprintf(f, "</section>\n");
}

/* the groups (service, workload, platform) of the ok records, in order of appearance */
static json_t *plot_groups(json_t *records)
{
    json_t *groups = json_array();
    size_t i, j;
    json_t *rec, *g;
    json_array_foreach(records, i, rec)
    {
        if (mtb_record_status(rec) != MTB_RUN_OK)
            continue;
        char *k = mtb_plot_group(rec);
        int dup = 0;
        json_array_foreach(groups, j, g) dup |= !strcmp(json_string_value(g), k);
        if (!dup)
            json_array_append_new(groups, json_string(k));
        free(k);
    }
    return groups;
}

static int group_emulated(json_t *records, const char *group)
{
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        char *g = mtb_plot_group(rec);
        int in = !strcmp(g, group);
        free(g);
        if (in && mtb_record_emulated(rec))
            return 1;
    }
    return 0;
}

static void html_runs(FILE *f, const struct mtb_record_set *set, int emu)
{
    fprintf(f, "<section id=\"runs\"><h2>Runs</h2>\n<table>\n");
    caption(f, "Every run read (runs.csv has all columns)", emu);
    fprintf(f, "<tr><th>#</th><th class=\"l\">record</th><th class=\"l\">status</th><th class=\"l\">config</th>"
               "<th class=\"l\">kernel</th><th>rep</th>");
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_TABLE)
            fprintf(f, m ? "<th>%s %s</th>" : "<th>%s</th>", mtb_run_metrics[m].label, mtb_run_metrics[m].unit);
    fprintf(f, "<th class=\"l\">note</th></tr>\n");
    size_t i;
    json_t *rec;
    json_array_foreach(set->records, i, rec)
    {
        struct mtb_rec_config c;
        mtb_rec_config_view(rec, &c);
        struct mtb_rec_figures fig;
        mtb_rec_figures_read(rec, &fig);
        int ok = mtb_record_status(rec) == MTB_RUN_OK;
        fprintf(f, "<tr%s><td>%zu</td>", ok ? "" : " class=\"bad\"", i + 1);
        td_text(f, json_string_value(json_array_get(set->files, i)), 1);
        struct mtb_rec_outcome ro;
        mtb_rec_outcome_read(rec, &ro);
        td_text(f, ro.status ? ro.status : "", 1);
        char *cfg = mtb_asprintf("%s %s/%s", c.service, c.variant, c.mode);
        td_text(f, cfg, 1);
        free(cfg);
        td_text(f, c.kernel, 1);
        fprintf(f, "<td>%d</td>", c.rep);
        for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
            if (mtb_run_metrics[m].views & MTB_V_TABLE) {
                char v[32];
                mtb_summary_fmt_int(v, sizeof v, ok ? fig.metric[m] : NAN);
                fprintf(f, "<td>%s</td>", v);
            }
        char *note = NULL;
        if (json_is_object(ro.fault)) {
            struct mtb_fault_view fv;
            mtb_fault_view_read(ro.fault, &fv);
            note = mtb_asprintf("fault: signal %lld, si_code %lld (%s)", fv.signal, fv.si_code, fv.kind);
            mtb_fault_view_free(&fv);
        }
        else if (!ok)
            note = mtb_strdup(ro.error ? ro.error : "");
        else if (fig.errors_over_limit)
            note = mtb_asprintf("%.3f%% of requests answered with an error, lost or never sent", 100 * fig.error_rate);
        else if (fig.client_bound)
            note = mtb_strdup("client-bound");
        td_text(f, note ? note : "", 1);
        free(note);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

static void html_bad(FILE *f, const struct mtb_record_set *set)
{
    if (!json_array_size(set->bad))
        return;
    fprintf(f, "<section id=\"bad\"><h2>Records not used</h2>\n<table>\n<caption>Files and directories that gave "
               "no usable record</caption>\n<tr><th class=\"l\">file</th><th class=\"l\">problem</th></tr>\n");
    for (size_t i = 0; i < json_array_size(set->bad); i++) {
        struct mtb_record_bad b;
        mtb_record_bad_read(set, i, &b);
        fprintf(f, "<tr class=\"bad\">");
        td_text(f, b.file, 1);
        td_text(f, b.problem, 1);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

static void html_env(FILE *f, const struct mtb_sum_rows *r)
{
    fprintf(f, "<section id=\"environment\"><h2>Environment</h2>\n<dl class=\"env\">\n");
    for (size_t k = 0; k < MTB_NENV; k++) {
        json_t *a = r->env[k], *v;
        size_t i;
        if (!json_array_size(a))
            continue;
        /* the page says more than the Markdown of two */
        fprintf(f, "<dt>%s</dt><dd>", k == MTB_ENV_builds              ? "builds (variant: key)"
                                      : k == MTB_ENV_mtebench_versions ? "mtebench version (runs)"
                                                                       : mtb_sum_env_labels[k]);
        json_array_foreach(a, i, v)
        {
            if (i)
                fprintf(f, "<br>");
            hput(f, json_string_value(v));
        }
        fprintf(f, "</dd>\n");
    }
    fprintf(f, "<dt>dates</dt><dd>");
    hput(f, r->first_started);
    fprintf(f, " – ");
    hput(f, r->last_finished);
    fprintf(f, "</dd>\n<dt>report by</dt><dd>mtebench %s</dd>\n</dl>\n</section>\n", MTEBENCH_VERSION);
}

/* the warnings section: the summary's, the plots' problems, unusable files */
static void html_warnings(FILE *f, const struct mtb_record_set *set, const struct mtb_sum_rows *r, json_t *problems)
{
    size_t i;
    fprintf(f, "<section id=\"warnings\"><h2>Warnings</h2>\n");
    json_t *warns = r->warnings, *w;
    if (!json_array_size(warns) && !json_array_size(problems) && !json_array_size(set->bad))
        fprintf(f, "<p>None.</p>\n");
    fprintf(f, "<ul>\n");
    json_array_foreach(warns, i, w)
    {
        fprintf(f, "<li class=\"warn\">");
        hput(f, json_string_value(w));
        fprintf(f, "</li>\n");
    }
    json_array_foreach(problems, i, w)
    {
        fprintf(f, "<li class=\"warn\">");
        hput(f, json_string_value(w));
        fprintf(f, "</li>\n");
    }
    if (json_array_size(set->bad))
        fprintf(f, "<li class=\"bad\">%zu file(s) or directories gave no usable record: see "
                   "<a href=\"#bad\">records not used</a></li>\n", json_array_size(set->bad));
    fprintf(f, "</ul>\n</section>\n");
}

/* the page's head: title, the records it is made of, the emulation banner, the navigation */
static void html_head(FILE *f, const struct mtb_record_set *set, const struct mtb_sum_rows *r, const char *name, int emu)
{
    char now[32];
    mtb_utc_iso(now, sizeof now);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mtebench report: ");
    hput(f, name);
    fprintf(f, "%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>mtebench report: ", emu ? " (emulated)" : "", mtb_report_css);
    hput(f, name);
    fprintf(f, "</h1>\n<p class=\"note\">%zu run records (%zu usable) from ", json_array_size(set->records),
            mtb_record_usable(set));
    size_t i;
    json_t *d;
    json_array_foreach(set->dirs, i, d)
    {
        fprintf(f, "%s<code>", i ? ", " : "");
        hput(f, json_string_value(d));
        fprintf(f, "</code>");
    }
    fprintf(f, "; generated %s by mtebench %s.</p>\n", now, MTEBENCH_VERSION);
    if (emu)
        fprintf(f, "<p class=\"emu\">Emulated: not hardware timing. These runs executed under aarch64 user-mode "
                   "emulation (qemu-aarch64 -cpu max), which checks MTE tags in software: the modes, proofs and faults "
                   "are real, but the timings include emulation cost and are not MTE overheads on hardware.</p>\n");
    fprintf(f, "<nav><a href=\"#results\">results</a><a href=\"#overhead\">overhead</a>%s%s%s"
               "<a href=\"#latency\">latency</a><a href=\"#timeseries\">over time</a><a href=\"#warnings\">warnings</a>"
               "<a href=\"#runs\">runs</a>%s<a href=\"#environment\">environment</a></nav>\n",
            r->ncores ? "<a href=\"#cores\">cores</a>" : "", r->nkernels ? "<a href=\"#kernels\">kernels</a>" : "",
            r->nallocators ? "<a href=\"#allocators\">allocators</a>" : "",
            json_array_size(set->bad) ? "<a href=\"#bad\">not used</a>" : "");
}

/* the headline: each overhead in one sentence */
static void html_headline(FILE *f, const struct mtb_sum_rows *r, int emu)
{
    if (!r->noverheads)
        return;
    fprintf(f, "<ul class=\"head\">\n");
    for (size_t i = 0; i < r->noverheads; i++) {
        const struct mtb_sum_overhead *o = &r->overheads[i];
        const struct mtb_ci *s = &o->metric[MTB_P_slowdown];
        int host = !strcmp(o->kernel, "host");
        char *t = mtb_asprintf("%s %s/%s%s%s: %.3fx time per operation vs %s, 95%% CI [%.3f – %.3f]%s "
                               "(%lld pairs)%s",
                               o->service, o->variant, o->mode, host ? "" : ", kernel ", host ? "" : o->kernel,
                               s->median, *o->baseline ? o->baseline : "plain/off", s->lo, s->hi,
                               mtb_ci_low_conf(s) ? " with lower confidence" : "", o->pairs, emu ? " [emulated]" : "");
        fprintf(f, "<li>");
        hput(f, t);
        fprintf(f, "</li>\n");
        free(t);
    }
    fprintf(f, "</ul>\n");
}

/* one plot of each group of runs, drawn by the script builder given */
static void html_plot_groups(FILE *f, const struct mtb_record_set *set, json_t *groups,
                             char *(*script)(json_t *, const char *, int), int height, int *nplot, json_t *problems)
{
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        char *s = script(set->records, json_string_value(g), group_emulated(set->records, json_string_value(g)));
        html_plot(f, s, nplot, 900, height, problems);
        free(s);
    }
}

/* the plots per group of runs (service, workload, platform): the latency
 * percentile spectrum and the throughput over time */
static void html_group_plots(FILE *f, const struct mtb_record_set *set, int *nplot, json_t *problems)
{
    json_t *groups = plot_groups(set->records);
    fprintf(f, "<section id=\"latency\"><h2>Latency percentile spectrum</h2>\n<p class=\"note\">As HdrHistogram "
               "plots it: the x axis is the percentile on a log scale of 1/(1−p), so 90%%, 99%%, 99.9%% … are "
               "equally spaced; each line merges the latency histograms of all runs of one configuration.</p>\n");
    html_plot_groups(f, set, groups, mtb_plot_spectrum_script, 420, nplot, problems);
    fprintf(f, "</section>\n<section id=\"timeseries\"><h2>Throughput over time</h2>\n<p class=\"note\">Each "
               "configuration: the median of its runs' operations per one-second interval of the measured period (after "
               "warm-up), and the band from the lowest to the highest run; the requests completing after its end are not "
               "drawn.</p>\n");
    html_plot_groups(f, set, groups, mtb_plot_timeseries_script, 380, nplot, problems);
    fprintf(f, "</section>\n");
    json_decref(groups);
}

char *mtb_report_html(const struct mtb_record_set *set, json_t *sum, const char *name, json_t *problems)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct mtb_sum_rows r;
    mtb_sum_rows_read(sum, &r);
    int emu = r.emulated;
    html_head(f, set, &r, name, emu);
    html_headline(f, &r, emu);
    int nplot = 0;
    html_results(f, &r, emu);
    html_overheads(f, sum, &r, emu, &nplot, problems);
    html_protection(f, sum, emu, &nplot, problems);
    html_capacity(f, sum, &nplot, problems);
    html_work(f, sum);
    html_cores(f, sum, &r, emu, &nplot, problems);
    html_per_request(f, &r, emu, MTB_PR_perf, "perf", "perf events per request",
                     "Counted on the service for the measurement window only (perf stat); median over runs of events / requests");
    html_per_request(f, &r, emu, MTB_PR_tag_ops, "tagops", "tag operations per request",
                     "The service's own counters of per-object tagging (objtag: memcached chunks, nginx pool "
                     "allocations, PostgreSQL AllocSet chunks or RocksDB Arena allocations retagged, 16-byte granules "
                     "tagged) over the run incl. warm-up (RocksDB: its measured benchmark), divided by its own request "
                     "count; median over runs");
    html_allocators(f, &r);
    html_kernels(f, &r);
    html_group_plots(f, set, &nplot, problems);
    html_warnings(f, set, &r, problems);
    html_runs(f, set, emu);
    html_bad(f, set);
    html_env(f, &r);
    fprintf(f, "<footer><p class=\"note\">Beside this page: <code>report.md</code>, <code>runs.csv</code> (one row "
               "per run), <code>summary.json</code> (every figure of this page).</p></footer>\n</body>\n</html>\n");
    fclose(f);
    mtb_sum_rows_free(&r);
    return buf;
}
