/* test_report.c - known answers for the report's statistics (summary.c),
 * the Prometheus textfile (prom.c) and escaping (report.c). TAP. */
#include "lib/jsonx.h"
#include "core/record.h"
#include "report/report.h"
#include "analysis/summary.h"
#include "report/summary_text.h"
#include "report/plot.h"
#include "report/prom.h"
#include "lib/err.h"
#include "lib/files.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* a minimal ok record */
static json_t *rec(const char *svc, const char *variant, const char *mode, const char *kernel, int rep, double ops,
                   double p99, int client_bound)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:i}},s:{s:s,s:b},s:{s:s},"
                     "s:{s:f,s:f,s:f,s:f,s:b}}",
                     "schema", "mtebench-run/1", "status", "ok", "config", "service", svc, "variant", variant, "mode",
                     mode, "platform", "emu", "kernel", kernel, "rep", rep, "workload", "mix", "1:10", "conns", 16,
                     "platform", "name", "emu", "emulated", 1, "kernel", "name", kernel, "summary", "ops_per_sec",
                     ops, "p50_us", p99 / 4, "p99_us", p99, "p999_us", p99 * 2, "client_bound", client_bound);
}

static json_t *find(json_t *arr, const char *k1, const char *v1, const char *k2, const char *v2)
{
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        const char *a = json_string_value(json_object_get(o, k1)), *b = json_string_value(json_object_get(o, k2));
        if (a && b && !strcmp(a, v1) && !strcmp(b, v2))
            return o;
    }
    return NULL;
}

static double num(json_t *o, const char *k1, const char *k2)
{
    json_t *v = json_object_get(k2 ? json_object_get(o, k1) : o, k2 ? k2 : k1);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int has_warning(json_t *sum, const char *a, const char *b)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(sum, "warnings"), i, w)
    {
        const char *s = json_string_value(w);
        if (strstr(s, a) && strstr(s, b))
            return 1;
    }
    return 0;
}

