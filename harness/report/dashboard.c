/* dashboard.c - the nightly's dashboard (index.html) and digest (digest.md);
 * see dashboard.h. Reuses the report's stylesheet and
 * the gnuplot rendering of plot.c. */
#include "lib/jsonx.h"
#include "report/dashboard.h"
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
static char *rev_diff(json_t *ch)
{
    json_t *a = json_object_get(ch, "revisions_before"), *b = json_object_get(ch, "revisions_after");
    static const char *keys[] = { "mtebench_version", "build_key", "base_build", "kernel_release", "kernel_build" };
    static const char *names[] = { "mtebench", "build", "baseline build", "kernel", "kernel build" };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int any = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char x[16], y[16];
        if (!strcmp(mtb_jstr(a, keys[k]), mtb_jstr(b, keys[k])))
            continue;
        int hash = strstr(keys[k], "build") != NULL; /* a hash, shortened; a version or release, whole */
        fprintf(f, "%s%s %s → %s", any++ ? ", " : "", names[k],
                hash ? short_rev(mtb_jstr(a, keys[k]), x, sizeof x) : mtb_jstr(a, keys[k]),
                hash ? short_rev(mtb_jstr(b, keys[k]), y, sizeof y) : mtb_jstr(b, keys[k]));
    }
    if (!any) {
        char x[16];
        fprintf(f, "same revisions (mtebench %s, build %s, kernel %s): the machine, not the code",
                mtb_jstr(a, "mtebench_version"), short_rev(mtb_jstr(a, "build_key"), x, sizeof x), mtb_jstr(a, "kernel_release"));
    }
    fclose(f);
    return buf;
}

