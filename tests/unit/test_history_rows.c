/* Unit tests of the history's series read into typed rows
 * (harness/core/history_rows.c): the series' identity, each point's night,
 * revisions, steal and emulated flag, and the values asked, NaN where a
 * point lacks one or holds no number. */
#include <math.h>
#include <string.h>

#include "core/history_rows.h"
#include "tap.h"

int main(void)
{
    json_t *h = json_loads(
        "[{\"series\": \"overhead:nightly/memcached/w#ab\", \"kind\": \"overhead\", \"host\": \"h1\","
        "  \"service\": \"memcached\", \"variant\": \"tagged\", \"mode\": \"async\", \"platform\": \"emu\","
        "  \"workload\": \"w\", \"points\": ["
        "   {\"night\": 3, \"night_started\": \"2026-11-03T01:00:00Z\", \"status\": \"ok\", \"slowdown\": 1.25,"
        "    \"p99_ratio\": null, \"steal\": 0.05, \"emulated\": 1, \"mtebench_version\": \"v1\","
        "    \"base_build\": \"bb\", \"record\": \"/r.json\"},"
        "   {\"night\": 4, \"status\": \"failed\", \"slowdown\": \"fast\", \"steal\": null, \"emulated\": true}]},"
        " {\"series\": \"s2\", \"kind\": \"run\"}]",
        0, NULL);
    ok(h != NULL, "the history parses");
    const char *fields[] = { "slowdown", "p99_ratio", "ops_per_sec" };
    struct mtb_hist_rows r;
    mtb_hist_rows_read(h, fields, 3, &r);
    ok(r.n == 2, "two series");
    const struct mtb_hist_series *s = &r.series[0];
    ok(!strcmp(s->series, "overhead:nightly/memcached/w#ab") && !strcmp(s->kind, "overhead") && !strcmp(s->host, "h1") &&
           !strcmp(s->service, "memcached") && !strcmp(s->variant, "tagged") && !strcmp(s->mode, "async") &&
           !strcmp(s->platform, "emu") && !strcmp(s->workload, "w") && s->npoints == 2,
       "the series' identity and its two points");
    const struct mtb_hist_point *p = &s->points[0], *q = &s->points[1];
    ok(p->night == 3 && !strcmp(p->night_started, "2026-11-03T01:00:00Z") && !strcmp(p->status, "ok") &&
           !strcmp(p->record, "/r.json") && !strcmp(p->mtebench_version, "v1") && !strcmp(p->base_build, "bb") &&
           !strcmp(p->build_key, ""),
       "a point's night, status, record and revisions (absent: \"\")");
    ok(p->v[0] == 1.25 && isnan(p->v[1]) && isnan(p->v[2]), "its values in the order asked: null and absent are NaN");
    ok(p->has_steal && p->steal == 0.05 && p->emulated, "its steal, and emulated from an integer above 0");
    ok(q->night == 4 && !strcmp(q->status, "failed") && isnan(q->v[0]) && !q->has_steal && q->emulated,
       "a string is no value, a null steal none; emulated from true");
    ok(r.series[1].npoints == 0 && !strcmp(r.series[1].host, ""), "a series without points or host");
    mtb_hist_rows_free(&r);
    ok(r.n == 0 && r.series == NULL, "freed");
    json_decref(h);
    return done_testing();
}
