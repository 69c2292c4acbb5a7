/* Unit tests of the summary's allocators section
 * (harness/analysis/summary_alloc.c), on records of glibc's malloc and of
 * Scudo: what Scudo costs alone (glibc's plain/off against Scudo's), tagging
 * under it against its own plain/off beside tagging under glibc, and the
 * ratio of the two per repetition. Known answers. TAP. */
#include <math.h>
#include <string.h>

#include "analysis/summary.h"
#include "core/summary_rows.h"
#include "tap.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* an ok record of memcached on emu */
static json_t *rec(const char *variant, const char *mode, const char *allocator, int rep, double ops)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:i}},s:{s:b},s:{s:f}}", "schema",
                     "mtebench-run/1", "status", "ok", "config", "service", "memcached", "variant", variant, "mode", mode,
                     "allocator", allocator, "platform", "emu", "kernel", "host", "rep", rep, "workload", "mix", "1:10",
                     "conns", 16, "platform", "emulated", 1, "summary", "ops_per_sec", ops);
}

int main(void)
{
    /* per repetition: glibc plain 1000, tagged 800; Scudo plain 800, tagged 400 (rep 3: 500) */
    json_t *recs = json_array();
    for (int r = 1; r <= 3; r++) {
        json_array_append_new(recs, rec("plain", "off", "glibc", r, 1000));
        json_array_append_new(recs, rec("tagged", "sync", "glibc", r, 800));
        json_array_append_new(recs, rec("plain", "off", "scudo", r, 800));
        json_array_append_new(recs, rec("tagged", "sync", "scudo", r, r == 3 ? 500 : 400));
    }
    json_t *sum = mtb_summary_build(recs);
    struct mtb_sum_rows rows;
    mtb_sum_rows_read(sum, &rows);
    ok(rows.nallocators == 1 && !strcmp(rows.allocators[0].allocator, "scudo") &&
           !strcmp(rows.allocators[0].service, "memcached"),
       "one row: Scudo's (glibc's is the reference, no row of its own)");
    const struct mtb_sum_allocator *a = &rows.allocators[0];
    ok(a->alone_pairs == 3 && near(a->alone.median, 1000.0 / 800, 1e-12),
       "Scudo alone: glibc's plain/off over Scudo's, 1.25, over 3 pairs (%g)", a->alone.median);
    ok(a->ntagging == 1 && !strcmp(a->tagging[0].variant, "tagged") && !strcmp(a->tagging[0].mode, "sync"),
       "tagging under it: tagged/sync");
    const struct mtb_sum_tagging *t = &a->tagging[0];
    ok(near(t->slowdown.median, 2.0, 1e-12) && near(t->slowdown_glibc.median, 1.25, 1e-12),
       "tagged/sync: 2x against Scudo's plain/off (median of 2, 2, 1.6), 1.25x under glibc");
    ok(t->pairs == 3 && near(t->difference.median, 2.0 / 1.25, 1e-12) && t->difference.lo <= 1.6 / 1.25 + 1e-12,
       "their ratio per repetition: median 1.6 (%g), the third repetition's 1.28 in its interval", t->difference.median);
    mtb_sum_rows_free(&rows);
    json_decref(sum);

    /* glibc alone: no allocators section */
    json_t *glibc = json_array();
    for (size_t i = 0; i < json_array_size(recs); i++)
        if (!strcmp(json_string_value(json_object_get(json_object_get(json_array_get(recs, i), "config"), "allocator")),
                    "glibc"))
            json_array_append(glibc, json_array_get(recs, i));
    sum = mtb_summary_build(glibc);
    mtb_sum_rows_read(sum, &rows);
    ok(rows.nallocators == 0 && rows.noverheads == 1, "glibc's records alone: no allocator row, the overhead as ever");
    mtb_sum_rows_free(&rows);
    json_decref(sum);
    json_decref(glibc);
    json_decref(recs);
    return done_testing();
}
