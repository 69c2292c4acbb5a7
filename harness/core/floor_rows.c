/* floor_rows.c - a latency floor read into its struct (floor_rows.h) */
#include "core/floor_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

const char *const mtb_floor_pct_names[MTB_FLOOR_NPCTS] = {
#define X(id, key) key,
    MTB_FLOOR_PCTS(X)
#undef X
};

static void row_read(json_t *p, struct mtb_floor_row *r)
{
    r->rate = mtb_jnum(p, "rate");
    r->seconds = mtb_jnum(p, "seconds");
    r->count = mtb_jint(p, "count");
    for (int k = 0; k < MTB_FLOOR_NPCTS; k++)
        r->pct[k] = mtb_jnum(p, mtb_floor_pct_names[k]);
}

void mtb_floor_view_read(const json_t *floor, struct mtb_floor_view *v)
{
    json_t *f = (json_t *)floor;
    memset(v, 0, sizeof *v);
    v->skipped = json_string_value(json_object_get(f, "skipped"));
    v->error = json_string_value(json_object_get(f, "error"));
    v->server = json_string_value(json_object_get(f, "server"));
    MTB_READ_ROWS(json_object_get(f, "points"), v->pts, v->npts, row_read);
    json_t *best = json_object_get(f, "best");
    for (int k = 0; k < MTB_FLOOR_NPCTS; k++) {
        json_t *b = json_object_get(best, mtb_floor_pct_names[k]);
        v->best[k].present = b != NULL;
        v->best[k].us = mtb_jnum(b, "us");
        v->best[k].rate = mtb_jnum(b, "rate");
    }
}

void mtb_floor_view_free(struct mtb_floor_view *v)
{
    free(v->pts);
    memset(v, 0, sizeof *v);
}
