/* capacity_out.c - see capacity_out.h */
#include "report/capacity_out.h"
#include "report/plot.h"
#include "report/report.h"
#include "common/atomicfile.h"
#include "common/duration.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pcts[] = { "p50", "p99", "p99.9" };

/* "2410/s [2330, 2480]", or what the search found instead */
static void cap_text(json_t *e, char *buf, size_t n)
{
    const char *st = mtb_jstr(e, "status");
    if (!strcmp(st, "found"))
        snprintf(buf, n, "%.0f/s [%.0f, %.0f]%s", mtb_jnum(e, "capacity"), mtb_jnum(e, "lo"), mtb_jnum(e, "hi"),
                 strcmp(mtb_jstr(e, "interval"), "bracket") ? "" : " (bracket)");
    else if (!strcmp(st, "below"))
        snprintf(buf, n, "none: no rate meets it; at the lowest (%.0f/s) %s was %.0f us",
                 mtb_jnum(e, "lowest_rate"), mtb_jstr(e, "percentile"), mtb_jnum(e, "at_lowest_us"));
    else if (!strcmp(st, "above"))
        snprintf(buf, n, "above %.0f/s (every rate probed meets it)", mtb_jnum(e, "rate_meets"));
    else
        snprintf(buf, n, "not measured");
    if (json_is_true(json_object_get(e, "client_bound")))
        snprintf(buf + strlen(buf), n - strlen(buf), "; client-bound at %.0f/s: the client could not offer it",
                 mtb_jnum(e, "rate_misses"));
}

static void ci_text(json_t *ci, char *buf, size_t n)
{
    if (json_is_object(ci))
        snprintf(buf, n, "%.3fx [%.3f, %.3f]", mtb_jnum(ci, "est"), mtb_jnum(ci, "lo"), mtb_jnum(ci, "hi"));
    else
        snprintf(buf, n, "-");
}

/* the intervals' level in percent (files before CONFIDENCE: 95) */
static double conf_pct(json_t *r)
{
    json_t *c = json_object_get(r, "confidence");
    return json_is_number(c) ? 100 * json_number_value(c) : 95;
}

static const char *emu_note(json_t *r)
{
    return json_is_true(json_object_get(r, "emulated")) ? " (emulated: not hardware timing)" : "";
}

