/* Unit tests of the kernel comparison: read from the summary's kernel axis
 * (ratios paired by repetition, with intervals and the pair metrics; the
 * reference is the first kernel named; every repetition paired), its TCG
 * and KVM notes, its Markdown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "tap.h"
#include "util.h"

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

int main(void)
{
    test_compare();
    return done_testing();
}
