/* plot.c - see plot.h */
#include "lib/jsonx.h"
#include "report/plot.h"
#include "core/summary_rows.h"
#include "core/capacity_rows.h"
#include "core/load_rows.h"
#include "core/allocator.h"
#include "analysis/lathist.h"
#include "analysis/stats.h"
#include "analysis/summary.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/proc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- scripts --------------------------------------------------------------- */

/* A string safe inside gnuplot double quotes and data lines. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s != '"' && *s != '\\' && *s != '\n' && *s != '$')
            fputc(*s, f);
    fputc('"', f);
}

/* The head every plot shares: its title and axis labels (quoted; xlabel may
 * be NULL) and, for emulated figures, the "emulated: not hardware timing" label. */
static void put_head(FILE *f, const char *title, const char *xlabel, const char *ylabel, int emulated)
{
    fprintf(f, "set title ");
    put_quoted(f, title);
    if (xlabel) {
        fprintf(f, "\nset xlabel ");
        put_quoted(f, xlabel);
    }
    fprintf(f, "\nset ylabel ");
    put_quoted(f, ylabel);
    fprintf(f, "\n");
    if (emulated)
        fprintf(f, "set label 99 \"%s\" at screen 0.99, screen 0.03 right front textcolor rgb \"#b00020\"\n",
                MTB_PLOT_EMU_LABEL);
}

static const char *kernel_suffix(const char *k, char *buf, size_t n)
{
    if (*k && strcmp(k, "host"))
        snprintf(buf, n, " kernel %s", k);
    else
        buf[0] = 0;
    return buf;
}

char *mtb_plot_overhead_script(json_t *summary)
{
    struct mtb_sum_rows rows, *r = &rows;
    mtb_sum_rows_read(summary, r);
    if (!r->noverheads) {
        mtb_sum_rows_free(r);
        return NULL;
    }
    int emulated = r->emulated;
    /* do the overheads span several workloads? then name the mix on each bar */
    int many_wl = 0;
    size_t i;
    for (i = 0; i < r->noverheads; i++)
        if (!mtb_workload_equal(r->overheads[i].workload.j, r->overheads[0].workload.j))
            many_wl = 1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        mtb_sum_rows_free(r);
        return NULL;
    }
    fprintf(f, "$D << EOD\n");
    static const char *modes[] = { "sync", "async", "asymm", "off" };
    for (i = 0; i < r->noverheads; i++) {
        const struct mtb_sum_overhead *o = &r->overheads[i];
        const struct mtb_ci *s = &o->metric[MTB_P_slowdown];
        double m = s->median, lo = s->lo, hi = s->hi;
        if (isnan(m))
            continue;
        char ks[128], *label;
        kernel_suffix(o->kernel, ks, sizeof ks);
        if (many_wl)
            label = mtb_asprintf("%s %s/%s%s mix %s", o->service, o->variant, o->mode, ks, o->workload.mix);
        else
            label = mtb_asprintf("%s %s/%s%s", o->service, o->variant, o->mode, ks);
        int color = 1;
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
            if (!strcmp(modes[k], o->mode))
                color = (int)k + 1;
        put_quoted(f, label);
        fprintf(f, " %.6g %.6g %.6g %d\n", m, isnan(lo) ? m : lo, isnan(hi) ? m : hi, color);
        free(label);
    }
    mtb_sum_rows_free(r);
    fprintf(f, "EOD\n");
    put_head(f, "Overhead: baseline ops/s / tagged ops/s (median of interleaved pairs, 95% CI)", NULL, "slowdown (x)",
             emulated);
    fprintf(f, "set style fill solid 0.7 border -1\nset boxwidth 0.6\n"
               "set grid ytics\nset yrange [0:*]\nset xrange [-0.7:*]\nset offsets 0, 0.7, 0, 0\n"
               "set xtics rotate by -20 nomirror\nset key off\n"
               "set linetype 1 lc rgb \"#d95f02\"\nset linetype 2 lc rgb \"#1b9e77\"\n"
               "set linetype 3 lc rgb \"#7570b3\"\nset linetype 4 lc rgb \"#666666\"\n"
               "plot $D using 0:2:5:xtic(1) with boxes lc variable, \\\n"
               "     $D using 0:2:3:4 with yerrorbars lc rgb \"black\" pt 0 lw 1.5, \\\n"
               "     1 with lines dt 2 lc rgb \"#444444\"\n");
    fclose(f);
    return buf;
}

