/* Unit tests of the latency floor read into its struct
 * (harness/core/floor_rows.c): a measured floor (the server, each rate's
 * percentiles, a null one NaN, the best of each), one skipped, one that
 * failed, and none; and mtb_floor_describe's words of each (run/floor.c). */
#include <math.h>
#include <string.h>

#include "core/floor_rows.h"
#include "run/floor.h"
#include "tap.h"

int main(void)
{
    json_t *f = json_loads(
        "{\"server\": \"memcached 1.6.18\", \"points\": ["
        "  {\"rate\": 50, \"seconds\": 3, \"count\": 152, \"p50\": 183, \"p90\": 378, \"p99\": 1085, \"p99.9\": null},"
        "  {\"rate\": 5000, \"seconds\": 1, \"count\": 5001, \"p50\": 7, \"p90\": 15, \"p99\": 176, \"p99.9\": 1880}],"
        " \"best\": {\"p50\": {\"us\": 7, \"rate\": 5000}, \"p99\": {\"us\": 176, \"rate\": 5000}}}",
        0, NULL);
    ok(f != NULL, "the floor parses");
    struct mtb_floor_view v;
    mtb_floor_view_read(f, &v);
    ok(!strcmp(v.server, "memcached 1.6.18") && !v.skipped && !v.error && v.npts == 2, "measured: the server, two rates");
    ok(v.pts[0].rate == 50 && v.pts[0].seconds == 3 && v.pts[0].count == 152 && v.pts[0].pct[MTB_FLOOR_P99] == 1085 &&
           isnan(v.pts[0].pct[MTB_FLOOR_P999]) && v.pts[1].pct[MTB_FLOOR_P50] == 7,
       "each rate's percentiles, a null one NaN");
    ok(v.best[MTB_FLOOR_P99].present && v.best[MTB_FLOOR_P99].us == 176 && v.best[MTB_FLOOR_P99].rate == 5000 &&
           !v.best[MTB_FLOOR_P90].present,
       "the best of each percentile, and where; one not kept is not present");
    char buf[256];
    ok(mtb_floor_describe(&v, buf, sizeof buf) == 1 &&
           !strcmp(buf, "p99 176 us at best (at 5000/s), loopback to memcached 1.6.18"),
       "described: %s", buf);
    mtb_floor_view_free(&v);
    json_decref(f);
    f = json_pack("{s:s}", "skipped", "MTEBENCH_FLOOR=0");
    mtb_floor_view_read(f, &v);
    ok(!strcmp(v.skipped, "MTEBENCH_FLOOR=0") && v.npts == 0 && !v.server && mtb_floor_describe(&v, buf, sizeof buf) == 0 &&
           !strcmp(buf, "MTEBENCH_FLOOR=0"),
       "skipped: why, not described as measured");
    mtb_floor_view_free(&v);
    json_decref(f);
    f = json_pack("{s:s}", "error", "floor: no /usr/bin/memcached");
    mtb_floor_view_read(f, &v);
    ok(mtb_floor_describe(&v, buf, sizeof buf) == 0 && !strcmp(buf, "floor: no /usr/bin/memcached"), "failed: its error");
    mtb_floor_view_free(&v);
    json_decref(f);
    mtb_floor_view_read(NULL, &v);
    ok(v.npts == 0 && mtb_floor_describe(&v, buf, sizeof buf) == 0 && !strcmp(buf, "?"), "none: \"?\"");
    mtb_floor_view_free(&v);
    return done_testing();
}
