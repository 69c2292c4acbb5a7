/* Unit tests of a capacity search's result read into rows
 * (harness/core/capacity_rows.c): the search's identity, the SLO's bounds,
 * each configuration's capacity at each bound and its probed points, the
 * overheads, how the search ended, and a result of an earlier version
 * (no confidence: 95%) with keys absent read as "", NaN, 0. */
#include <math.h>
#include <string.h>

#include "core/capacity_rows.h"
#include "tap.h"

static const char *result_text =
    "{\"service\": \"memcached\", \"workload\": \"default\", \"arrival\": \"poisson\", \"platform\": \"host\","
    " \"kernel\": \"host\", \"duration_s\": 2, \"warmup_s\": 1, \"confidence\": 0.9, \"emulated\": true,"
    " \"slo\": {\"text\": \"p99 <= 2 ms\", \"bounds\": [{\"text\": \"p99 <= 2 ms\", \"bound_us\": 2000}]},"
    " \"configs\": [{\"variant\": \"plain\", \"mode\": \"off\", \"closed_loop_ops\": 5000,"
    "   \"capacity\": [{\"status\": \"found\", \"capacity\": 2400, \"lo\": 2300, \"hi\": 2500, \"bound\": \"p99 <= 2 ms\","
    "                  \"interval\": \"bracket\"}],"
    "   \"points\": [{\"rate\": 100, \"achieved\": 99.5, \"runs\": 2, \"sweep\": true,"
    "                \"corrected\": {\"p50\": 50, \"p99\": 300, \"p99.9\": 900}, \"uncorrected\": {\"p50\": 40}}]},"
    "  {\"variant\": \"tagged\", \"mode\": \"sync\", \"capacity\": [{\"status\": \"below\", \"client_bound\": true,"
    "   \"rate_misses\": 50}]}],"
    " \"overheads\": [{\"variant\": \"tagged\", \"mode\": \"sync\", \"bound\": \"p99 <= 2 ms\","
    "   \"capacity\": {\"est\": 1.2, \"lo\": 1.1, \"hi\": 1.3}}],"
    " \"search\": {\"runs\": 12, \"failed\": 1, \"elapsed_s\": 60, \"stopped\": \"done\"}}";

int main(void)
{
    json_error_t je;
    json_t *res = json_loads(result_text, 0, &je);
    ok(res != NULL, "the result parses (%s)", res ? "" : je.text);
    struct mtb_cap_rows r;
    mtb_cap_rows_read(res, &r);
    ok(!strcmp(r.service, "memcached") && !strcmp(r.kernel, "host") && r.duration_s == 2 && r.warmup_s == 1 &&
           r.emulated && fabs(r.confidence_pct - 90) < 1e-9 && !strcmp(r.slo_text, "p99 <= 2 ms"),
       "the search's identity, its interval level in percent");
    ok(r.nbounds == 1 && r.bounds[0].bound_us == 2000 && !strcmp(r.bounds[0].text, "p99 <= 2 ms"), "the SLO's bounds");
    ok(r.nconfigs == 2 && r.configs[0].nat == 1 && r.configs[0].npoints == 1 && r.configs[1].npoints == 0,
       "each configuration's capacities and points");
    const struct mtb_cap_at *a = &r.configs[0].at[0];
    ok(!strcmp(a->status, "found") && a->capacity == 2400 && a->lo == 2300 && !strcmp(a->interval, "bracket") &&
           !a->client_bound && isnan(a->rate_meets),
       "a capacity found, what it lacks NaN");
    ok(!strcmp(r.configs[1].at[0].status, "below") && r.configs[1].at[0].client_bound &&
           r.configs[1].at[0].rate_misses == 50 && isnan(r.configs[1].closed_loop_ops),
       "a capacity below every rate, client-bound");
    const struct mtb_cap_row_point *p = &r.configs[0].points[0];
    ok(p->rate == 100 && p->achieved == 99.5 && p->runs == 2 && p->sweep && !p->client_bound &&
           p->corrected[2] == 900 && p->uncorrected[0] == 40 && isnan(p->uncorrected[1]) &&
           !strcmp(mtb_cap_pcts[2], "p99.9"),
       "a point: its percentiles in order p50, p99, p99.9");
    ok(r.noverheads == 1 && r.overheads[0].capacity.present && r.overheads[0].capacity.est == 1.2 &&
           !r.overheads[0].closed_loop.present,
       "an overhead: its capacity interval; no closed loop");
    ok(r.runs == 12 && r.failed == 1 && r.elapsed_s == 60 && !strcmp(r.stopped, "done"), "how the search ended");
    mtb_cap_rows_free(&r);

    json_t *entry = json_pack("{s:s,s:s,s:s,s:s,s:s}", "schema", "mtebench-capacity/1", "started", "2026-12-07T10:00:00Z",
                              "mtebench_version", "abc1234", "dir", "R/capacity-cap", "file", "R/capacity-cap/capacity.json");
    mtb_cap_rows_read(entry, &r);
    ok(!strcmp(r.schema, "mtebench-capacity/1") && !strcmp(r.started, "2026-12-07T10:00:00Z") &&
           !strcmp(r.mtebench_version, "abc1234") && !strcmp(r.dir, "R/capacity-cap") &&
           !strcmp(r.file, "R/capacity-cap/capacity.json"),
       "a plan's search as the nightly finds it: its schema, start, version, directory and file");
    mtb_cap_rows_free(&r);
    json_decref(entry);
    json_t *old = json_pack("{s:s}", "service", "nginx");
    mtb_cap_rows_read(old, &r);
    ok(r.confidence_pct == 95 && r.nconfigs == 0 && r.nbounds == 0 && !strcmp(r.stopped, "") && isnan(r.runs) &&
           !strcmp(r.dir, "") && !strcmp(r.started, ""),
       "a result without confidence: 95%%; nothing else");
    mtb_cap_rows_free(&r);
    json_decref(old);
    json_decref(res);
    return done_testing();
}