static void html_change_rows(FILE *f, json_t *changes, const char *out, int with_series)
{
    size_t i;
    json_t *c;
    json_array_foreach(changes, i, c)
    {
        const char *kind = mtb_jstr(c, "kind");
        fprintf(f, "<tr class=\"%s\">", !strcmp(kind, "regression") ? "bad" : "");
        if (with_series) {
            fprintf(f, "<td class=\"l\"><a href=\"#%s\">", mtb_jstr(c, "series_id"));
            hput(f, mtb_jstr(c, "label"));
            fprintf(f, "</a></td>");
        }
        fprintf(f, "<td class=\"l\">%s%s</td><td>%lld</td><td class=\"l\">", kind,
                json_is_true(json_object_get(c, "open")) ? " (open)" : "",
                (long long)json_integer_value(json_object_get(c, "x")));
        hput(f, mtb_jstr(c, "night_started"));
        if (!strcmp(mtb_jstr(c, "rule"), "counts")) /* counted: the nights before, no p value over runs */
            fprintf(f, "</td><td>%+.4g per request<br><small>exact (counted)</small></td><td>%.4g → %.4g</td>"
                       "<td>%lld nights / 1</td><td colspan=\"2\">nights before: sd %.3g (threshold %.3g)</td>"
                       "<td class=\"l\">",
                    mtb_jnum(c, "after") - mtb_jnum(c, "before"), mtb_jnum(c, "before"), mtb_jnum(c, "after"),
                    (long long)json_integer_value(json_object_get(c, "n_before")), mtb_jnum(c, "sd"),
                    mtb_jnum(c, "threshold"));
        else
            fprintf(f, "</td><td>%+.1f%%<br><small>[%+.1f%% – %+.1f%%]</small></td><td>%.4g → %.4g</td>"
                       "<td>%lld / %lld</td><td>%.2g</td><td>%.2g</td><td class=\"l\">",
                    100 * mtb_jnum(c, "change"), 100 * mtb_jnum(c, "ci_lo"), 100 * mtb_jnum(c, "ci_hi"),
                    mtb_jnum(c, "before"), mtb_jnum(c, "after"),
                    (long long)json_integer_value(json_object_get(c, "n_before")),
                    (long long)json_integer_value(json_object_get(c, "n_after")), mtb_jnum(c, "p_mwu"),
                    mtb_jnum(c, "p_split"));
        char *rd = rev_diff(c);
        hput(f, rd);
        free(rd);
        fprintf(f, "</td><td class=\"l\">");
        link_to(f, out, mtb_jstr(c, "report_before"), "before");
        fprintf(f, " ");
        link_to(f, out, mtb_jstr(c, "report_after"), "after");
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

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* "2 hosts: h1 (3 series), h2 (3 series)": the hosts the series ran on
 * (each series is one host's; a series key counts once for all its
 * metrics); a heap string, "" with no series */
static char *hosts_text(json_t *a)
{
    json_t *per = json_object(), *keys = json_object(), *s;
    size_t i;
    json_array_foreach(json_object_get(a, "series"), i, s)
    {
        if (json_object_get(keys, mtb_jstr(s, "key")))
            continue;
        json_object_set_new(keys, mtb_jstr(s, "key"), json_true());
        const char *h = *mtb_jstr(s, "host") ? mtb_jstr(s, "host") : "unknown";
        json_object_set_new(per, h, json_integer(json_integer_value(json_object_get(per, h)) + 1));
    }
    char *out = mtb_strdup("");
    if (json_object_size(per)) {
        free(out);
        out = mtb_asprintf("%zu host%s:", json_object_size(per), json_object_size(per) == 1 ? "" : "s");
    }
    const char **names = mtb_calloc(json_object_size(per) + 1, sizeof *names);
    const char *k;
    json_t *v;
    size_t n = 0;
    json_object_foreach(per, k, v) names[n++] = k;
    qsort(names, n, sizeof *names, cmp_name);
    for (size_t j = 0; j < n; j++) {
        long long c = (long long)json_integer_value(json_object_get(per, names[j]));
        char *x = mtb_asprintf("%s%s %s (%lld series)", out, j ? "," : "", names[j], c);
        free(out);
        out = x;
    }
    free(names);
    json_decref(per);
    json_decref(keys);
    return out;
}

/* the page's head: title, what it was made from, the banners, the navigation */
static void dash_head(FILE *f, json_t *a, int emu)
{
    json_t *set = json_object_get(a, "settings"), *fresh = json_object_get(a, "new");
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>mtebench nightly%s</title>\n<style>%s</style>\n</head>\n<body>\n<h1>mtebench nightly</h1>\n",
            emu ? " (emulated)" : "", mtb_report_css);
    fprintf(f, "<p class=\"note\">%lld nights, %zu series; generated %s by mtebench %s from <code>",
            (long long)json_integer_value(json_object_get(set, "nights")), json_array_size(json_object_get(a, "series")),
            mtb_jstr(set, "generated"), mtb_jstr(set, "version"));
    hput(f, mtb_jstr(set, "history"));
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
    if (json_array_size(fresh))
        fprintf(f, "<p class=\"emu\">%zu new regression%s confirmed in this run.</p>\n", json_array_size(fresh),
                json_array_size(fresh) > 1 ? "s" : "");
    fprintf(f, "<nav><a href=\"#open\">open regressions</a><a href=\"#nights\">nights</a><a href=\"#series\">series</a>"
               "<a href=\"#method\">method</a></nav>\n");
}

/* the open regressions: the last change of each series, where it is one */
static void dash_open(FILE *f, json_t *open, const char *out, int emu)
{
    fprintf(f, "<section id=\"open\"><h2>Open regressions</h2>\n");
    if (!json_array_size(open)) {
        fprintf(f, "<p>None.</p>\n");
    } else {
        fprintf(f, "<table>\n<caption>The last change of each series, where it is a regression%s</caption>\n",
                emu ? " <span class=\"tag\">(" MTB_PLOT_EMU_LABEL ")</span>" : "");
        html_change_head(f, 1);
        html_change_rows(f, open, out, 1);
        fprintf(f, "</table>\n");
    }
    fprintf(f, "</section>\n");
}

/* the hosts a night's runs ran on, "h1" or "h1, h2" (heap string) */
static char *night_hosts(json_t *n)
{
    char *out = mtb_strdup("");
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(n, "hosts"), i, h)
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
static void dash_nights(FILE *f, json_t *nights, const char *out)
{
    fprintf(f, "<section id=\"nights\"><h2>Nights</h2>\n<table>\n<tr><th>night</th><th class=\"l\">"
               "started</th><th class=\"l\">host</th><th>runs</th><th class=\"l\">quiet check</th><th class=\"l\">"
               "results</th><th class=\"l\">run report</th></tr>\n");
    size_t i;
    json_t *n;
    json_array_foreach(nights, i, n)
    {
        fprintf(f, "<tr><td>%lld</td><td class=\"l\">", (long long)json_integer_value(json_object_get(n, "x")));
        hput(f, mtb_jstr(n, "started"));
        fprintf(f, "</td><td class=\"l\">");
        char *hs = night_hosts(n);
        hput(f, hs);
        free(hs);
        fprintf(f, "</td><td>%lld</td><td class=\"l\">", (long long)json_integer_value(json_object_get(n, "runs")));
        if (json_is_false(json_object_get(n, "quiet"))) {
            fprintf(f, "<b>busy</b>: ");
            hput(f, mtb_jstr(n, "busy_why"));
            fprintf(f, " (");
            hput(f, mtb_jstr(n, "busy"));
            fprintf(f, ")");
        } else
            fprintf(f, "%s", json_is_true(json_object_get(n, "quiet")) ? "quiet" : "unknown (no record here)");
        if (json_is_number(json_object_get(n, "steal")))
            fprintf(f, "; steal %.0f%%", 100 * json_number_value(json_object_get(n, "steal")));
        fprintf(f, "</td><td class=\"l\"><code>");
        hput(f, mtb_jstr(n, "results_dir"));
        fprintf(f, "</code></td><td class=\"l\">");
        link_to(f, out, mtb_jstr(n, "report"), "report");
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n</section>\n");
}

/* one series: its trend plot with the change points marked, and their table */
static void dash_series(FILE *f, json_t *s, const char *out, int nplot, json_t *problems)
{
    fprintf(f, "<section class=\"series\" id=\"%s\"><h3>", mtb_jstr(s, "id"));
    hput(f, mtb_jstr(s, "label"));
    fprintf(f, "</h3>\n<p class=\"note\">%lld points; %s is better; unit %s.</p>\n",
            (long long)json_integer_value(json_object_get(s, "points")), mtb_jstr(s, "better"), mtb_jstr(s, "unit"));
    json_t *xs = json_object_get(s, "x"), *ys = json_object_get(s, "y");
    size_t np = json_array_size(xs);
    if (!np) { /* every night of it was busy: shown in the nights table, not compared */
        fprintf(f, "<p class=\"note\">Its %lld runs all lie in busy nights, kept out of the change-point test: no "
                   "trend to draw.</p>\n</section>\n",
                (long long)json_integer_value(json_object_get(s, "kept_out")));
        return;
    }
    double *x = mtb_calloc(np ? np : 1, sizeof *x), *y = mtb_calloc(np ? np : 1, sizeof *y);
    for (size_t k = 0; k < np; k++) {
        x[k] = json_number_value(json_array_get(xs, k));
        y[k] = json_number_value(json_array_get(ys, k));
    }
    json_t *marks = json_array(), *c;
    size_t k;
    json_array_foreach(json_object_get(s, "changes"), k, c)
        json_array_append_new(marks, json_pack("{s:f,s:f,s:s}", "x", mtb_jnum(c, "x"), "change", mtb_jnum(c, "change"),
                                               "kind", mtb_jstr(c, "kind")));
    char *ylabel = mtb_asprintf("%s (%s)", mtb_jstr(s, "metric"), mtb_jstr(s, "unit"));
    char *script = mtb_plot_trend_script(mtb_jstr(s, "label"), ylabel, x, y, np, marks,
                                         json_is_true(json_object_get(s, "emulated")));
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t%d-", nplot);
    mtb_report_plot(f, script, prefix, 900, 320, problems);
    free(script);
    free(ylabel);
    json_decref(marks);
    free(x);
    free(y);
    if (json_array_size(json_object_get(s, "changes"))) {
        fprintf(f, "<table>\n<caption>Change points</caption>\n");
        html_change_head(f, 0);
        html_change_rows(f, json_object_get(s, "changes"), out, 0);
        fprintf(f, "</table>\n");
    } else {
        fprintf(f, "<p class=\"note\">No significant change.</p>\n");
    }
    fprintf(f, "</section>\n");
}

/* how series are made and changes found, with the settings of this run */
static void dash_method(FILE *f, json_t *set)
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
            (long long)json_integer_value(json_object_get(set, "window")), mtb_jnum(set, "threshold"),
            mtb_jnum(set, "threshold"), 100 * mtb_jnum(set, "min_change"));
}

