/* Unit tests of the summary: pairing, the slowdown and p99 ratio, the
 * Mann-Whitney test, the emulated label in its Markdown. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "report/summary_text.h"
#include "tap.h"

static json_t *fake_record(const char *variant, const char *mode, int rep, double ops, double p99)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:i}},s:{s:f,s:f,s:f,s:f,s:b},s:{s:b}}", "status", "ok",
                     "config", "service", "memcached", "variant", variant, "mode", mode, "platform", "emu",
                     "kernel", "host", "rep", rep, "workload", "mix", "1:10", "conns", 16, "summary",
                     "ops_per_sec", ops, "p50_us", p99 / 3, "p99_us", p99, "p999_us", p99 * 2, "client_bound", 0,
                     "platform", "emulated", 1);
}

static void test_summary(void)
{
    json_t *recs = json_array();
    /* tagged is exactly 1.25x slower in every pair; noise shifts both */
    double base[] = { 100000, 104000, 98000, 101000, 99000, 102000 };
    for (int i = 0; i < 6; i++) {
        json_array_append_new(recs, fake_record("plain", "off", i + 1, base[i], 100));
        json_array_append_new(recs, fake_record("tagged", "async", i + 1, base[i] / 1.25, 150));
    }
    json_array_append_new(recs, json_pack("{s:s}", "status", "error")); /* ignored */
    json_t *s = mtb_summary_build(recs);
    json_t *o = json_array_get(json_object_get(s, "overheads"), 0);
    json_t *sl = json_object_get(o, "slowdown");
    ok(json_array_size(json_object_get(s, "configs")) == 2, "two configurations");
    ok(json_integer_value(json_object_get(o, "pairs")) == 6, "six interleaved pairs");
    ok(fabs(json_real_value(json_object_get(sl, "median")) - 1.25) < 1e-9, "slowdown is the pairwise 1.25x");
    ok(fabs(json_real_value(json_object_get(json_object_get(o, "p99_ratio"), "median")) - 1.5) < 1e-9, "p99 ratio 1.5");
    ok(json_is_true(json_object_get(s, "emulated")), "summary says emulated");
    json_t *p = json_object_get(o, "mann_whitney_p");
    ok(json_is_number(p) && json_number_value(p) < 0.01, "Mann-Whitney separates the two (p=%g)", json_number_value(p));
    char *md = mtb_summary_markdown(s);
    ok(md && strstr(md, "emulated") && strstr(md, "1.250x"), "markdown carries the label and the overhead");
    free(md);
    json_decref(s);
    json_decref(recs);
}

/* REPS=auto's records carry the looks' level: the interval at that level is
 * the 95% the looks were set for together, not the union bound's less */
static void test_sequential(void)
{
    json_t *recs = json_array();
    const double z[] = { -1.2, 0.3, 0.8, -0.4, 1.5, -0.9, 0.1, -0.2, 0.6, -1.6, 1.0, 0.4, -0.7, 0.2, -0.1, 1.2,
                         -0.5, 0.7, -1.0, 0.0, 0.5 };
    for (int i = 0; i < 21; i++) {
        json_t *a = fake_record("plain", "off", i + 1, 50000, 100), *b =
            fake_record("tagged", "async", i + 1, 50000 / (2.2 * exp(0.08 * z[i])), 150);
        json_object_set_new(a, "sequential", json_pack("{s:i,s:f}", "looks", 7, "look_conf", 0.98745));
        json_object_set(b, "sequential", json_object_get(a, "sequential"));
        json_array_append_new(recs, a);
        json_array_append_new(recs, b);
    }
    json_t *s = mtb_summary_build(recs);
    json_t *sl = json_object_get(json_array_get(json_object_get(s, "overheads"), 0), "slowdown");
    ok(fabs(json_real_value(json_object_get(sl, "conf")) - 0.95) < 1e-12 &&
       strstr(json_string_value(json_object_get(sl, "method")), "t-interval"),
       "21 pairs at the looks' level 98.745%%: the t-interval, 95%% together (%s, conf %.3f)",
       json_string_value(json_object_get(sl, "method")), json_real_value(json_object_get(sl, "conf")));
    json_decref(s);
    /* three pairs: order statistics cannot reach the looks' level; the union bound says what is left */
    while (json_array_size(recs) > 6)
        json_array_remove(recs, json_array_size(recs) - 1);
    s = mtb_summary_build(recs);
    sl = json_object_get(json_array_get(json_object_get(s, "overheads"), 0), "slowdown");
    ok(json_real_value(json_object_get(sl, "conf")) < 0.95, "3 pairs: short of the looks' level, conf %.3f < 95%%",
       json_real_value(json_object_get(sl, "conf")));
    json_decref(s);
    json_decref(recs);
}

int main(void)
{
    test_summary();
    test_sequential();
    return done_testing();
}
