/* dashboard.c - the nightly's dashboard (index.html) and digest (digest.md);
 * see dashboard.h. Reuses the report's stylesheet and
 * the gnuplot rendering of plot.c. */
#include "report/dashboard.h"
#include "core/nightly_rows.h"
#include "report/plot.h"
#include "report/report.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hput(FILE *f, const char *s)
{
    char *e = mtb_html_escape(s);
    fputs(e, f);
    free(e);
}

/* a link target relative to the dashboard when it lies below it */
static void href(FILE *f, const char *out, const char *path)
{
    size_t n = strlen(out);
    if (!strncmp(path, out, n) && path[n] == '/')
        path += n + 1;
    hput(f, path);
}

static void link_to(FILE *f, const char *out, const char *path, const char *text)
{
    if (!*path) {
        fprintf(f, "-");
        return;
    }
    fprintf(f, "<a href=\"");
    href(f, out, path);
    fprintf(f, "\">");
    hput(f, text);
    fprintf(f, "</a>");
}

static const char *short_rev(const char *s, char *buf, size_t n)
{
    snprintf(buf, n, "%.12s", *s ? s : "-");
    return buf;
}

/* "mtebench v1 -> v2, build 1234 -> 5678" (only what differs; "same revisions" otherwise) */
static char *rev_diff(const struct mtb_nightly_change *ch)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int any = 0;
    for (size_t k = 0; k < MTB_NREVS; k++) {
        char x[16], y[16];
        const char *a = ch->rev_before[k], *b = ch->rev_after[k];
        if (!strcmp(a, b))
            continue;
        /* a hash, shortened; a version or release, whole */
        int hash = k == MTB_REV_build_key || k == MTB_REV_base_build || k == MTB_REV_kernel_build;
        fprintf(f, "%s%s %s → %s", any++ ? ", " : "", mtb_nightly_rev_names[k], hash ? short_rev(a, x, sizeof x) : a,
                hash ? short_rev(b, y, sizeof y) : b);
    }
    if (!any) {
        char x[16];
        fprintf(f, "same revisions (mtebench %s, build %s, kernel %s): the machine, not the code",
                ch->rev_before[MTB_REV_mtebench_version], short_rev(ch->rev_before[MTB_REV_build_key], x, sizeof x),
                ch->rev_before[MTB_REV_kernel_release]);
    }
    fclose(f);
    return buf;
}

static void html_change_rows(FILE *f, const struct mtb_nightly_change *changes, size_t n, const char *out,
                             int with_series)
{
    for (size_t i = 0; i < n; i++) {
        const struct mtb_nightly_change *c = &changes[i];
        const char *kind = c->kind;
        fprintf(f, "<tr class=\"%s\">", !strcmp(kind, "regression") ? "bad" : "");
        if (with_series) {
            fprintf(f, "<td class=\"l\"><a href=\"#%s\">", c->series_id);
            hput(f, c->label);
            fprintf(f, "</a></td>");
        }
        fprintf(f, "<td class=\"l\">%s%s</td><td>%lld</td><td class=\"l\">", kind, c->open ? " (open)" : "", c->x);
        hput(f, c->night_started);
        if (!strcmp(c->rule, "counts")) /* counted: the nights before, no p value over runs */
            fprintf(f, "</td><td>%+.4g per request<br><small>exact (counted)</small></td><td>%.4g → %.4g</td>"
                       "<td>%lld nights / 1</td><td colspan=\"2\">nights before: sd %.3g (threshold %.3g)</td>"
                       "<td class=\"l\">",
                    c->after - c->before, c->before, c->after, c->n_before, c->sd, c->threshold);
        else
            fprintf(f, "</td><td>%+.1f%%<br><small>[%+.1f%% – %+.1f%%]</small></td><td>%.4g → %.4g</td>"
                       "<td>%lld / %lld</td><td>%.2g</td><td>%.2g</td><td class=\"l\">",
                    100 * c->change, 100 * c->ci_lo, 100 * c->ci_hi, c->before, c->after, c->n_before, c->n_after,
                    c->p_mwu, c->p_split);
        char *rd = rev_diff(c);
        hput(f, rd);
        free(rd);
        fprintf(f, "</td><td class=\"l\">");
        link_to(f, out, c->report_before, "before");
        fprintf(f, " ");
        link_to(f, out, c->report_after, "after");
        fprintf(f, "</td></tr>\n");
    }
}

