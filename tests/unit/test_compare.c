/* Unit tests of the kernel comparison: read from the summary's kernel axis
 * (ratios paired by repetition, with intervals and the pair metrics; the
 * reference is the first kernel named; every repetition paired), its TCG
 * and KVM notes, its Markdown; what the price buys on each kernel (a
 * detection matrix beside each kernel's overhead). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/compare.h"
#include "lib/jsonx.h"
#include "tap.h"
#include "lib/util.h"

static json_t *krec(const char *kernel, int rep, double ops, int emulated)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:s}},s:{s:f,s:f,s:f},s:{s:s,s:b,s:s},s:{s:s,s:s}}",
                     "status", "ok", "config", "service", "memcached", "platform", "vm", "variant", "tagged", "mode",
                     "sync", "kernel", kernel, "rep", rep, "workload", "name", "default", "mix", "1:10",
                     "summary", "ops_per_sec", ops, "p50_us", 100.0, "p99_us", 200.0,
                     "platform", "name", "vm", "emulated", emulated, "accel", emulated ? "tcg" : "kvm",
                     "kernel", "name", kernel, "uname_r", "6.12.0-mtb-x");
}

static void test_compare(void)
{
    /* the comparison: ratios paired by repetition, the TCG note */
    json_t *recs = json_array();
    json_array_append_new(recs, krec("stock", 1, 1000, 1));
    json_array_append_new(recs, krec("tcma1", 1, 1100, 1));
    json_array_append_new(recs, krec("stock", 2, 2000, 1));
    json_array_append_new(recs, krec("tcma1", 2, 1800, 1));
    json_t *cmp = mtb_compare_build(recs, "stock,tcma1");
    json_t *rows = json_object_get(cmp, "rows");
    ok(json_array_size(rows) == 2, "one row per kernel");
    json_t *r1 = json_array_get(rows, 1);
    double med = json_real_value(json_object_get(json_object_get(r1, "vs_reference"), "median"));
    ok(fabs(med - 1.0) < 1e-9, "paired ratios 1.1 and 0.9: median 1.0 (got %g)", med);
    ok(strstr(json_string_value(json_object_get(cmp, "note")), "no difference between the kernels is expected") != NULL,
       "TCG note");
    json_t *v1 = json_object_get(r1, "vs_reference");
    ok(json_is_number(json_object_get(v1, "lo")) && json_is_number(json_object_get(v1, "conf")) &&
           json_is_number(json_object_get(v1, "mann_whitney_p")) && json_is_object(json_object_get(v1, "slowdown")),
       "the ratio is the summary's kernel axis: an interval, Mann-Whitney and the pair metrics");
    ok(json_is_object(json_object_get(r1, "p99_us")) && !strcmp(json_string_value(json_object_get(cmp, "schema")),
                                                                  "mtebench-kernel-compare/2"),
       "rows carry every run metric as a median with CI (schema 2)");
    char *md = mtb_compare_markdown(cmp);
    ok(strstr(md, "| tagged/sync | tcma1 |") && strstr(md, "emulated: not hardware timing"), "Markdown table, labelled");
    free(md);
    json_decref(cmp);
    json_decref(recs);
    recs = json_array();
    json_array_append_new(recs, krec("stock", 1, 1000, 0));
    json_array_append_new(recs, krec("tcma1", 1, 1250, 0));
    cmp = mtb_compare_build(recs, "stock,tcma1");
    ok(strstr(json_string_value(json_object_get(cmp, "note")), "KVM on MTE hardware") != NULL, "KVM note");
    json_decref(cmp);
    json_decref(recs);
    /* the reference is the first kernel named; every repetition is paired (not only those below 64) */
    recs = json_array();
    for (int rep = 1; rep <= 70; rep++) {
        json_array_append_new(recs, krec("stock", rep, 1000 + rep, 0));
        json_array_append_new(recs, krec("tcma1", rep, 1100 + rep, 0));
    }
    cmp = mtb_compare_build(recs, "tcma1,stock");
    json_t *rv = json_object_get(json_array_get(json_object_get(cmp, "rows"), 1), "vs_reference");
    ok(!strcmp(json_string_value(json_object_get(cmp, "reference")), "tcma1") &&
           !strcmp(json_string_value(json_object_get(rv, "reference")), "tcma1") && json_real_value(json_object_get(rv, "median")) < 1,
       "--kernels tcma1,stock: stock against tcma1 (ratio %g)", json_real_value(json_object_get(rv, "median")));
    ok(json_integer_value(json_object_get(rv, "pairs")) == 70, "70 repetitions: 70 pairs (%lld)",
       (long long)json_integer_value(json_object_get(rv, "pairs")));
    json_decref(cmp);
    json_decref(recs);
}

/* a run of variant/mode on kernel */
static json_t *vrec(const char *kernel, const char *variant, const char *mode, int rep, double ops)
{
    json_t *r = krec(kernel, rep, ops, 1);
    json_t *c = json_object_get(r, "config");
    json_object_set_new(c, "variant", json_string(variant));
    json_object_set_new(c, "mode", json_string(mode));
    return r;
}

