/* Unit tests of the nightly's analysis read into rows
 * (harness/core/nightly_rows.c): nights (quiet, busy, unknown), series
 * with their change points and revisions, the open and the new
 * regressions sharing the series' change objects, the settings, and keys
 * absent read as "", NaN, 0. */
#include <math.h>
#include <string.h>

#include "core/nightly_rows.h"
#include "tap.h"

static const char *analysis_text =
    "{\"nights\": [{\"x\": 1, \"runs\": 4, \"started\": \"T1\", \"quiet\": true, \"steal\": 0.02, \"hosts\": [\"h1\"]},"
    "              {\"x\": 2, \"runs\": 4, \"quiet\": false, \"busy_why\": \"load\", \"busy\": \"b\"},"
    "              {\"x\": 3, \"runs\": 0, \"quiet\": null}],"
    " \"busy_nights\": [2], \"busy_excluded\": true,"
    " \"series\": [{\"id\": \"s1\", \"key\": \"k1\", \"host\": \"h1\", \"label\": \"L\", \"metric\": \"throughput\","
    "              \"unit\": \"ops/s\", \"better\": \"higher\", \"emulated\": true, \"points\": 3, \"x\": [1, 2, 3],"
    "              \"y\": [10, 11, 5],"
    "              \"changes\": [{\"kind\": \"regression\", \"series\": \"k1\", \"metric\": \"throughput\", \"x\": 3,"
    "                            \"night\": 7, \"open\": true, \"change\": -0.5, \"n_before\": 2, \"p_mwu\": 0.01,"
    "                            \"revisions_before\": {\"build_key\": \"aaaa\", \"kernel_release\": \"6.1\"},"
    "                            \"revisions_after\": {\"build_key\": \"bbbb\", \"kernel_release\": \"6.1\"},"
    "                            \"bisect_from\": {\"good\": \"g\", \"bad\": \"b\", \"service\": \"memcached\"}}]},"
    "             {\"id\": \"s2\", \"key\": \"k2\", \"emulated\": false, \"changes\": []}],"
    " \"settings\": {\"nights\": 3, \"window\": 5, \"threshold\": 0.01, \"min_change\": 0.05, \"generated\": \"G\","
    "              \"version\": \"v\", \"history\": \"hist.db\"}}";

int main(void)
{
    json_error_t je;
    json_t *a = json_loads(analysis_text, 0, &je);
    ok(a != NULL, "the analysis parses (%s)", a ? "" : je.text);
    /* as cmd/nightly.c does: the open and new lists hold the series' own change objects */
    json_t *ch = json_array_get(json_object_get(json_array_get(json_object_get(a, "series"), 0), "changes"), 0);
    json_object_set_new(a, "open", json_pack("[O]", ch));
    json_object_set_new(a, "new", json_pack("[O]", ch));

    struct mtb_nightly_rows r;
    mtb_nightly_rows_read(a, &r);
    ok(r.nnights == 3 && r.nseries == 2 && r.nopen == 1 && r.nfresh == 1 && r.nbusy == 1 && r.busy_excluded,
       "every list read, with its length");
    ok(r.nights[0].quiet == 1 && r.nights[1].quiet == 0 && r.nights[2].quiet == -1, "quiet, busy, unknown");
    ok(r.nights[0].has_steal && r.nights[0].steal == 0.02 && !r.nights[1].has_steal && json_array_size(r.nights[0].hosts) == 1,
       "a night's steal where measured, its hosts");
    ok(!strcmp(r.nights[1].busy_why, "load") && !strcmp(r.nights[0].busy_why, "") && r.nights[1].runs == 4,
       "a busy night's reason; none is \"\"");
    ok(r.emulated && r.series[0].emulated && !r.series[1].emulated, "emulated when a series is");
    const struct mtb_nightly_series *s = &r.series[0];
    ok(!strcmp(s->id, "s1") && s->points == 3 && json_array_size(s->x) == 3 && s->nchanges == 1 && r.series[1].nchanges == 0,
       "a series and its points");
    const struct mtb_nightly_change *c = &s->changes[0];
    ok(!strcmp(c->kind, "regression") && c->open && c->x == 3 && c->night == 7 && c->change == -0.5 && c->n_before == 2 &&
           isnan(c->p_split) && !strcmp(c->bisect, ""),
       "a change typed: what it lacks is NaN or \"\"");
    ok(!strcmp(c->rev_before[MTB_REV_build_key], "aaaa") && !strcmp(c->rev_after[MTB_REV_build_key], "bbbb") &&
           !strcmp(c->rev_before[MTB_REV_mtebench_version], "") &&
           !strcmp(mtb_nightly_rev_names[MTB_REV_base_build], "baseline build"),
       "its revisions by key, with their names");
    ok(c->bisect_from.present && !strcmp(c->bisect_from.good, "g") && !strcmp(c->bisect_from.workload, ""),
       "what its bisection would search");
    ok(r.open[0].j == c->j && r.fresh[0].j == c->j, "the open and the new regression: the same change object");
    ok(r.nights_total == 3 && r.window == 5 && r.threshold == 0.01 && !strcmp(r.history, "hist.db"), "the settings");
    mtb_nightly_rows_free(&r);

    json_t *empty = json_object();
    mtb_nightly_rows_read(empty, &r);
    ok(r.nnights == 0 && r.nseries == 0 && r.nopen == 0 && !r.emulated && isnan(r.threshold) && !strcmp(r.generated, ""),
       "an empty analysis: no rows, settings absent");
    mtb_nightly_rows_free(&r);
    json_decref(empty);
    json_decref(a);
    return done_testing();
}