static void print_table(json_t *r, FILE *f)
{
    json_t *cfgs = json_object_get(r, "configs"), *bounds = json_object_get(json_object_get(r, "slo"), "bounds");
    size_t i, b;
    json_t *c, *bd;
    fprintf(f, "\ncapacity of %s %s, %s arrivals, runs of %g s, platform %s%s\n", mtb_jstr(r, "service"),
            mtb_jstr(r, "workload"), mtb_jstr(r, "arrival"), mtb_jnum(r, "duration_s"), mtb_jstr(r, "platform"),
            emu_note(r));
    json_array_foreach(bounds, b, bd) {
        char head[64];
        snprintf(head, sizeof head, "capacity [%g%% interval]", conf_pct(r));
        fprintf(f, "\n%-22s %14s  %-44s %5s %5s\n", mtb_jstr(bd, "text"), "closed ops/s", head, "rates", "runs");
        json_array_foreach(cfgs, i, c) {
            char name[96], cap[200];
            snprintf(name, sizeof name, "%s/%s", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"));
            cap_text(json_array_get(json_object_get(c, "capacity"), b), cap, sizeof cap);
            long runs = 0;
            size_t k;
            json_t *p;
            json_array_foreach(json_object_get(c, "points"), k, p) runs += (long)mtb_jnum(p, "runs");
            fprintf(f, "%-22s %14.0f  %-44s %5zu %5ld\n", name, mtb_jnum(c, "closed_loop_ops"), cap,
                    json_array_size(json_object_get(c, "points")), runs);
        }
    }
    json_t *base = json_array_get(cfgs, 0), *o;
    if (json_array_size(json_object_get(r, "overheads")))
        fprintf(f, "\noverhead against %s/%s: baseline capacity / capacity, closed loop: baseline ops/s / ops/s\n",
                mtb_jstr(base, "variant"), mtb_jstr(base, "mode"));
    json_array_foreach(json_object_get(r, "overheads"), i, o) {
        char a[96], cl[96], name[96];
        ci_text(json_object_get(o, "capacity"), a, sizeof a);
        ci_text(json_object_get(o, "closed_loop"), cl, sizeof cl);
        snprintf(name, sizeof name, "%s/%s", mtb_jstr(o, "variant"), mtb_jstr(o, "mode"));
        fprintf(f, "  %-20s at %-16s capacity %-28s closed loop %s\n", name, mtb_jstr(o, "bound"), a, cl);
    }
    json_t *s = json_object_get(r, "search");
    char el[32];
    mtb_duration_format(el, sizeof el, mtb_jnum(s, "elapsed_s"));
    fprintf(f, "\nsearch: %lld runs (%lld not ok) in %s; %s\n", (long long)mtb_jnum(s, "runs"),
            (long long)mtb_jnum(s, "failed"), el,
            !strcmp(mtb_jstr(s, "stopped"), "done") ? "every bracket within its tolerance"
            : !strcmp(mtb_jstr(s, "stopped"), "max_time") ? "STOPPED AT MAX_TIME: the brackets left are wider"
            : !strcmp(mtb_jstr(s, "stopped"), "interrupted") ? "STOPPED BY THE USER (Ctrl-C): the result of the runs done"
                                                              : "STOPPED: runs failed (see below)");
}

char *mtb_capacity_markdown(json_t *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "# Capacity of %s %s at %s%s\n\n", mtb_jstr(r, "service"), mtb_jstr(r, "workload"),
            mtb_jstr(json_object_get(r, "slo"), "text"), emu_note(r));
    fprintf(f, "Capacity: %s. Arrivals %s; runs of %g s (+%g s warm-up); platform %s.\n\n", mtb_jstr(r, "definition"),
            mtb_jstr(r, "arrival"), mtb_jnum(r, "duration_s"), mtb_jnum(r, "warmup_s"), mtb_jstr(r, "platform"));
    json_t *cfgs = json_object_get(r, "configs"), *c, *p, *o;
    size_t i, k;
    fprintf(f, "| configuration | closed-loop ops/s |");
    json_array_foreach(json_object_get(json_object_get(r, "slo"), "bounds"), k, p) fprintf(f, " %s |",
                                                                                          mtb_jstr(p, "text"));
    fprintf(f, "\n|---|---:|");
    for (k = 0; k < json_array_size(json_object_get(json_object_get(r, "slo"), "bounds")); k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    json_array_foreach(cfgs, i, c) {
        fprintf(f, "| %s/%s | %.0f |", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), mtb_jnum(c, "closed_loop_ops"));
        json_array_foreach(json_object_get(c, "capacity"), k, p) {
            char t[200];
            cap_text(p, t, sizeof t);
            fprintf(f, " %s |", t);
        }
        fprintf(f, "\n");
    }
    if (json_array_size(json_object_get(r, "overheads")))
        fprintf(f, "\n| overhead | bound | capacity (%g%%) | closed loop (pilot pairs) |\n|---|---|---|---|\n",
                conf_pct(r));
    json_array_foreach(json_object_get(r, "overheads"), i, o) {
        char a[96], cl[96];
        ci_text(json_object_get(o, "capacity"), a, sizeof a);
        ci_text(json_object_get(o, "closed_loop"), cl, sizeof cl);
        fprintf(f, "| %s/%s | %s | %s | %s |\n", mtb_jstr(o, "variant"), mtb_jstr(o, "mode"), mtb_jstr(o, "bound"),
                a, cl);
    }
    fprintf(f, "\n## Latency against offered load\n\nCO-corrected percentiles (uncorrected in brackets), the median "
               "of the runs at each rate, in us.\n\n| configuration | offered/s | achieved/s | runs | p50 | p99 | "
               "p99.9 |\n|---|---:|---:|---:|---:|---:|---:|\n");
    json_array_foreach(cfgs, i, c) json_array_foreach(json_object_get(c, "points"), k, p) {
        fprintf(f, "| %s/%s | %.0f | %.0f | %d |", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), mtb_jnum(p, "rate"),
                mtb_jnum(p, "achieved"), (int)mtb_jnum(p, "runs"));
        for (int q = 0; q < 3; q++)
            fprintf(f, " %.0f (%.0f) |", mtb_jnum(json_object_get(p, "corrected"), pcts[q]),
                    mtb_jnum(json_object_get(p, "uncorrected"), pcts[q]));
        fprintf(f, "\n");
    }
    fclose(f);
    return buf;
}