static void html_change_head(FILE *f, int with_series)
{
    fprintf(f, "<tr>%s<th class=\"l\">kind</th><th>night</th><th class=\"l\">date</th><th>change (95%% CI)</th>"
               "<th>median before → after</th><th>runs before / after</th><th>Mann–Whitney p</th><th>t-test p</th>"
               "<th class=\"l\">revisions before → after</th><th class=\"l\">run reports</th></tr>\n",
            with_series ? "<th class=\"l\">series</th>" : "");
}

/* a host and how many series it ran, for hosts_text */
struct host_count {
    const char *host;
    long long series;
};

static int cmp_host(const void *a, const void *b)
{
    return strcmp(((const struct host_count *)a)->host, ((const struct host_count *)b)->host);
}

/* "2 hosts: h1 (3 series), h2 (3 series)": the hosts the series ran on
 * (each series is one host's; a series key counts once for all its
 * metrics); a heap string, "" with no series */
static char *hosts_text(const struct mtb_nightly_rows *a)
{
    /* host -> its series (each key once): a small table, hosts are few */
    struct host_count *hc = mtb_calloc(a->nseries + 1, sizeof *hc);
    size_t n = 0;
    for (size_t i = 0; i < a->nseries; i++) {
        const struct mtb_nightly_series *s = &a->series[i];
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(a->series[j].key, s->key);
        if (seen)
            continue;
        const char *h = *s->host ? s->host : "unknown";
        size_t k = 0;
        while (k < n && strcmp(hc[k].host, h))
            k++;
        if (k == n)
            hc[n++].host = h;
        hc[k].series++;
    }
    qsort(hc, n, sizeof *hc, cmp_host);
    char *out = n ? mtb_asprintf("%zu host%s:", n, n == 1 ? "" : "s") : mtb_strdup("");
    for (size_t j = 0; j < n; j++) {
        char *x = mtb_asprintf("%s%s %s (%lld series)", out, j ? "," : "", hc[j].host, hc[j].series);
        free(out);
        out = x;
    }
    free(hc);
    return out;
}

/* the page's head: title, what it was made from, the banners, the navigation */
static void dash_head(FILE *f, const struct mtb_nightly_rows *a, int emu)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>mtebench nightly%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>mtebench nightly</h1>\n",
            emu ? " (emulated)" : "", mtb_report_css);
    fprintf(f, "<p class=\"note\">%lld nights, %zu series; generated %s by mtebench %s from <code>", a->nights_total,
            a->nseries, a->generated, a->version);
    hput(f, a->history);
    fprintf(f, "</code>.</p>\n");
    char *ht = hosts_text(a);
    if (*ht) {
        fprintf(f, "<p class=\"note\" id=\"hosts\">");
        hput(f, ht);
        fprintf(f, "; each series is one host's, runs of two hosts are never compared or paired.</p>\n");
    }
    free(ht);
    if (emu)
        fprintf(f, "<p class=\"emu\">Emulated: not hardware timing. Series measured under qemu-aarch64 include "
                   "emulation cost; a change there is a change of the emulated run, not an MTE overhead on "
                   "hardware.</p>\n");
    if (a->nfresh)
        fprintf(f, "<p class=\"emu\">%zu new regression%s confirmed in this run.</p>\n", a->nfresh,
                a->nfresh > 1 ? "s" : "");
    fprintf(f, "<nav><a href=\"#open\">open regressions</a><a href=\"#nights\">nights</a><a href=\"#series\">series</a>"
               "<a href=\"#method\">method</a></nav>\n");
}

/* the open regressions: the last change of each series, where it is one */
static void dash_open(FILE *f, const struct mtb_nightly_rows *a, const char *out, int emu)
{
    fprintf(f, "<section id=\"open\"><h2>Open regressions</h2>\n");
    if (!a->nopen) {
        fprintf(f, "<p>None.</p>\n");
    } else {
        fprintf(f, "<table>\n<caption>The last change of each series, where it is a regression%s</caption>\n",
                emu ? " <span class=\"tag\">(" MTB_PLOT_EMU_LABEL ")</span>" : "");
        html_change_head(f, 1);
        html_change_rows(f, a->open, a->nopen, out, 1);
        fprintf(f, "</table>\n");
    }
    fprintf(f, "</section>\n");
}

