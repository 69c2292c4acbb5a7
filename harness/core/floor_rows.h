/* floor_rows.h - the machine's latency floor as the quiet check keeps it
 * (a record's environment.quiet.checks.floor, doctor's `floor`: what
 * run/floor.c's mtb_floor_check writes) read once into a struct: measured
 * (the server, each rate's percentiles, the best of each percentile over
 * the rates) or why not (skipped, an error). doctor, the quiet check and
 * mtb_floor_describe read these fields, never the floor by key.
 *
 * A string the floor lacks reads as NULL; a percentile it lacks, or holds
 * as null (no request measured), as NaN. Strings are the floor's own,
 * valid while it is.
 *
 *   struct mtb_floor_view v;
 *   mtb_floor_view_read(floor, &v);
 *   ... v.best[MTB_FLOOR_P99].us, v.pts[i].pct[k] ...
 *   mtb_floor_view_free(&v);
 */
#ifndef MTB_FLOOR_ROWS_H
#define MTB_FLOOR_ROWS_H
#include <jansson.h>
#include <stddef.h>

/* the percentiles a floor keeps, in the order of its points' pct[] */
#define MTB_FLOOR_PCTS(X) X(P50, "p50") X(P90, "p90") X(P99, "p99") X(P999, "p99.9")
enum mtb_floor_pct {
#define X(id, key) MTB_FLOOR_##id,
    MTB_FLOOR_PCTS(X)
#undef X
    MTB_FLOOR_NPCTS
};
extern const char *const mtb_floor_pct_names[MTB_FLOOR_NPCTS];

/* one rate's run */
struct mtb_floor_row {
    double rate, seconds;        /* offered, requests/s; its run's length */
    long long count;             /* requests measured */
    double pct[MTB_FLOOR_NPCTS]; /* us, corrected; NaN: none */
};

/* the best (lowest) value of a percentile over the rates, and where */
struct mtb_floor_best {
    int present;
    double us, rate;
};

struct mtb_floor_view {
    const char *skipped, *error; /* why it was not measured, or NULL */
    const char *server;          /* what answered, or NULL */
    struct mtb_floor_row *pts;
    size_t npts;
    struct mtb_floor_best best[MTB_FLOOR_NPCTS];
};

void mtb_floor_view_read(const json_t *floor, struct mtb_floor_view *v);
void mtb_floor_view_free(struct mtb_floor_view *v);
#endif