char *mtb_plot_protection_script(json_t *rows, int emulated)
{
    if (!json_array_size(rows))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "$D << EOD\n");
    size_t n;
    struct mtb_sum_protection *v = mtb_sum_protection_read(rows, &n);
    for (size_t i = 0; i < n; i++) {
        const struct mtb_sum_protection *r = &v[i];
        int base = r->baseline;
        double m = base ? 1 : r->slowdown.median, lo = base ? 1 : r->slowdown.lo, hi = base ? 1 : r->slowdown.hi;
        if (isnan(m))
            continue;
        char ks[128];
        char *label = mtb_asprintf("%s %s/%s%s", r->service, r->variant, r->mode, kernel_suffix(r->kernel, ks, sizeof ks));
        put_quoted(f, label);
        fprintf(f, " %.6g %.6g %.6g %.6g %.6g %.6g\n", m, isnan(lo) ? m : lo, isnan(hi) ? m : hi, r->fraction, r->lo,
                r->hi);
        free(label);
    }
    free(v);
    fprintf(f, "EOD\n");
    put_head(f, "What the price buys: overhead against the share of the catalogue caught",
             "slowdown against plain/off (95% CI)",
             "bugs caught by a tag check (fraction, Wilson 95%)", emulated);
    fprintf(f, "set grid\nset key off\nset yrange [-0.05:1.1]\nset xrange [0.8:*]\nset offsets 0, 0.4, 0, 0\n"
               "plot $D using 2:5:3:4:6:7 with xyerrorbars pt 7 ps 1.2 lc rgb \"#d95f02\", \\\n"
               "     $D using 2:5:1 with labels left offset 0.8,0.7 font \",10\"\n");
    fclose(f);
    return buf;
}

char *mtb_plot_cores_script(json_t *summary)
{
    struct mtb_sum_rows rows, *rs = &rows;
    mtb_sum_rows_read(summary, rs);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = rs->ncores ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        mtb_sum_rows_free(rs);
        return NULL;
    }
    /* one data block per line (service, workload, config, platform, kernel),
     * rows already ordered by cores */
    int nblocks = 0;
    char prev[512] = "";
    json_t *titles = json_array();
    size_t i;
    for (i = 0; i < rs->ncores; i++) {
        const struct mtb_sum_cores *r = &rs->cores[i];
        char ks[128];
        kernel_suffix(r->kernel, ks, sizeof ks);
        char *key = mtb_asprintf("%s %s %s/%s%s", r->service, r->workload, r->variant, r->mode, ks);
        if (strcmp(key, prev)) {
            fprintf(f, "%s$L%d << EOD\n", nblocks ? "EOD\n" : "", nblocks);
            nblocks++;
            snprintf(prev, sizeof prev, "%s", key);
            json_array_append_new(titles, json_string(key));
        }
        free(key);
        fprintf(f, "%lld %.6g\n", (long long)r->cores, r->ops_per_sec.median);
    }
    fprintf(f, "EOD\n");
    put_head(f, "Throughput against server cores (median ops/s)", "server cores", "ops/s", rs->emulated);
    mtb_sum_rows_free(rs);
    fprintf(f, "set grid\nset yrange [0:*]\nset key outside right\n"
               "set xtics 1\nplot ");
    json_t *t;
    json_array_foreach(titles, i, t)
    {
        fprintf(f, "%s$L%zu using 1:2 with linespoints lw 2 pt 7 title ", i ? ", \\\n     " : "", i);
        put_quoted(f, json_string_value(t));
    }
    fprintf(f, "\n");
    json_decref(titles);
    fclose(f);
    return buf;
}