static char *dashboard_html(json_t *a, const char *out, json_t *problems)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    json_t *series = json_object_get(a, "series");
    int emu = 0;
    size_t i;
    json_t *s;
    json_array_foreach(series, i, s) emu |= json_is_true(json_object_get(s, "emulated"));
    dash_head(f, a, emu);
    dash_open(f, json_object_get(a, "open"), out, emu);
    dash_nights(f, json_object_get(a, "nights"), out);
    fprintf(f, "<section id=\"series\"><h2>Series</h2>\n");
    json_array_foreach(series, i, s) dash_series(f, s, out, (int)i + 1, problems);
    fprintf(f, "</section>\n");
    dash_method(f, json_object_get(a, "settings"));
    fprintf(f, "</body>\n</html>\n");
    fclose(f);
    return buf;
}

/* a work series' change (counted: the nights before it, no p value over runs) */
static void md_work_change(FILE *f, json_t *c, const char *rd)
{
    fprintf(f, "- **%s**: %.4g → %.4g per request (%+.4g; exact, counted; the %lld nights before it: sd %.3g, the "
               "threshold %.3g) at night %lld (%s); %s\n",
            mtb_jstr(c, "label"), mtb_jnum(c, "before"), mtb_jnum(c, "after"), mtb_jnum(c, "after") - mtb_jnum(c, "before"),
            (long long)json_integer_value(json_object_get(c, "n_before")), mtb_jnum(c, "sd"),
            mtb_jnum(c, "threshold"), (long long)json_integer_value(json_object_get(c, "x")),
            mtb_jstr(c, "night_started"), rd);
}