static void test_summary(void)
{
    json_t *r = json_array();
    /* memcached, host: baseline 1000 x3; tagged 790, 800, 810 ->
     * slowdowns 1000/790, 1000/800, 1000/810: median 1.25 */
    int reps[] = { 1, 2, 3 };
    double mt[] = { 790, 800, 810 }, ng[] = { 495, 500, 505 }, k2[] = { 990, 1000, 1010 };
    for (int i = 0; i < 3; i++) {
        json_array_append_new(r, rec("memcached", "plain", "off", "host", reps[i], 1000, 100, 0));
        json_array_append_new(r, rec("memcached", "tagged", "async", "host", reps[i], mt[i], 120, 0));
        /* nginx, host: baseline 900; tagged 495, 500, 505 -> median 900/500 = 1.8 */
        json_array_append_new(r, rec("nginx", "plain", "off", "host", reps[i], 900, 100, 0));
        json_array_append_new(r, rec("nginx", "tagged", "async", "host", reps[i], ng[i], 100, 0));
        /* memcached tagged/async under a second kernel: 990, 1000, 1010 */
        json_array_append_new(r, rec("memcached", "tagged", "async", "tcma1", reps[i], k2[i], 100, 0));
    }
    /* rocksdb: a noisy, client-bound baseline of 1000, 1500, 2000 */
    json_array_append_new(r, rec("rocksdb", "plain", "off", "host", 1, 1000, 100, 1));
    json_array_append_new(r, rec("rocksdb", "plain", "off", "host", 2, 1500, 100, 0));
    json_array_append_new(r, rec("rocksdb", "plain", "off", "host", 3, 2000, 100, 0));
    /* not ok runs are not used */
    json_t *bad = rec("rocksdb", "plain", "off", "host", 4, 1e9, 100, 0);
    json_object_set_new(bad, "status", json_string("error"));
    json_array_append_new(r, bad);

    json_t *s = mtb_summary_build(r);
    ok(s != NULL, "summary built");
    json_t *ovs = json_object_get(s, "overheads");
    json_t *om = find(ovs, "service", "memcached", "kernel", "host");
    json_t *on = find(ovs, "service", "nginx", "kernel", "host");
    ok(om && near(num(om, "slowdown", "median"), 1.25, 1e-12) && num(om, "pairs", NULL) == 3,
       "memcached overhead: median of 1000/790, 1000/800, 1000/810 = 1.25 (3 pairs)");
    /* 3 pairs: [min, max] ratio with achieved confidence 1 - 2 * (1/2)^3 = 0.75 */
    ok(om && near(num(om, "slowdown", "lo"), 1000.0 / 810, 1e-12) && near(num(om, "slowdown", "hi"), 1000.0 / 790, 1e-12) &&
       near(num(om, "slowdown", "conf"), 0.75, 1e-12), "overhead CI of 3 pairs: [min, max] ratio, 75%% confidence");
    ok(on && near(num(on, "slowdown", "median"), 1.8, 1e-12), "nginx overhead 1.8");
    ok(om && near(num(om, "p99_ratio", "median"), 1.2, 1e-12), "p99 ratio 120/100 = 1.2");
    ok(om && near(num(om, "p999_ratio", "median"), 1.2, 1e-12) && near(num(on, "p999_ratio", "median"), 1, 1e-12),
       "p99.9 overhead: tagged p99.9 / baseline p99.9 per pair, median (240/200 = 1.2; nginx 1)");
    /* Mann-Whitney of tagged {790,800,810} vs baseline {1000,1000,1000}: U = 0;
     * the baseline's ties force the normal approximation: mu = 4.5,
     * sigma^2 = 9/12 (7 - (27-3)/30) = 4.65, z = -(4.5 - 0.5)/2.1564 = -1.855, p = 0.0636 */
    ok(om && near(num(om, "mann_whitney_p", NULL), 0.0636, 5e-4), "Mann-Whitney p by hand: 0.0636 (got %.4f)",
       num(om, "mann_whitney_p", NULL));

    /* geometric mean over memcached 1.25 and nginx 1.8 (host): sqrt(2.25) = 1.5 */
    json_t *g = find(json_object_get(s, "geomeans"), "mode", "async", "kernel", "host");
    ok(g && near(num(g, "slowdown", "geomean"), 1.5, 1e-12) && num(g, "n", NULL) == 2,
       "geometric mean of 1.25 and 1.8 = 1.5 (got %.6f)", g ? num(g, "slowdown", "geomean") : NAN);
    ok(g && ((num(g, "slowdown", "lo") <= 1.5 && num(g, "slowdown", "hi") >= 1.5) || isnan(num(g, "slowdown", "hi"))),
       "geometric mean CI brackets it (or is unbounded at n = 2)");

    /* kernel comparison: tcma1 / host for tagged/async, paired by rep:
     * 990/790, 1000/800, 1010/810 -> median 1.25, delta +25%; MWU exact p = 0.1 */
    json_t *k = find(json_object_get(s, "kernels"), "kernel_a", "host", "kernel_b", "tcma1");
    ok(k && near(num(k, "delta", "median"), 0.25, 1e-12) && num(k, "pairs", NULL) == 3,
       "kernel delta: +25%% over 3 pairs");
    ok(k && near(num(k, "mann_whitney_p", NULL), 0.1, 1e-12) && json_is_false(json_object_get(k, "significant")),
       "kernel Mann-Whitney: exact p = 0.1 for 3 vs 3 fully separated, not significant");
    const char *note = k ? json_string_value(json_object_get(k, "note")) : NULL;
    ok(note && strstr(note, "platform emu") && strstr(note, "TCMA1"), "kernel note names the platform and TCMA1");
    ok(json_array_size(json_object_get(s, "kernels")) == 1, "only tagged/async exists under both kernels");

    /* warnings */
    ok(has_warning(s, "rocksdb plain/off", "noisy: add repetitions"), "noisy warning (rocksdb: ±33%% half-width)");
    ok(has_warning(s, "rocksdb plain/off", "client-bound"), "client-bound warning");
    ok(has_warning(s, "memcached tagged/async", "75.0% confidence"), "achieved confidence stated for 3 runs");
    ok(!has_warning(s, "memcached plain/off", "noisy"), "no noise warning for a steady configuration");
    json_t *c;
    size_t i;
    int runs = 0;
    json_array_foreach(json_object_get(s, "configs"), i, c) runs += (int)num(c, "runs", NULL);
    ok(runs == 18, "runs with status error are not used (18 of 19)");
    char *md = mtb_summary_markdown(s);
    ok(md && strstr(md, "Kernel comparison") && strstr(md, "Geometric mean") && strstr(md, "1.500x"),
       "Markdown has the kernel table and the geometric mean");
    /* every metric of the table in the views: p99.9 overhead of memcached (1.2) */
    ok(md && strstr(md, "| p99.9 overhead [CI] |") && strstr(md, "1.200x [1.200 – 1.200]"),
       "Markdown: a p99.9 overhead column (1.200x)");
    free(md);
    char *txt = NULL;
    size_t tlen = 0;
    FILE *tf = open_memstream(&txt, &tlen);
    mtb_summary_print(s, tf);
    fclose(tf);
    ok(txt && strstr(txt, "overhead tagged/async vs plain/off: 1.250x") && strstr(txt, "p99 x1.200") &&
       strstr(txt, "p99.9 x1.200") && strstr(txt, "p99.9 us"), "text table: overhead, p99 and p99.9 ratios, p99.9 column");
    free(txt);
    json_decref(s);
    json_decref(r);

    json_t *w1 = json_loads("{\"a\":2,\"b\":\"x\"}", 0, NULL), *w2 = json_loads("{\"b\":\"x\",\"a\":2.0}", 0, NULL);
    ok(mtb_workload_equal(w1, w2), "workloads compare by value: 2 == 2.0, key order ignored");
    json_decref(w1);
    json_decref(w2);
}

