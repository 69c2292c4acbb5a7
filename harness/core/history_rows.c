/* history_rows.c - the history's series read into rows (history_rows.h) */
#include "core/history_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>

struct fields {
    const char *const *name;
    size_t n;
};

static void point_read(json_t *p, struct mtb_hist_point *pt, const struct fields *f)
{
    pt->night = mtb_jint(p, "night");
    pt->night_started = mtb_jstr(p, "night_started");
    pt->report = mtb_jstr(p, "report");
    pt->results_dir = mtb_jstr(p, "results_dir");
    pt->started = mtb_jstr(p, "started");
    pt->status = mtb_jstr(p, "status");
    pt->record = mtb_jstr(p, "record");
    pt->mtebench_version = mtb_jstr(p, "mtebench_version");
    pt->build_key = mtb_jstr(p, "build_key");
    pt->kernel_release = mtb_jstr(p, "kernel_release");
    pt->kernel_build = mtb_jstr(p, "kernel_build");
    pt->base_build = mtb_jstr(p, "base_build");
    json_t *e = json_object_get(p, "emulated"), *st = json_object_get(p, "steal");
    pt->emulated = json_is_true(e) || json_integer_value(e) > 0;
    pt->has_steal = json_is_number(st);
    pt->steal = pt->has_steal ? json_number_value(st) : NAN;
    pt->v = mtb_calloc(f->n ? f->n : 1, sizeof *pt->v);
    for (size_t k = 0; k < f->n; k++)
        pt->v[k] = mtb_jnum(p, f->name[k]);
}

void mtb_hist_rows_read(json_t *history, const char *const *fields, size_t nfields, struct mtb_hist_rows *r)
{
    const struct fields f = { fields, nfields };
    size_t i, j;
    json_t *s, *p;
    r->n = json_array_size(history);
    r->series = mtb_calloc(r->n ? r->n : 1, sizeof *r->series);
    json_array_foreach(history, i, s) {
        struct mtb_hist_series *hs = &r->series[i];
        hs->series = mtb_jstr(s, "series");
        hs->kind = mtb_jstr(s, "kind");
        hs->host = mtb_jstr(s, "host");
        hs->service = mtb_jstr(s, "service");
        hs->variant = mtb_jstr(s, "variant");
        hs->mode = mtb_jstr(s, "mode");
        hs->platform = mtb_jstr(s, "platform");
        hs->workload = mtb_jstr(s, "workload");
        json_t *pts = json_object_get(s, "points");
        hs->npoints = json_array_size(pts);
        hs->points = mtb_calloc(hs->npoints ? hs->npoints : 1, sizeof *hs->points);
        json_array_foreach(pts, j, p) point_read(p, &hs->points[j], &f);
    }
}

void mtb_hist_rows_free(struct mtb_hist_rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        for (size_t j = 0; j < r->series[i].npoints; j++)
            free(r->series[i].points[j].v);
        free(r->series[i].points);
    }
    free(r->series);
    r->series = NULL;
    r->n = 0;
}