static void md_change(FILE *f, json_t *c)
{
    char *rd = rev_diff(c);
    if (!strcmp(mtb_jstr(c, "rule"), "counts")) {
        md_work_change(f, c, rd);
        free(rd);
        return;
    }
    fprintf(f, "- **%s**: %+.1f%% [95%% CI %+.1f%%, %+.1f%%] since night %lld (%s); p = %.2g (Mann–Whitney), "
               "%.2g (t); %s\n",
            mtb_jstr(c, "label"), 100 * mtb_jnum(c, "change"), 100 * mtb_jnum(c, "ci_lo"), 100 * mtb_jnum(c, "ci_hi"),
            (long long)json_integer_value(json_object_get(c, "x")), mtb_jstr(c, "night_started"), mtb_jnum(c, "p_mwu"),
            mtb_jnum(c, "p_split"), rd);
    if (*mtb_jstr(c, "bisect"))
        fprintf(f, "  - find the commit: `%s`\n", mtb_jstr(c, "bisect"));
    free(rd);
}

static char *digest_md(json_t *a, const char *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    json_t *set = json_object_get(a, "settings"), *open = json_object_get(a, "open"), *fresh = json_object_get(a, "new");
    int emu = 0;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(a, "series"), i, s) emu |= json_is_true(json_object_get(s, "emulated"));
    fprintf(f, "# mtebench nightly: %s\n\n", json_array_size(fresh) ? "REGRESSION" : "no new regression");
    fprintf(f, "%lld nights, %zu series tested; %zu new and %zu open regressions (p < %g, change >= %.1f%%)%s.\n",
            (long long)json_integer_value(json_object_get(set, "nights")), json_array_size(json_object_get(a, "series")),
            json_array_size(fresh), json_array_size(open), mtb_jnum(set, "threshold"), 100 * mtb_jnum(set, "min_change"),
            emu ? "; emulated: not hardware timing" : "");
    char *ht = hosts_text(a);
    if (*ht)
        fprintf(f, "Series by host: %s.\n", ht + strcspn(ht, ":") + 2);
    free(ht);
    const size_t cap = 10;
    /* busy nights: shown, and whether the change-point test left them out */
    json_t *busy = json_object_get(a, "busy_nights");
    if (json_array_size(busy)) {
        int left_out = json_is_true(json_object_get(a, "busy_excluded"));
        fprintf(f, "\n%zu busy night%s (the quiet check or the runs' steal marked %s not quiet): %s\n", json_array_size(busy),
                json_array_size(busy) == 1 ? "" : "s", json_array_size(busy) == 1 ? "it" : "them",
                left_out ? "kept out of the change-point test" : "compared all the same: no night was quiet");
        json_t *n;
        json_array_foreach(json_object_get(a, "nights"), i, n) if (json_is_false(json_object_get(n, "quiet")))
        {
            char *hs = night_hosts(n);
            fprintf(f, "- night %lld (%s%s%s): %s\n", (long long)json_integer_value(json_object_get(n, "x")),
                    mtb_jstr(n, "started"), *hs ? ", on " : "", hs, mtb_jstr(n, "busy_why"));
            free(hs);
        }
    }
    if (json_array_size(fresh)) {
        fprintf(f, "\n## New regressions\n\n");
        json_array_foreach(fresh, i, s) if (i < cap) md_change(f, s);
        if (json_array_size(fresh) > cap)
            fprintf(f, "- ... and %zu more (see the dashboard)\n", json_array_size(fresh) - cap);
    }
    size_t shown = 0;
    json_array_foreach(open, i, s)
    {
        int is_new = 0;
        size_t j;
        json_t *r;
        json_array_foreach(fresh, j, r) is_new |= r == s || (!strcmp(mtb_jstr(r, "series"), mtb_jstr(s, "series")) &&
                                                            !strcmp(mtb_jstr(r, "metric"), mtb_jstr(s, "metric")));
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
    json_array_foreach(json_object_get(a, "series"), i, s)
    {
        json_t *ch = json_object_get(s, "changes"), *c = json_array_get(ch, json_array_size(ch) - 1);
        if (!c || strcmp(mtb_jstr(c, "kind"), "machine"))
            continue;
        if (!shown)
            fprintf(f, "\n## Slower machine, not slower code\n\n");
        if (shown++ < cap)
            fprintf(f, "- **%s**: %+.1f%% since night %lld (%s): %s\n", mtb_jstr(c, "label"), 100 * mtb_jnum(c, "change"),
                    (long long)json_integer_value(json_object_get(c, "x")), mtb_jstr(c, "night_started"),
                    mtb_jstr(c, "machine_why"));
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
    char *html = dashboard_html(analysis, out, problems);
    char *md = digest_md(analysis, out);
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