static void test_escaping(void)
{
    char *a = mtb_csv_field("plain"), *b = mtb_csv_field("a,b"), *c = mtb_csv_field("say \"hi\"");
    ok(!strcmp(a, "plain") && !strcmp(b, "\"a,b\"") && !strcmp(c, "\"say \"\"hi\"\"\""), "CSV quoting (RFC 4180)");
    free(a);
    free(b);
    free(c);
    char *h = mtb_html_escape("<a href='x'>&\"</a>");
    ok(!strcmp(h, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"), "HTML escaping");
    free(h);
}

/* record.c: why a record is not used, and the one pairing rule */
static void test_record(void)
{
    char msg[400];
    json_t *arr = json_loads("[1]", 0, NULL), *old = json_loads("{\"schema\":\"mtebench-run/0\"}", 0, NULL);
    json_t *noschema = json_loads("{\"config\":{}}", 0, NULL);
    json_t *nofig = rec("memcached", "plain", "off", "host", 1, 1000, 100, 0);
    json_object_del(json_object_get(nofig, "summary"), "ops_per_sec");
    ok(mtb_record_check(arr, msg, sizeof msg) == MTB_REC_NOT_OBJECT && strstr(msg, "array"), "an array: %s", msg);
    ok(mtb_record_check(noschema, msg, sizeof msg) == MTB_REC_NO_SCHEMA, "no schema: %s", msg);
    ok(mtb_record_check(old, msg, sizeof msg) == MTB_REC_OTHER_SCHEMA && strstr(msg, "mtebench-run/0"), "other schema: %s", msg);
    ok(mtb_record_check(nofig, msg, sizeof msg) == MTB_REC_NO_FIGURES &&
       !strcmp(mtb_record_problem_name(MTB_REC_NO_FIGURES), "no-figures"), "ok without figures: %s", msg);
    json_decref(arr);
    json_decref(old);
    json_decref(noschema);
    json_decref(nofig);

    /* a tagged run pairs with the baseline of its own machine profile (as the
     * history always did): baselines of 1000 on m1 and 2000 on m2, tagged 500 on m1 */
    json_t *r = json_array();
    const char *mach[] = { "m1", "m2", "m1" };
    const char *var[] = { "plain", "plain", "tagged" }, *mode[] = { "off", "off", "sync" };
    double ops[] = { 1000, 2000, 500 };
    for (int i = 0; i < 3; i++) {
        json_t *x = rec("memcached", var[i], mode[i], "host", 1, ops[i], 100, 0);
        json_object_set_new(x, "machine", json_pack("{s:s,s:s}", "name", mach[i], "service_cpus", "0"));
        json_array_append_new(r, x);
    }
    ok(mtb_record_pairs(json_array_get(r, 2), json_array_get(r, 0)) && !mtb_record_pairs(json_array_get(r, 2), json_array_get(r, 1)),
       "pairing rule: same machine profile only");
    ok(mtb_record_partner(r, json_array_get(r, 2)) == 0 && mtb_record_partner(r, json_array_get(r, 0)) == -1,
       "the partner of the tagged run is the m1 baseline; a baseline has none");
    long *pa = mtb_record_partners(r);
    ok(pa[0] == -1 && pa[1] == -1 && pa[2] == 0, "all partners at once (runs.csv): the same");
    free(pa);
    json_t *s = mtb_summary_build(r);
    json_t *o = json_array_get(json_object_get(s, "overheads"), 0);
    ok(json_array_size(json_object_get(s, "configs")) == 3 && near(num(o, "slowdown", "median"), 2.0, 1e-12) &&
       num(o, "pairs", NULL) == 1, "summary: the two machines are two configurations; overhead 1000/500 = 2 of 1 pair");
    char *sql = mtb_record_pair_sql("t", "b");
    ok(strstr(sql, "b.machine = t.machine") && strstr(sql, "b.rep = t.rep") && strstr(sql, "b.night = t.night"),
       "the history's join has the same fields");
    free(sql);
    json_decref(s);
    json_decref(r);
}

/* records of two hosts: each host's runs its own configurations, paired on
 * that host only, rows naming the host; one host's records name none */
static void test_hosts(void)
{
    json_t *r = json_array();
    const char *hosts[] = { "amp1", "amp2" };
    double base[] = { 1000, 2000 }, tag[] = { 800, 1000 };
    for (int h = 0; h < 2; h++)
        for (int i = 1; i <= 3; i++) {
            json_t *b = rec("memcached", "plain", "off", "host", i, base[h], 100, 0);
            json_t *t = rec("memcached", "tagged", "async", "host", i, tag[h], 100, 0);
            json_object_set_new(b, "environment", json_pack("{s:s}", "hostname", hosts[h]));
            json_object_set_new(t, "environment", json_pack("{s:s}", "hostname", hosts[h]));
            json_array_append_new(r, b);
            json_array_append_new(r, t);
        }
    json_t *s = mtb_summary_build(r);
    json_t *cs = json_object_get(s, "configs"), *ovs = json_object_get(s, "overheads");
    ok(json_array_size(cs) == 4, "two hosts: 4 configurations (none pooled across hosts), got %zu", json_array_size(cs));
    json_t *o1 = find(ovs, "host", "amp1", "service", "memcached"), *o2 = find(ovs, "host", "amp2", "service", "memcached");
    ok(o1 && near(num(o1, "slowdown", "median"), 1.25, 1e-12) && o2 && near(num(o2, "slowdown", "median"), 2.0, 1e-12),
       "each host's overhead from its own pairs: amp1 1000/800 = 1.25, amp2 2000/1000 = 2");
    /* the tables show each host's configuration with its own host's overhead
     * (the Markdown once took the last host's, the HTML the first's) */
    struct mtb_sum_rows rows;
    mtb_sum_rows_read(s, &rows);
    int own = 0;
    for (size_t k = 0; k < rows.nconfigs; k++) {
        const struct mtb_sum_overhead *o = rows.configs[k].overhead;
        own += o && !strcmp(o->host, rows.configs[k].host);
    }
    mtb_sum_rows_free(&rows);
    char *md = mtb_summary_markdown(s), e1[48], e2[48], rg[96];
    struct mtb_ci ci1, ci2;
    mtb_ci_read(json_object_get(o1, "slowdown"), &ci1);
    mtb_ci_read(json_object_get(o2, "slowdown"), &ci2);
    mtb_ci_cell(&ci1, MTB_CI_RATIO, e1, sizeof e1, rg, sizeof rg);
    mtb_ci_cell(&ci2, MTB_CI_RATIO, e2, sizeof e2, rg, sizeof rg);
    const char *r1 = md ? strstr(md, "tagged/async on amp1") : NULL, *r2 = md ? strstr(md, "tagged/async on amp2") : NULL;
    int l1 = r1 ? (int)strcspn(r1, "\n") : 0, l2 = r2 ? (int)strcspn(r2, "\n") : 0;
    ok(own == 2 && r1 && r2 && strstr(r1, e1) && strstr(r1, e1) < r1 + l1 && strstr(r2, e2) && strstr(r2, e2) < r2 + l2,
       "each host's tagged row shows its own overhead (amp1 %s, amp2 %s): %.*s / %.*s", e1, e2, l1, r1 ? r1 : "", l2,
       r2 ? r2 : "");
    free(md);
    json_decref(s);
    long *pt = mtb_record_partners(r);
    int cross = 0;
    for (size_t i = 0; i < json_array_size(r); i++)
        if (pt[i] >= 0)
            cross += strcmp(mtb_record_host(json_array_get(r, i)), mtb_record_host(json_array_get(r, (size_t)pt[i]))) != 0;
    ok(cross == 0 && pt[7] == 6, "runs.csv's partners: each tagged run's baseline from its own host (%d across)", cross);
    free(pt);
    /* one host: no host field, as before */
    json_t *one = json_array();
    for (size_t i = 0; i < json_array_size(r); i++)
        if (!strcmp(mtb_jstr(json_object_get(json_array_get(r, i), "environment"), "hostname"), "amp1"))
            json_array_append(one, json_array_get(r, i));
    s = mtb_summary_build(one);
    ok(json_array_size(json_object_get(s, "configs")) == 2 &&
       !json_object_get(json_array_get(json_object_get(s, "configs"), 0), "host"),
       "one host: 2 configurations, no host named");
    json_decref(s);
    json_decref(one);
    json_decref(r);
}

/* the table's integers: 2^63-1 ops/s (a double of 2^63) is printed, not
 * negated into -9223372036854775808 (summary_text.c once used llround) */
static void test_fmt_int(void)
{
    char b[64];
    mtb_summary_fmt_int(b, sizeof b, 9223372036854775807.0);
    ok(!strcmp(b, "9,223,372,036,854,775,808"), "2^63 shown as %s", b);
    mtb_summary_fmt_int(b, sizeof b, -1234567.4);
    ok(!strcmp(b, "-1,234,567"), "negative: %s", b);
    mtb_summary_fmt_int(b, sizeof b, 1e300);
    ok(strlen(b) < sizeof b && b[0] == '1', "1e300 cut to the buffer, not overflowing it (%zu characters)", strlen(b));
    mtb_summary_fmt_int(b, sizeof b, 0.4);
    ok(!strcmp(b, "0"), "0.4 -> %s", b);
}

/* Throughput over time: a configuration is its median and band, not a line per run */
static void test_timeseries_plot(void)
{
    json_t *recs = json_array();
    const double v[3][2] = { { 100, 110 }, { 300, 330 }, { 200, 220 } };
    for (int r = 0; r < 3; r++)
        for (int t = 0; t < 2; t++) {
            json_t *x = rec("memcached", t ? "tagged" : "plain", t ? "sync" : "off", "host", r + 1, 1000, 100, 0);
            json_object_set_new(x, "load", json_pack("{s:f,s:[{s:i,s:f},{s:i,s:f}]}", "duration_s", 2.0, "timeseries", "t",
                                                     1, "ops", v[r][t], "t", 2, "ops", 2 * v[r][t]));
            json_array_append_new(recs, x);
        }
    char *g = mtb_plot_group(json_array_get(recs, 0));
    char *sc = mtb_plot_timeseries_script(recs, g, 1);
    ok(sc && strstr(sc, "$C0 << EOD\n1 200 100 300 3\n2 400 200 600 3\nEOD") &&
       strstr(sc, "$C1 << EOD\n1 220 110 330 3\n2 440 220 660 3\nEOD"),
       "each configuration: the median of its 3 runs at every second and the band lowest-highest");
    int lines = 0, bands = 0;
    for (const char *p = sc; p && (p = strstr(p, "with lines")); p++)
        lines++;
    for (const char *p = sc; p && (p = strstr(p, "with filledcurves")); p++)
        bands++;
    ok(lines == 2 && bands == 2 && strstr(sc, "plain/off: median of 3 runs"),
       "two lines and two bands for 6 runs of 2 configurations (%d lines, %d bands)", lines, bands);
    free(sc);
    free(g);
    json_decref(recs);
}

/* The Prometheus textfile of a core sweep: its points differ only in the
 * workload's cores, so the series carry a cores label each (one label set
 * twice and node_exporter refuses the whole file); a geometric mean's
 * estimate is its geomean. */
static void test_prom_cores(void)
{
    char dir[] = "/tmp/mtb-prom-XXXXXX";
    if (!mkdtemp(dir)) {
        ok(0, "a temporary directory");
        return;
    }
    json_t *sum = json_loads(
        "{\"configs\": ["
        "  {\"service\": \"memcached\", \"variant\": \"plain\", \"mode\": \"off\", \"platform\": \"host\", \"kernel\": \"host\","
        "   \"runs\": 3, \"workload\": {\"name\": \"w\", \"cores\": 2}, \"ops_per_sec\": {\"median\": 10, \"lo\": 9, \"hi\": 11}},"
        "  {\"service\": \"memcached\", \"variant\": \"plain\", \"mode\": \"off\", \"platform\": \"host\", \"kernel\": \"host\","
        "   \"runs\": 3, \"workload\": {\"name\": \"w\", \"cores\": 4}, \"ops_per_sec\": {\"median\": 20, \"lo\": 19, \"hi\": 21}}],"
        " \"geomeans\": [{\"variant\": \"tagged\", \"mode\": \"sync\", \"platform\": \"host\", \"kernel\": \"host\","
        "   \"slowdown\": {\"geomean\": 1.25, \"lo\": 1.1, \"hi\": 1.4}}]}",
        0, NULL);
    struct mtb_err e = { 0 };
    ok(sum && mtb_prom_set_dir(dir, &e) == 0 && mtb_prom_after("unit", sum) == 0, "the textfile written (%s)", e.msg);
    char *path = mtb_asprintf("%s/mtebench-unit.prom", dir), *text = mtb_read_file(path, NULL);
    ok(text && strstr(text, "mtebench_ops_per_second{service=\"memcached\"") &&
           strstr(text, ",cores=\"2\",stat=\"median\"} 10\n") && strstr(text, ",cores=\"4\",stat=\"median\"} 20\n"),
       "each point of a core sweep its own series, by its cores");
    ok(text && strstr(text, "mtebench_overhead_geomean_ratio{service=\"all\",variant=\"tagged\"") &&
           strstr(text, "metric=\"throughput\",stat=\"median\"} 1.25\n"),
       "a geometric mean's estimate: its geomean");
    free(text);
    unlink(path);
    free(path);
    rmdir(dir);
    mtb_prom_dir = NULL;
    json_decref(sum);
}

int main(void)
{
    test_prom_cores();
    test_hosts();
    test_fmt_int();
    test_summary();
    test_record();
    test_escaping();
    test_timeseries_plot();
    return done_testing();
}
