/* capacity_out.c - see capacity_out.h */
#include "report/capacity_out.h"
#include "core/capacity_rows.h"
#include "report/plot.h"
#include "report/report.h"
#include "common/atomicfile.h"
#include "common/duration.h"
#include "lib/files.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "2410/s [2330, 2480]", or what the search found instead */
static void cap_text(const struct mtb_cap_at *e, char *buf, size_t n)
{
    const char *st = e ? e->status : "";
    if (!strcmp(st, "found"))
        snprintf(buf, n, "%.0f/s [%.0f, %.0f]%s", e->capacity, e->lo, e->hi,
                 strcmp(e->interval, "bracket") ? "" : " (bracket)");
    else if (!strcmp(st, "below"))
        snprintf(buf, n, "none: no rate meets it; at the lowest (%.0f/s) %s was %.0f us", e->lowest_rate,
                 e->percentile, e->at_lowest_us);
    else if (!strcmp(st, "above"))
        snprintf(buf, n, "above %.0f/s (every rate probed meets it)", e->rate_meets);
    else
        snprintf(buf, n, "not measured");
    if (e && e->client_bound)
        snprintf(buf + strlen(buf), n - strlen(buf), "; client-bound at %.0f/s: the client could not offer it",
                 e->rate_misses);
}

static void ci_text(const struct mtb_cap_ci *ci, char *buf, size_t n)
{
    if (ci->present)
        snprintf(buf, n, "%.3fx [%.3f, %.3f]", ci->est, ci->lo, ci->hi);
    else
        snprintf(buf, n, "-");
}

static const char *emu_note(const struct mtb_cap_rows *r) { return r->emulated ? " (emulated: not hardware timing)" : ""; }

static void print_table(const struct mtb_cap_rows *r, FILE *f)
{
    size_t i, b;
    fprintf(f, "\ncapacity of %s %s, %s arrivals, runs of %g s, platform %s%s\n", r->service, r->workload, r->arrival,
            r->duration_s, r->platform, emu_note(r));
    for (b = 0; b < r->nbounds; b++) {
        char head[64];
        snprintf(head, sizeof head, "capacity [%g%% interval]", r->confidence_pct);
        fprintf(f, "\n%-22s %14s  %-44s %5s %5s\n", r->bounds[b].text, "closed ops/s", head, "rates", "runs");
        for (i = 0; i < r->nconfigs; i++) {
            const struct mtb_cap_config *c = &r->configs[i];
            char name[96], cap[200];
            snprintf(name, sizeof name, "%s/%s", c->variant, c->mode);
            cap_text(b < c->nat ? &c->at[b] : NULL, cap, sizeof cap);
            long runs = 0;
            for (size_t k = 0; k < c->npoints; k++)
                runs += (long)c->points[k].runs;
            fprintf(f, "%-22s %14.0f  %-44s %5zu %5ld\n", name, c->closed_loop_ops, cap, c->npoints, runs);
        }
    }
    if (r->noverheads)
        fprintf(f, "\noverhead against %s/%s: baseline capacity / capacity, closed loop: baseline ops/s / ops/s\n",
                r->nconfigs ? r->configs[0].variant : "", r->nconfigs ? r->configs[0].mode : "");
    for (i = 0; i < r->noverheads; i++) {
        const struct mtb_cap_overhead *o = &r->overheads[i];
        char a[96], cl[96], name[96];
        ci_text(&o->capacity, a, sizeof a);
        ci_text(&o->closed_loop, cl, sizeof cl);
        snprintf(name, sizeof name, "%s/%s", o->variant, o->mode);
        fprintf(f, "  %-20s at %-16s capacity %-28s closed loop %s\n", name, o->bound, a, cl);
    }
    char el[32];
    mtb_duration_format(el, sizeof el, r->elapsed_s);
    fprintf(f, "\nsearch: %lld runs (%lld not ok) in %s; %s\n", (long long)r->runs, (long long)r->failed, el,
            !strcmp(r->stopped, "done") ? "every bracket within its tolerance"
            : !strcmp(r->stopped, "max_time") ? "STOPPED AT MAX_TIME: the brackets left are wider"
            : !strcmp(r->stopped, "interrupted") ? "STOPPED BY THE USER (Ctrl-C): the result of the runs done"
                                                 : "STOPPED: runs failed (see below)");
}