/* the hosts a night's runs ran on, "h1" or "h1, h2" (heap string) */
static char *night_hosts(const struct mtb_nightly_night *n)
{
    char *out = mtb_strdup("");
    size_t i;
    json_t *h;
    json_array_foreach(n->hosts, i, h)
    {
        char *x = mtb_asprintf("%s%s%s", out, i ? ", " : "", json_string_value(h));
        free(out);
        out = x;
    }
    return out;
}

/* the nights: when, how many runs, their quiet check and steal (a busy night is
 * shown, and whether the change-point test left it out), where their
 * results and run report are */
static void dash_nights(FILE *f, const struct mtb_nightly_rows *a, const char *out)
{
    fprintf(f, "<section id=\"nights\"><h2>Nights</h2>\n<table>\n<tr><th>night</th><th class=\"l\">"
               "started</th><th class=\"l\">host</th><th>runs</th><th class=\"l\">quiet check</th><th class=\"l\">"
               "results</th><th class=\"l\">run report</th></tr>\n");
    for (size_t i = 0; i < a->nnights; i++) {
        const struct mtb_nightly_night *n = &a->nights[i];
        fprintf(f, "<tr><td>%lld</td><td class=\"l\">", n->x);
        hput(f, n->started);
        fprintf(f, "</td><td class=\"l\">");
        char *hs = night_hosts(n);
        hput(f, hs);
        free(hs);
        fprintf(f, "</td><td>%lld</td><td class=\"l\">", n->runs);
        if (n->quiet == 0) {
            fprintf(f, "<b>busy</b>: ");
            hput(f, n->busy_why);
            fprintf(f, " (");
            hput(f, n->busy);
            fprintf(f, ")");
        } else
            fprintf(f, "%s", n->quiet == 1 ? "quiet" : "unknown (no record here)");
        if (n->has_steal)
            fprintf(f, "; steal %.0f%%", 100 * n->steal);
        fprintf(f, "</td><td class=\"l\"><code>");
        hput(f, n->results_dir);
        fprintf(f, "</code></td><td class=\"l\">");
        link_to(f, out, n->report, "report");
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

/* one series: its trend plot with the change points marked, and their table */
static void dash_series(FILE *f, const struct mtb_nightly_series *s, const char *out, int nplot, json_t *problems)
{
    fprintf(f, "<section class=\"series\" id=\"%s\"><h3>", s->id);
    hput(f, s->label);
    fprintf(f, "</h3>\n<p class=\"note\">%lld points; %s is better; unit %s.</p>\n", s->points, s->better, s->unit);
    json_t *xs = s->x, *ys = s->y;
    size_t np = json_array_size(xs);
    if (!np) { /* every night of it was busy: shown in the nights table, not compared */
        fprintf(f, "<p class=\"note\">Its %lld runs all lie in busy nights, kept out of the change-point test: no "
                   "trend to draw.</p>\n</section>\n",
                s->kept_out);
        return;
    }
    double *x = mtb_calloc(np ? np : 1, sizeof *x), *y = mtb_calloc(np ? np : 1, sizeof *y);
    for (size_t k = 0; k < np; k++) {
        x[k] = json_number_value(json_array_get(xs, k));
        y[k] = json_number_value(json_array_get(ys, k));
    }
    json_t *marks = json_array();
    for (size_t k = 0; k < s->nchanges; k++)
        json_array_append_new(marks, json_pack("{s:f,s:f,s:s}", "x", (double)s->changes[k].x, "change",
                                               s->changes[k].change, "kind", s->changes[k].kind));
    char *ylabel = mtb_asprintf("%s (%s)", s->metric, s->unit);
    char *script = mtb_plot_trend_script(s->label, ylabel, x, y, np, marks, s->emulated);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t%d-", nplot);
    mtb_report_plot(f, script, prefix, 900, 320, problems);
    free(script);
    free(ylabel);
    json_decref(marks);
    free(x);
    free(y);
    if (s->nchanges) {
        fprintf(f, "<table>\n<caption>Change points</caption>\n");
        html_change_head(f, 0);
        html_change_rows(f, s->changes, s->nchanges, out, 0);
        fprintf(f, "</table>\n");
    } else {
        fprintf(f, "<p class=\"note\">No significant change.</p>\n");
    }
    fprintf(f, "</section>\n");
}

/* how series are made and changes found, with the settings of this run */
static void dash_method(FILE *f, const struct mtb_nightly_rows *a)
{
    fprintf(f, "<section id=\"method\"><h2>Method</h2>\n<p class=\"note\">Each series is one "
               "configuration (plan, service, workload with all its parameters, variant, mode, platform, kernel, "
               "machine profile; the hash in brackets) on one host (the server host, or the machine that ran it: "
               "\"on HOST\") and one metric: throughput (higher is better), p99 latency "
               "and the overhead ratio baseline ops/s ÷ tagged ops/s of runs paired by repetition (lower is better); "
               "for a plan entry with an slo, the capacity at the bound (higher is better) and the capacity overhead "
               "baseline capacity ÷ capacity (lower is better), one search's estimate a night, so a step needs "
               "about 7 nights either side to reach the threshold below. "
               "Change points: binary segmentation at night boundaries by the E-Divisive means statistic, a split "
               "kept when a Welch t-test of the runs within %lld nights either side gives p &lt; %g (as Apache Otava "
               "does); the newest night is also tested against the nights before it. A change is a regression when "
               "a Mann–Whitney U test of the runs after it against the runs before it also gives p &lt; %g, it goes "
               "the bad way, and its size (ratio of medians, 95%% bootstrap CI) is at least %.1f%%. A regression is "
               "open while it is the last change of its series; it is new when it was not open before the nights "
               "this run added.</p>\n</section>\n",
            a->window, a->threshold, a->threshold, 100 * a->min_change);
}

static char *dashboard_html(const struct mtb_nightly_rows *a, const char *out, json_t *problems)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int emu = a->emulated;
    dash_head(f, a, emu);
    dash_open(f, a, out, emu);
    dash_nights(f, a, out);
    fprintf(f, "<section id=\"series\"><h2>Series</h2>\n");
    for (size_t i = 0; i < a->nseries; i++)
        dash_series(f, &a->series[i], out, (int)i + 1, problems);
    fprintf(f, "</section>\n");
    dash_method(f, a);
    fprintf(f, "</body>\n</html>\n");
    fclose(f);
    return buf;
}

/* a work series' change (counted: the nights before it, no p value over runs) */
static void md_work_change(FILE *f, const struct mtb_nightly_change *c, const char *rd)
{
    fprintf(f, "- **%s**: %.4g → %.4g per request (%+.4g; exact, counted; the %lld nights before it: sd %.3g, the "
               "threshold %.3g) at night %lld (%s); %s\n",
            c->label, c->before, c->after, c->after - c->before, c->n_before, c->sd, c->threshold, c->x,
            c->night_started, rd);
}

static void md_change(FILE *f, const struct mtb_nightly_change *c)
{
    char *rd = rev_diff(c);
    if (!strcmp(c->rule, "counts")) {
        md_work_change(f, c, rd);
        free(rd);
        return;
    }
    fprintf(f, "- **%s**: %+.1f%% [95%% CI %+.1f%%, %+.1f%%] since night %lld (%s); p = %.2g (Mann–Whitney), "
               "%.2g (t); %s\n",
            c->label, 100 * c->change, 100 * c->ci_lo, 100 * c->ci_hi, c->x, c->night_started, c->p_mwu, c->p_split, rd);
    if (*c->bisect)
        fprintf(f, "  - find the commit: `%s`\n", c->bisect);
    free(rd);
}

static char *digest_md(const struct mtb_nightly_rows *a, const char *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    size_t i;
    fprintf(f, "# mtebench nightly: %s\n\n", a->nfresh ? "REGRESSION" : "no new regression");
    fprintf(f, "%lld nights, %zu series tested; %zu new and %zu open regressions (p < %g, change >= %.1f%%)%s.\n",
            a->nights_total, a->nseries, a->nfresh, a->nopen, a->threshold, 100 * a->min_change,
            a->emulated ? "; emulated: not hardware timing" : "");
    char *ht = hosts_text(a);
    if (*ht)
        fprintf(f, "Series by host: %s.\n", ht + strcspn(ht, ":") + 2);
    free(ht);
    const size_t cap = 10;
    /* busy nights: shown, and whether the change-point test left them out */
    if (a->nbusy) {
        fprintf(f, "\n%zu busy night%s (the quiet check or the runs' steal marked %s not quiet): %s\n", a->nbusy,
                a->nbusy == 1 ? "" : "s", a->nbusy == 1 ? "it" : "them",
                a->busy_excluded ? "kept out of the change-point test" : "compared all the same: no night was quiet");
        for (i = 0; i < a->nnights; i++) {
            const struct mtb_nightly_night *n = &a->nights[i];
            if (n->quiet != 0)
                continue;
            char *hs = night_hosts(n);
            fprintf(f, "- night %lld (%s%s%s): %s\n", n->x, n->started, *hs ? ", on " : "", hs, n->busy_why);
            free(hs);
        }
    }
    if (a->nfresh) {
        fprintf(f, "\n## New regressions\n\n");
        for (i = 0; i < a->nfresh && i < cap; i++)
            md_change(f, &a->fresh[i]);
        if (a->nfresh > cap)
            fprintf(f, "- ... and %zu more (see the dashboard)\n", a->nfresh - cap);
    }
    size_t shown = 0;
    for (i = 0; i < a->nopen; i++) {
        const struct mtb_nightly_change *s = &a->open[i];
        int is_new = 0;
        for (size_t j = 0; j < a->nfresh; j++) {
            const struct mtb_nightly_change *r = &a->fresh[j];
            is_new |= r->j == s->j || (!strcmp(r->series, s->series) && !strcmp(r->metric, s->metric));
        }
        if (is_new)
            continue;
        if (!shown)
            fprintf(f, "\n## Still open\n\n");
        if (shown++ < cap)
            md_change(f, s);
    }
    if (shown > cap)
        fprintf(f, "- ... and %zu more (see the dashboard)\n", shown - cap);
    /* series whose last change is the machine's (more steal, same revisions) */
    shown = 0;
    for (i = 0; i < a->nseries; i++) {
        const struct mtb_nightly_series *s = &a->series[i];
        const struct mtb_nightly_change *c = s->nchanges ? &s->changes[s->nchanges - 1] : NULL;
        if (!c || strcmp(c->kind, "machine"))
            continue;
        if (!shown)
            fprintf(f, "\n## Slower machine, not slower code\n\n");
        if (shown++ < cap)
            fprintf(f, "- **%s**: %+.1f%% since night %lld (%s): %s\n", c->label, 100 * c->change, c->x,
                    c->night_started, c->machine_why);
    }
    if (shown > cap)
        fprintf(f, "- ... and %zu more (see the dashboard)\n", shown - cap);
    fprintf(f, "\nDashboard: %s/index.html\n", out);
    fclose(f);
    return buf;
}

int mtb_dashboard_write(json_t *analysis, const char *out, char **digest, char *err, size_t errlen)
{
    if (digest)
        *digest = NULL;
    if (mtb_mkdir_p(out) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
        return -EIO;
    }
    json_t *problems = json_array();
    struct mtb_nightly_rows rows;
    mtb_nightly_rows_read(analysis, &rows);
    char *html = dashboard_html(&rows, out, problems);
    char *md = digest_md(&rows, out);
    mtb_nightly_rows_free(&rows);
    json_object_set_new(analysis, "plot_problems", problems);
    char *js = json_dumps(analysis, JSON_INDENT(2) | JSON_SORT_KEYS);
    struct { const char *name; char *text; } files[] = {
        { "analysis.json", js }, { "digest.md", md }, { "index.html", html },
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0] && !rc; i++) {
        char *p = mtb_asprintf("%s/%s", out, files[i].name);
        int w = files[i].text ? mtb_write_atomic(p, files[i].text, strlen(files[i].text)) : -ENOMEM;
        if (w) {
            snprintf(err, errlen, "cannot write %s: %s", p, strerror(-w));
            rc = -EIO;
        }
        free(p);
    }
    free(html);
    if (digest && !rc)
        *digest = md;
    else
        free(md);
    free(js);
    return rc;
}