char *mtb_plot_group(json_t *rec)
{
    struct mtb_rec_config c;
    mtb_rec_config_view(rec, &c);
    return mtb_asprintf("%s, mix %s, %lld conns, pipeline %lld, platform %s", c.service, mtb_jstr(c.workload, "mix"),
                        (long long)mtb_jnum(c.workload, "conns"), (long long)mtb_jnum(c.workload, "pipeline"),
                        c.platform);
}

static int rec_ok_in(json_t *rec, const char *group)
{
    if (strcmp(mtb_jstr(rec, "status"), "ok"))
        return 0;
    char *g = mtb_plot_group(rec);
    int in = !strcmp(g, group);
    free(g);
    return in;
}

static char *line_label(json_t *rec, int with_rep)
{
    struct mtb_rec_config c;
    mtb_rec_config_view(rec, &c);
    char ks[128];
    kernel_suffix(c.kernel, ks, sizeof ks);
    char lab[128];
    mtb_label_of(c.variant, c.allocator, lab, sizeof lab);
    if (with_rep)
        return mtb_asprintf("%s/%s%s rep%d", lab, c.mode, ks, c.rep);
    return mtb_asprintf("%s/%s%s", lab, c.mode, ks);
}

#define SPECTRUM_MAX 200

char *mtb_plot_spectrum_script(json_t *records, const char *group, int emulated)
{
    /* label -> array of histograms */
    json_t *lines = json_object();
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        struct mtb_load_view lv;
        mtb_load_view_of_record(rec, &lv);
        json_t *h = lv.histogram;
        if (!rec_ok_in(rec, group) || !json_array_size(h))
            continue;
        char *l = line_label(rec, 0);
        json_t *a = json_object_get(lines, l);
        if (!a)
            json_object_set_new(lines, l, a = json_array());
        json_array_append(a, h);
        free(l);
    }
    if (!json_object_size(lines)) {
        json_decref(lines);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        json_decref(lines);
        return NULL;
    }
    const char *label;
    json_t *hists;
    int k = 0;
    double xmax = 10;
    json_object_foreach(lines, label, hists)
    {
        double *val, *cnt, pct[SPECTRUM_MAX], v[SPECTRUM_MAX];
        size_t n = mtb_hist_merge(hists, &val, &cnt);
        size_t m = mtb_hist_spectrum(val, cnt, n, pct, v, SPECTRUM_MAX);
        fprintf(f, "$L%d << EOD\n", k);
        for (size_t j = 0; j < m; j++) {
            double x = 1 / (1 - pct[j]);
            if (x > xmax)
                xmax = x;
            fprintf(f, "%.9g %.6g %.6f\n", x, v[j], 100 * pct[j]);
        }
        fprintf(f, "EOD\n");
        free(val);
        free(cnt);
        k++;
    }
    char *t = mtb_asprintf("Latency by percentile: %s (runs merged)", group);
    put_head(f, t, "percentile", "latency (us)", emulated);
    free(t);
    fprintf(f, "set logscale x\nset xrange [1:%g]\n"
               "set xtics (\"0%%%%\" 1, \"90%%%%\" 10, \"99%%%%\" 100, \"99.9%%%%\" 1000, \"99.99%%%%\" 10000, "
               "\"99.999%%%%\" 100000, \"99.9999%%%%\" 1000000)\n"
               "set grid xtics ytics\nset key top left\nset yrange [0:*]\nplot ",
            pow(10, ceil(log10(xmax))));
    k = 0;
    json_object_foreach(lines, label, hists)
    {
        fprintf(f, "%s$L%d using 1:2 with steps lw 2 title ", k ? ", \\\n     " : "", k);
        put_quoted(f, label);
        k++;
    }
    fprintf(f, "\n");
    fclose(f);
    json_decref(lines);
    return buf;
}