char *mtb_capacity_markdown(json_t *result)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct mtb_cap_rows rows, *r = &rows;
    mtb_cap_rows_read(result, r);
    fprintf(f, "# Capacity of %s %s at %s%s\n\n", r->service, r->workload, r->slo_text, emu_note(r));
    fprintf(f, "Capacity: %s. Arrivals %s; runs of %g s (+%g s warm-up); platform %s.\n\n", r->definition, r->arrival,
            r->duration_s, r->warmup_s, r->platform);
    size_t i, k;
    fprintf(f, "| configuration | closed-loop ops/s |");
    for (k = 0; k < r->nbounds; k++)
        fprintf(f, " %s |", r->bounds[k].text);
    fprintf(f, "\n|---|---:|");
    for (k = 0; k < r->nbounds; k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (i = 0; i < r->nconfigs; i++) {
        const struct mtb_cap_config *c = &r->configs[i];
        fprintf(f, "| %s/%s | %.0f |", c->variant, c->mode, c->closed_loop_ops);
        for (k = 0; k < c->nat; k++) {
            char t[200];
            cap_text(&c->at[k], t, sizeof t);
            fprintf(f, " %s |", t);
        }
        fprintf(f, "\n");
    }
    if (r->noverheads)
        fprintf(f, "\n| overhead | bound | capacity (%g%%) | closed loop (pilot pairs) |\n|---|---|---|---|\n",
                r->confidence_pct);
    for (i = 0; i < r->noverheads; i++) {
        const struct mtb_cap_overhead *o = &r->overheads[i];
        char a[96], cl[96];
        ci_text(&o->capacity, a, sizeof a);
        ci_text(&o->closed_loop, cl, sizeof cl);
        fprintf(f, "| %s/%s | %s | %s | %s |\n", o->variant, o->mode, o->bound, a, cl);
    }
    fprintf(f, "\n## Latency against offered load\n\nCO-corrected percentiles (uncorrected in brackets), the median "
               "of the runs at each rate, in us.\n\n| configuration | offered/s | achieved/s | runs | p50 | p99 | "
               "p99.9 |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < r->nconfigs; i++)
        for (k = 0; k < r->configs[i].npoints; k++) {
            const struct mtb_cap_config *c = &r->configs[i];
            const struct mtb_cap_row_point *p = &c->points[k];
            fprintf(f, "| %s/%s | %.0f | %.0f | %d |", c->variant, c->mode, p->rate, p->achieved, (int)p->runs);
            for (int q = 0; q < MTB_CAP_NPCT; q++)
                fprintf(f, " %.0f (%.0f) |", p->corrected[q], p->uncorrected[q]);
            fprintf(f, "\n");
        }
    mtb_cap_rows_free(r);
    fclose(f);
    return buf;
}

static char *curves_csv(const struct mtb_cap_rows *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "service,workload,variant,mode,platform,emulated,offered,achieved,runs,client_bound,sweep,"
               "p50_us,p99_us,p999_us,p50_uncorrected_us,p99_uncorrected_us,p999_uncorrected_us\r\n");
    for (size_t i = 0; i < r->nconfigs; i++)
        for (size_t k = 0; k < r->configs[i].npoints; k++) {
            const struct mtb_cap_config *c = &r->configs[i];
            const struct mtb_cap_row_point *p = &c->points[k];
            fprintf(f, "%s,%s,%s,%s,%s,%s,%.3f,%.3f,%d,%s,%s", r->service, r->workload, c->variant, c->mode,
                    r->platform, r->emulated ? "true" : "false", p->rate, p->achieved, (int)p->runs,
                    p->client_bound ? "true" : "false", p->sweep ? "true" : "false");
            for (int u = 0; u < 2; u++)
                for (int q = 0; q < MTB_CAP_NPCT; q++) {
                    double v = u ? p->uncorrected[q] : p->corrected[q];
                    if (isnan(v))
                        fprintf(f, ",");
                    else
                        fprintf(f, ",%.3f", v);
                }
            fprintf(f, "\r\n");
        }
    fclose(f);
    return buf;
}

/* a cell of text, escaped */
static void td(FILE *f, const char *tag, const char *text)
{
    char *e = mtb_html_escape(text);
    fprintf(f, "<%s>%s</%s>", tag, e, tag);
    free(e);
}

