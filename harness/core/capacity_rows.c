/* capacity_rows.c - see capacity_rows.h */
#include "lib/jsonx.h"
#include "core/capacity_rows.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const mtb_cap_pcts[MTB_CAP_NPCT] = { "p50", "p99", "p99.9" };

static void at_read(json_t *e, struct mtb_cap_at *r)
{
    r->status = mtb_jstr(e, "status");
    r->interval = mtb_jstr(e, "interval");
    r->percentile = mtb_jstr(e, "percentile");
    r->bound = mtb_jstr(e, "bound");
    r->capacity = mtb_jnum(e, "capacity");
    r->lo = mtb_jnum(e, "lo");
    r->hi = mtb_jnum(e, "hi");
    r->lowest_rate = mtb_jnum(e, "lowest_rate");
    r->at_lowest_us = mtb_jnum(e, "at_lowest_us");
    r->rate_meets = mtb_jnum(e, "rate_meets");
    r->rate_misses = mtb_jnum(e, "rate_misses");
    r->client_bound = json_is_true(json_object_get(e, "client_bound"));
}

static void point_read(json_t *p, struct mtb_cap_row_point *r)
{
    r->rate = mtb_jnum(p, "rate");
    r->achieved = mtb_jnum(p, "achieved");
    r->runs = mtb_jnum(p, "runs");
    r->client_bound = json_is_true(json_object_get(p, "client_bound"));
    r->sweep = json_is_true(json_object_get(p, "sweep"));
    json_t *c = json_object_get(p, "corrected"), *u = json_object_get(p, "uncorrected");
    for (size_t q = 0; q < MTB_CAP_NPCT; q++) {
        r->corrected[q] = mtb_jnum(c, mtb_cap_pcts[q]);
        r->uncorrected[q] = mtb_jnum(u, mtb_cap_pcts[q]);
    }
}

static void config_read(json_t *c, struct mtb_cap_config *r)
{
    r->variant = mtb_jstr(c, "variant");
    r->mode = mtb_jstr(c, "mode");
    r->baseline = json_is_true(json_object_get(c, "baseline"));
    r->pilot_record = json_string_value(json_array_get(json_object_get(c, "pilot_records"), 0));
    r->closed_loop_ops = mtb_jnum(c, "closed_loop_ops");
    MTB_READ_ROWS(json_object_get(c, "capacity"), r->at, r->nat, at_read);
    MTB_READ_ROWS(json_object_get(c, "points"), r->points, r->npoints, point_read);
}

static void ci_read(json_t *o, struct mtb_cap_ci *r)
{
    r->present = json_is_object(o);
    r->est = mtb_jnum(o, "est");
    r->lo = mtb_jnum(o, "lo");
    r->hi = mtb_jnum(o, "hi");
}

static void overhead_read(json_t *o, struct mtb_cap_overhead *r)
{
    r->variant = mtb_jstr(o, "variant");
    r->mode = mtb_jstr(o, "mode");
    r->bound = mtb_jstr(o, "bound");
    ci_read(json_object_get(o, "capacity"), &r->capacity);
    ci_read(json_object_get(o, "closed_loop"), &r->closed_loop);
}

static void bound_read(json_t *b, struct mtb_cap_bound *r)
{
    r->text = mtb_jstr(b, "text");
    r->bound_us = mtb_jnum(b, "bound_us");
}

void mtb_cap_rows_read(json_t *res, struct mtb_cap_rows *r)
{
    memset(r, 0, sizeof *r);
    r->service = mtb_jstr(res, "service");
    r->workload = mtb_jstr(res, "workload");
    r->arrival = mtb_jstr(res, "arrival");
    r->platform = mtb_jstr(res, "platform");
    r->kernel = mtb_jstr(res, "kernel");
    r->definition = mtb_jstr(res, "definition");
    r->duration_s = mtb_jnum(res, "duration_s");
    r->warmup_s = mtb_jnum(res, "warmup_s");
    json_t *conf = json_object_get(res, "confidence");
    r->confidence_pct = json_is_number(conf) ? 100 * json_number_value(conf) : 95;
    r->confidence = json_is_number(conf) ? json_number_value(conf) : NAN;
    r->plan = mtb_jstr(res, "plan");
    r->schema = mtb_jstr(res, "schema");
    r->started = mtb_jstr(res, "started");
    r->mtebench_version = mtb_jstr(res, "mtebench_version");
    r->dir = mtb_jstr(res, "dir");
    r->file = mtb_jstr(res, "file");
    r->emulated = json_is_true(json_object_get(res, "emulated"));
    json_t *slo = json_object_get(res, "slo");
    r->slo_text = mtb_jstr(slo, "text");
    MTB_READ_ROWS(json_object_get(slo, "bounds"), r->bounds, r->nbounds, bound_read);
    MTB_READ_ROWS(json_object_get(res, "configs"), r->configs, r->nconfigs, config_read);
    MTB_READ_ROWS(json_object_get(res, "overheads"), r->overheads, r->noverheads, overhead_read);
    json_t *s = json_object_get(res, "search");
    r->runs = mtb_jnum(s, "runs");
    r->failed = mtb_jnum(s, "failed");
    r->elapsed_s = mtb_jnum(s, "elapsed_s");
    r->stopped = mtb_jstr(s, "stopped");
}

void mtb_cap_rows_free(struct mtb_cap_rows *r)
{
    for (size_t i = 0; i < r->nconfigs; i++) {
        free(r->configs[i].at);
        free(r->configs[i].points);
    }
    free(r->bounds);
    free(r->configs);
    free(r->overheads);
    memset(r, 0, sizeof *r);
}