/* one run's rates by second: rate[t-1] for t = 1..n (NAN where none) */
static size_t run_rates(json_t *rec, double *rate, size_t max)
{
    struct mtb_load_view lv;
    mtb_load_view_of_record(rec, &lv);
    json_t *ts = lv.timeseries, *pt;
    double prev = 0, dur = lv.duration_s;
    size_t j, n = 0;
    json_array_foreach(ts, j, pt)
    {
        double t = mtb_jnum(pt, "t"), ops = mtb_jnum(pt, "ops");
        /* an interval ending after the measured period only holds the
         * stragglers completing after the end: not a rate */
        if (!(t > prev) || isnan(ops) || (dur > 0 && t > dur + 1e-6))
            continue;
        size_t k = (size_t)ceil(t - 1e-9);
        if (k >= 1 && k <= max) {
            while (n < k - 1)
                rate[n++] = NAN;
            rate[k - 1] = ops / (t - prev);
            n = k;
        }
        prev = t;
    }
    return n;
}

#define TS_MAX_S 3600 /* seconds drawn */
#define TS_MAX_RUNS 256

/* Each configuration of the group as the median of its runs at every second
 * and the band from the lowest to the highest run (twenty runs drawn as
 * twenty lines are a tangle no one reads). */
char *mtb_plot_timeseries_script(json_t *records, const char *group, int emulated)
{
    /* configuration label -> its records */
    json_t *cfgs = json_object();
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        struct mtb_load_view lv;
        mtb_load_view_of_record(rec, &lv);
        if (!rec_ok_in(rec, group) || !json_array_size(lv.timeseries))
            continue;
        char *l = line_label(rec, 0);
        json_t *a = json_object_get(cfgs, l);
        if (!a)
            json_object_set_new(cfgs, l, a = json_array());
        json_array_append(a, rec);
        free(l);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = json_object_size(cfgs) ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        json_decref(cfgs);
        return NULL;
    }
    double *rates = mtb_calloc((size_t)TS_MAX_RUNS * TS_MAX_S, sizeof *rates), col[TS_MAX_RUNS];
    size_t nr[TS_MAX_RUNS];
    const char *label;
    json_t *runs;
    int k = 0;
    json_object_foreach(cfgs, label, runs)
    {
        size_t nruns = 0, tmax = 0;
        json_array_foreach(runs, i, rec) if (nruns < TS_MAX_RUNS)
        {
            nr[nruns] = run_rates(rec, rates + nruns * TS_MAX_S, TS_MAX_S);
            tmax = nr[nruns] > tmax ? nr[nruns] : tmax;
            nruns++;
        }
        fprintf(f, "$C%d << EOD\n", k);
        for (size_t t = 0; t < tmax; t++) {
            size_t m = 0;
            for (size_t r = 0; r < nruns; r++)
                if (t < nr[r] && isfinite(rates[r * TS_MAX_S + t]))
                    col[m++] = rates[r * TS_MAX_S + t];
            if (!m)
                continue;
            mtb_stats_sort(col, m);
            fprintf(f, "%zu %.6g %.6g %.6g %zu\n", t + 1, mtb_stats_median_sorted(col, m), col[0], col[m - 1], m);
        }
        fprintf(f, "EOD\n");
        k++;
    }
    free(rates);
    char *t = mtb_asprintf("Throughput over time: %s", group);
    put_head(f, t, "time in the measured interval (s)", "ops/s", emulated);
    free(t);
    fprintf(f, "set yrange [0:*]\nset grid\nset key outside right top\nset style fill transparent solid 0.2 noborder\nplot ");
    k = 0;
    json_object_foreach(cfgs, label, runs)
    {
        char *title = mtb_asprintf("%s: median of %zu run%s, band lowest-highest", label, json_array_size(runs),
                                   json_array_size(runs) == 1 ? "" : "s");
        fprintf(f, "%s$C%d using 1:3:4 with filledcurves lc %d notitle, \\\n     $C%d using 1:2 with lines lw 2 lc %d title ",
                k ? ", \\\n     " : "", k, k + 1, k, k + 1);
        put_quoted(f, title);
        free(title);
        k++;
    }
    fprintf(f, "\n");
    fclose(f);
    json_decref(cfgs);
    return buf;
}