static void test_protection(void)
{
    /* tagged/sync costs 1.25x on stock and 1.1x on tcma1 (against plain/off on each) */
    json_t *recs = json_array();
    for (int rep = 1; rep <= 3; rep++) {
        json_array_append_new(recs, vrec("stock", "tagged", "sync", rep, 800 + rep));
        json_array_append_new(recs, vrec("stock", "plain", "off", rep, 1000 + 1.25 * rep));
        json_array_append_new(recs, vrec("tcma1", "tagged", "sync", rep, 900 + rep));
        json_array_append_new(recs, vrec("tcma1", "plain", "off", rep, 990 + 1.1 * rep));
    }
    char dir[] = "/tmp/mtb-test-compare-XXXXXX";
    ok(mkdtemp(dir) != NULL, "temporary directory");
    char *mx = mtb_asprintf("%s/detect.json", dir);
    json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:[{s:s,s:i,s:i,s:f,s:f,s:f},{s:s,s:i,s:i,s:f,s:f,s:f}]}", "schema",
                          "mtebench-detect-matrix/1", "service", "memcached", "platform", "emu", "makeup",
                          "3 bugs: 2 linear overflow, 1 stack", "headline", "config", "tagged/sync", "bugs_caught", 2,
                          "bugs_tested", 3, "fraction", 2.0 / 3, "wilson95_lo", 0.21, "wilson95_hi", 0.94, "config",
                          "plain/off", "bugs_caught", 0, "bugs_tested", 3, "fraction", 0.0, "wilson95_lo", 0.0,
                          "wilson95_hi", 0.56);
    json_dump_file(m, mx, 0);
    json_decref(m);
    json_t *cmp = mtb_compare_build(recs, "stock,tcma1");
    char err[512] = "";
    char *paths[] = { dir };
    ok(mtb_compare_add_protection(cmp, recs, paths, 1, err, sizeof err) == 0, "--detect DIR: the matrix is read (%s)", err);
    json_t *rows = json_object_get(cmp, "protection"), *r;
    size_t i, priced = 0, base = 0;
    double cost[2] = { 0, 0 };
    json_array_foreach(rows, i, r)
    {
        const char *k = mtb_jstr(r, "kernel");
        if (json_is_true(json_object_get(r, "baseline")))
            base++;
        else if (!strcmp(mtb_jstr(r, "variant"), "tagged") && json_integer_value(json_object_get(r, "bugs_caught")) == 2) {
            priced++;
            cost[!strcmp(k, "tcma1")] = mtb_jnum(json_object_get(r, "slowdown"), "median");
        }
    }
    ok(priced == 2 && base == 1, "one priced row per kernel and the plain/off baseline (%zu, %zu)", priced, base);
    ok(fabs(cost[0] - 1.25) < 0.01 && fabs(cost[1] - 1.1) < 0.01,
       "each kernel's own overhead beside the catch rate: stock %.3f, tcma1 %.3f", cost[0], cost[1]);
    ok(json_object_get(cmp, "protection_note") == NULL, "no note when the rows are priced");
    char *md = mtb_compare_markdown(cmp);
    ok(strstr(md, "## What the price buys") && strstr(md, "| memcached tagged/sync, kernel tcma1 | 1.100x") &&
           strstr(md, "| 2 of 3 | 0.67 [0.21, 0.94] | not judged | emu (exact"),
       "Markdown: the section, the kernel's cost, the catch rate with its interval, not judged for explanations (a matrix without them), detection exact");
    free(md);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mtb_compare_print(cmp, f);
    fclose(f);
    ok(strstr(buf, "memcached tagged/sync, kernel stock what the price buys: catches 2 of 3 bugs") != NULL,
       "the table is followed by the price lines");
    free(buf);
    json_decref(cmp);

    /* without plain/off on the kernels nothing is priced, and the note says how */
    json_t *tagged = json_array();
    json_array_foreach(recs, i, r) if (!strcmp(mtb_jstr(json_object_get(r, "config"), "variant"), "tagged"))
        json_array_append(tagged, r);
    cmp = mtb_compare_build(tagged, "stock,tcma1");
    ok(mtb_compare_add_protection(cmp, tagged, paths, 1, err, sizeof err) == 0 &&
           strstr(mtb_jstr(cmp, "protection_note"), "--baseline") != NULL,
       "no plain/off runs: the note names --baseline");
    json_decref(cmp);
    json_decref(tagged);

    /* a directory without a matrix is named */
    char *bad[] = { (char *)"/nonexistent-mtb" };
    cmp = mtb_compare_build(recs, "stock,tcma1");
    ok(mtb_compare_add_protection(cmp, recs, bad, 1, err, sizeof err) == -1 && strstr(err, "no detection matrix"),
       "a path without a matrix: refused, named (%s)", err);
    json_decref(cmp);
    unlink(mx);
    rmdir(dir);
    free(mx);
    json_decref(recs);
}

int main(void)
{
    test_compare();
    test_protection();
    return done_testing();
}