void mtb_capacity_html(FILE *f, json_t *result, const char *id_prefix, json_t *problems)
{
    char *script = mtb_plot_capacity_script(result);
    mtb_report_plot(f, script, id_prefix, 900, 520, problems);
    free(script);
    struct mtb_cap_rows rows, *r = &rows;
    mtb_cap_rows_read(result, r);
    size_t i, k;
    fprintf(f, "<table><caption>Capacity: the offered rate at which the CO-corrected percentile (median of the runs "
               "at a rate) crosses the bound, %g%% interval; %s arrivals, runs of %g s%s</caption>\n<tr>",
            r->confidence_pct, r->arrival, r->duration_s, emu_note(r));
    td(f, "th", "configuration");
    td(f, "th", "closed-loop ops/s");
    for (k = 0; k < r->nbounds; k++)
        td(f, "th", r->bounds[k].text);
    fputs("</tr>\n", f);
    for (i = 0; i < r->nconfigs; i++) {
        const struct mtb_cap_config *c = &r->configs[i];
        char t[200];
        fputs("<tr>", f);
        snprintf(t, sizeof t, "%s/%s", c->variant, c->mode);
        td(f, "td", t);
        snprintf(t, sizeof t, "%.0f", c->closed_loop_ops);
        td(f, "td", t);
        for (k = 0; k < c->nat; k++) {
            cap_text(&c->at[k], t, sizeof t);
            td(f, "td", t);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    if (r->noverheads) {
        fprintf(f, "<table><caption>Overhead against the baseline: capacity (baseline's / this one's) beside the "
                   "closed-loop overhead of the pilot pairs%s</caption>\n<tr>", emu_note(r));
        td(f, "th", "configuration");
        td(f, "th", "bound");
        char h[64];
        snprintf(h, sizeof h, "capacity overhead [%g%%]", r->confidence_pct);
        td(f, "th", h);
        snprintf(h, sizeof h, "closed-loop overhead [%g%%]", r->confidence_pct);
        td(f, "th", h);
        fputs("</tr>\n", f);
        for (i = 0; i < r->noverheads; i++) {
            const struct mtb_cap_overhead *o = &r->overheads[i];
            char name[96], a[96], cl[96];
            snprintf(name, sizeof name, "%s/%s", o->variant, o->mode);
            ci_text(&o->capacity, a, sizeof a);
            ci_text(&o->closed_loop, cl, sizeof cl);
            fputs("<tr>", f);
            td(f, "td", name);
            td(f, "td", o->bound);
            td(f, "td", a);
            td(f, "td", cl);
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    mtb_cap_rows_free(r);
}

static char *html(json_t *result, const struct mtb_cap_rows *r, const char *md)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    char *title = mtb_asprintf("Capacity of %s %s at %s%s", r->service, r->workload, r->slo_text, emu_note(r));
    char *t = mtb_html_escape(title), *body = mtb_html_escape(md);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n"
               "<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n", t, mtb_report_css, t);
    json_t *problems = json_array();
    mtb_capacity_html(f, result, "cap-", problems);
    fprintf(f, "<h2>Every figure (capacity.md)</h2>\n<pre>%s</pre>\n</body>\n</html>\n", body);
    json_decref(problems);
    free(title);
    free(t);
    free(body);
    fclose(f);
    return buf;
}

int mtb_capacity_write(json_t *result, const char *dir, FILE *out)
{
    struct mtb_cap_rows r;
    mtb_cap_rows_read(result, &r);
    print_table(&r, out);
    char *js = json_dumps(result, JSON_INDENT(2) | JSON_SORT_KEYS), *md = mtb_capacity_markdown(result),
         *csv = curves_csv(&r);
    char *h = md ? html(result, &r, md) : NULL;
    mtb_cap_rows_free(&r);
    const char *names[] = { "capacity.json", "capacity.md", "curves.csv", "capacity.html" };
    char *texts[] = { js, md, csv, h };
    int bad = 0;
    fprintf(out, "\n");
    for (int i = 0; i < 4; i++) {
        char *p = mtb_asprintf("%s/%s", dir, names[i]);
        int rc = texts[i] ? mtb_write_atomic(p, texts[i], strlen(texts[i])) : -1;
        if (rc == 0)
            fprintf(out, "%-9s %s\n", i == 0 ? "json:" : i == 1 ? "markdown:" : i == 2 ? "curves:" : "html:", p);
        else {
            mtb_warn("cannot write %s: %s", p, rc < 0 ? "out of memory" : mtb_errdesc(rc));
            bad = 1;
        }
        free(p);
        free(texts[i]);
    }
    fprintf(out, "records:  %s/*/record.json; each point's runs merged: %s/points/*.hlog\n", dir, dir);
    return bad;
}