char *mtb_plot_trend_script(const char *title, const char *ylabel, const double *x, const double *y, size_t n,
                            json_t *cps, int emulated)
{
    if (n == 0)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "$P << EOD\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.9g %.9g\n", x[i], y[i]);
    fprintf(f, "EOD\n$M << EOD\n");
    /* per night (points of one x are adjacent): the median */
    double *tmp = mtb_calloc(n, sizeof *tmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && x[j] == x[i])
            j++;
        for (size_t k = i; k < j; k++)
            tmp[k - i] = y[k];
        for (size_t a = 1; a < j - i; a++) /* insertion sort: a night has a few runs */
            for (size_t b = a; b > 0 && tmp[b - 1] > tmp[b]; b--) {
                double t = tmp[b];
                tmp[b] = tmp[b - 1];
                tmp[b - 1] = t;
            }
        size_t m = j - i;
        fprintf(f, "%.9g %.9g\n", x[i], m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2);
        i = j;
    }
    free(tmp);
    fprintf(f, "EOD\n");
    put_head(f, title, "night", ylabel, emulated);
    fprintf(f, "set grid\nset key top left\nset offsets 0.5, 0.5, 0, 0\n"
               "set xtics 1\nset mxtics 1\n");
    if (x[n - 1] - x[0] > 20)
        fprintf(f, "set xtics autofreq\n");
    size_t i;
    json_t *cp;
    json_array_foreach(cps, i, cp)
    {
        const char *kind = mtb_jstr(cp, "kind");
        const char *color = !strcmp(kind, "regression") ? "#c00000" : !strcmp(kind, "improvement") ? "#1b7e37" : "#888888";
        double cx = mtb_jnum(cp, "x") - 0.5;
        fprintf(f, "set arrow %zu from first %.6g, graph 0 to first %.6g, graph 1 nohead lw 2 dt 2 lc rgb \"%s\"\n",
                i + 1, cx, cx, color);
        fprintf(f, "set label %zu \"%+.1f%%\" at first %.6g, graph 0.95 left offset 0.3,0 textcolor rgb \"%s\"\n",
                i + 1, 100 * mtb_jnum(cp, "change"), cx, color);
    }
    fprintf(f, "plot $P using 1:2 with points pt 7 ps 0.6 lc rgb \"#4a78b5\" title \"runs\", \\\n"
               "     $M using 1:2 with linespoints lw 2 pt 5 ps 0.5 lc rgb \"#222222\" title \"nightly median\"\n");
    fclose(f);
    return buf;
}

/* ---- rendering ------------------------------------------------------------- */

static int mtb_plot_available(void)
{
    char *p = mtb_which("gnuplot");
    free(p);
    return p != NULL;
}

/* Copy s with every occurrence of each pattern pat[i] followed by prefix. */
static char *prefix_ids(const char *s, const char *prefix)
{
    static const char *pats[] = { "id=\"", "id='", "href='#", "href=\"#", "url(#" };
    size_t plen = strlen(prefix), n = 0, cap = strlen(s) + 1;
    for (const char *q = s; *q; q++)
        for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++)
            if (!strncmp(q, pats[k], strlen(pats[k])))
                cap += plen;
    char *out = mtb_calloc(cap, 1);
    for (const char *q = s; *q;) {
        size_t k;
        for (k = 0; k < sizeof pats / sizeof pats[0]; k++)
            if (!strncmp(q, pats[k], strlen(pats[k])))
                break;
        if (k < sizeof pats / sizeof pats[0]) {
            size_t pl = strlen(pats[k]);
            memcpy(out + n, q, pl);
            n += pl;
            memcpy(out + n, prefix, plen);
            n += plen;
            q += pl;
        } else {
            out[n++] = *q++;
        }
    }
    out[n] = 0;
    return out;
}