static char *curves_csv(json_t *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "service,workload,variant,mode,platform,emulated,offered,achieved,runs,client_bound,sweep,"
               "p50_us,p99_us,p999_us,p50_uncorrected_us,p99_uncorrected_us,p999_uncorrected_us\r\n");
    size_t i, k;
    json_t *c, *p;
    json_array_foreach(json_object_get(r, "configs"), i, c) json_array_foreach(json_object_get(c, "points"), k, p) {
        fprintf(f, "%s,%s,%s,%s,%s,%s,%.3f,%.3f,%d,%s,%s", mtb_jstr(r, "service"), mtb_jstr(r, "workload"),
                mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), mtb_jstr(r, "platform"),
                json_is_true(json_object_get(r, "emulated")) ? "true" : "false", mtb_jnum(p, "rate"),
                mtb_jnum(p, "achieved"), (int)mtb_jnum(p, "runs"),
                json_is_true(json_object_get(p, "client_bound")) ? "true" : "false",
                json_is_true(json_object_get(p, "sweep")) ? "true" : "false");
        for (int u = 0; u < 2; u++)
            for (int q = 0; q < 3; q++) {
                json_t *v = json_object_get(json_object_get(p, u ? "uncorrected" : "corrected"), pcts[q]);
                fprintf(f, json_is_number(v) ? ",%.3f" : ",", json_number_value(v));
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

void mtb_capacity_html(FILE *f, json_t *r, const char *id_prefix, json_t *problems)
{
    char *script = mtb_plot_capacity_script(r);
    mtb_report_plot(f, script, id_prefix, 900, 520, problems);
    free(script);
    json_t *cfgs = json_object_get(r, "configs"), *bounds = json_object_get(json_object_get(r, "slo"), "bounds");
    json_t *c, *b, *o;
    size_t i, k;
    fprintf(f, "<table><caption>Capacity: the offered rate at which the CO-corrected percentile (median of the runs "
               "at a rate) crosses the bound, %g%% interval; %s arrivals, runs of %g s%s</caption>\n<tr>",
            conf_pct(r), mtb_jstr(r, "arrival"), mtb_jnum(r, "duration_s"), emu_note(r));
    td(f, "th", "configuration");
    td(f, "th", "closed-loop ops/s");
    json_array_foreach(bounds, k, b) td(f, "th", mtb_jstr(b, "text"));
    fputs("</tr>\n", f);
    json_array_foreach(cfgs, i, c) {
        char t[200];
        fputs("<tr>", f);
        snprintf(t, sizeof t, "%s/%s", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"));
        td(f, "td", t);
        snprintf(t, sizeof t, "%.0f", mtb_jnum(c, "closed_loop_ops"));
        td(f, "td", t);
        json_array_foreach(json_object_get(c, "capacity"), k, b) {
            cap_text(b, t, sizeof t);
            td(f, "td", t);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    if (!json_array_size(json_object_get(r, "overheads")))
        return;
    fprintf(f, "<table><caption>Overhead against the baseline: capacity (baseline's / this one's) beside the "
               "closed-loop overhead of the pilot pairs%s</caption>\n<tr>", emu_note(r));
    td(f, "th", "configuration");
    td(f, "th", "bound");
    char h[64];
    snprintf(h, sizeof h, "capacity overhead [%g%%]", conf_pct(r));
    td(f, "th", h);
    snprintf(h, sizeof h, "closed-loop overhead [%g%%]", conf_pct(r));
    td(f, "th", h);
    fputs("</tr>\n", f);
    json_array_foreach(json_object_get(r, "overheads"), i, o) {
        char name[96], a[96], cl[96];
        snprintf(name, sizeof name, "%s/%s", mtb_jstr(o, "variant"), mtb_jstr(o, "mode"));
        ci_text(json_object_get(o, "capacity"), a, sizeof a);
        ci_text(json_object_get(o, "closed_loop"), cl, sizeof cl);
        fputs("<tr>", f);
        td(f, "td", name);
        td(f, "td", mtb_jstr(o, "bound"));
        td(f, "td", a);
        td(f, "td", cl);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static char *html(json_t *r, const char *md)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    char *title = mtb_asprintf("Capacity of %s %s at %s%s", mtb_jstr(r, "service"), mtb_jstr(r, "workload"),
                               mtb_jstr(json_object_get(r, "slo"), "text"), emu_note(r));
    char *t = mtb_html_escape(title), *body = mtb_html_escape(md);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n"
               "<style>%s</style>\n</head>\n<body>\n<h1>%s</h1>\n", t, mtb_report_css, t);
    json_t *problems = json_array();
    mtb_capacity_html(f, r, "cap-", problems);
    fprintf(f, "<h2>Every figure (capacity.md)</h2>\n<pre>%s</pre>\n</body>\n</html>\n", body);
    json_decref(problems);
    free(title);
    free(t);
    free(body);
    fclose(f);
    return buf;
}

int mtb_capacity_write(json_t *r, const char *dir, FILE *out)
{
    print_table(r, out);
    char *js = json_dumps(r, JSON_INDENT(2) | JSON_SORT_KEYS), *md = mtb_capacity_markdown(r), *csv = curves_csv(r);
    char *h = md ? html(r, md) : NULL;
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