int mtb_plot_render(const char *script, const char *id_prefix, int width, int height, char **svg, char *err,
                    size_t errlen)
{
    *svg = NULL;
    if (!mtb_plot_available()) {
        snprintf(err, errlen, "gnuplot not found in PATH (Debian package gnuplot-nox; run make deps)");
        return -ENOENT;
    }
    char dir[] = "/tmp/mtebench-plot.XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        return -EIO;
    }
    char *gp = mtb_asprintf("%s/plot.gp", dir), *out = mtb_asprintf("%s/plot.svg", dir);
    char *full = mtb_asprintf("set terminal svg size %d,%d dynamic noenhanced font \"sans,12\" background rgb "
                              "\"white\"\nset output \"%s\"\nset encoding utf8\n%s\nunset output\n",
                              width, height, out, script);
    int rc = -EIO;
    if (mtb_write_atomic(gp, full, strlen(full)) != 0) {
        snprintf(err, errlen, "cannot write %s", gp);
    } else {
        char *argv[] = { "gnuplot", gp, NULL };
        int st = 0;
        char *msg = mtb_capture(argv, 1, &st);
        size_t n = 0;
        char *text = mtb_read_file(out, &n);
        if (!msg || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !text || !strstr(text, "</svg>")) {
            snprintf(err, errlen, "gnuplot failed (status %d): %.300s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                     msg ? msg : "could not run");
        } else {
            const char *start = strstr(text, "<svg");
            *svg = prefix_ids(start ? start : text, id_prefix);
            rc = 0;
        }
        free(text);
        free(msg);
    }
    unlink(gp);
    unlink(out);
    rmdir(dir);
    free(gp);
    free(out);
    free(full);
    return rc;
}

char *mtb_plot_capacity_script(json_t *result)
{
    struct mtb_cap_rows rows, *r = &rows;
    char *buf = NULL;
    size_t len = 0, i, k, npts = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    mtb_cap_rows_read(result, r);
    for (i = 0; i < r->nconfigs; i++) {
        fprintf(f, "$C%zu << EOD\n", i);
        for (k = 0; k < r->configs[i].npoints; k++) {
            const struct mtb_cap_row_point *p = &r->configs[i].points[k];
            fprintf(f, "%.6g %.6g %.6g %.6g\n", p->rate, p->corrected[0], p->corrected[1], p->corrected[2]);
            npts++;
        }
        fprintf(f, "EOD\n");
    }
    char *title = mtb_asprintf("Latency against offered load: %s %s, %s arrivals (CO-corrected, median of the runs)",
                               r->service, r->workload, r->arrival);
    put_head(f, title, "offered load (requests/s)", "latency (us)", r->emulated);
    free(title);
    fprintf(f, "set grid\nset logscale y\nset key outside right\n");
    for (k = 0; k < r->nbounds; k++) {
        const struct mtb_cap_bound *b = &r->bounds[k];
        fprintf(f, "set arrow from graph 0, first %.6g to graph 1, first %.6g nohead dashtype 2 lc rgb \"#b00020\"\n",
                b->bound_us, b->bound_us);
        fprintf(f, "set label ");
        put_quoted(f, b->text);
        fprintf(f, " at graph 0.01, first %.6g offset 0,0.6 textcolor rgb \"#b00020\"\n", b->bound_us);
    }
    for (i = 0; i < r->nconfigs; i++) { /* the knee: the capacity at the first bound */
        const struct mtb_cap_at *e = r->configs[i].nat ? &r->configs[i].at[0] : NULL;
        if (e && !strcmp(e->status, "found"))
            fprintf(f, "set arrow from first %.6g, graph 0 to first %.6g, graph 1 nohead dashtype 3 lc %zu\n",
                    e->capacity, e->capacity, i + 1);
    }
    fprintf(f, "plot ");
    for (i = 0; i < r->nconfigs; i++)
        for (int q = 0; q < MTB_CAP_NPCT; q++) {
            char *t = mtb_asprintf("%s/%s %s", r->configs[i].variant, r->configs[i].mode, mtb_cap_pcts[q]);
            fprintf(f, "%s$C%zu using 1:%d with linespoints lc %zu dashtype %d pt 7 title ", i || q ? ", \\\n     " : "",
                    i, q + 2, i + 1, q + 1);
            put_quoted(f, t);
            free(t);
        }
    fprintf(f, "\n");
    fclose(f);
    mtb_cap_rows_free(r);
    if (!npts) {
        free(buf);
        return NULL;
    }
    return buf;
}
