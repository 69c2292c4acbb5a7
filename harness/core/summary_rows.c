/* summary_rows.c - see summary_rows.h */
#include "lib/jsonx.h"
#include "core/summary_rows.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONF 0.95

const char *const mtb_sum_env_labels[MTB_NENV] = {
#define X(key, label) label,
    MTB_SUM_ENV(X)
#undef X
};

double mtb_ci_estimate(const struct mtb_ci *ci) { return isnan(ci->median) ? ci->geomean : ci->median; }

int mtb_ci_low_conf(const struct mtb_ci *ci) { return ci->present && ci->conf < CONF - 1e-9; }

void mtb_ci_read(json_t *obj, struct mtb_ci *ci)
{
    ci->present = json_is_object(obj);
    ci->median = mtb_jnum(obj, "median");
    ci->geomean = mtb_jnum(obj, "geomean");
    ci->lo = mtb_jnum(obj, "lo");
    ci->hi = mtb_jnum(obj, "hi");
    ci->conf = mtb_jnum(obj, "conf");
    ci->rel_halfwidth = mtb_jnum(obj, "rel_halfwidth");
    ci->method = mtb_jstr(obj, "method");
    ci->j = obj;
}

static int flag(json_t *o, const char *k) { return json_is_true(json_object_get(o, k)); }


static void protection_read(json_t *o, struct mtb_sum_protection *r)
{
    json_t *ex = json_object_get(o, "explained");
    r->service = mtb_jstr(o, "service");
    r->variant = mtb_jstr(o, "variant");
    r->mode = mtb_jstr(o, "mode");
    r->kernel = mtb_jstr(o, "kernel");
    r->cost_platform = mtb_jstr(o, "cost_platform");
    r->detect_platform = mtb_jstr(o, "detect_platform");
    r->baseline = flag(o, "baseline");
    mtb_ci_read(json_object_get(o, "slowdown"), &r->slowdown);
    r->bugs_caught = mtb_jint(o, "bugs_caught");
    r->bugs_tested = mtb_jint(o, "bugs_tested");
    r->fraction = mtb_jnum(o, "fraction");
    r->lo = mtb_jnum(o, "wilson95_lo");
    r->hi = mtb_jnum(o, "wilson95_hi");
    r->has_explained = ex != NULL;
    r->explained = mtb_jint(ex, "bugs");
    r->ex_fraction = mtb_jnum(ex, "fraction");
    r->ex_lo = mtb_jnum(ex, "wilson95_lo");
    r->ex_hi = mtb_jnum(ex, "wilson95_hi");
}

struct mtb_sum_protection *mtb_sum_protection_read(json_t *rows, size_t *n)
{
    struct mtb_sum_protection *v;
    MTB_READ_ROWS(rows, v, *n, protection_read);
    return v;
}

void mtb_sum_workload_read(json_t *w, struct mtb_sum_workload *r)
{
    r->j = w;
    r->name = mtb_jstr(w, "name");
    r->mix = mtb_jstr(w, "mix");
    r->value_size = mtb_jstr(w, "value_size");
    r->conns = mtb_jnum(w, "conns");
    r->pipeline = mtb_jnum(w, "pipeline");
    r->keys = mtb_jnum(w, "keys");
    r->duration_s = mtb_jnum(w, "duration_s");
    json_t *c = json_object_get(w, "cores");
    r->has_cores = json_is_integer(c);
    r->cores = json_integer_value(c);
    r->service_cpus = mtb_jstr(w, "service_cpus");
    r->core_type = mtb_jstr(w, "core_type");
}

/* "host": a string, or a key present with no string (both say " on ") */
static const char *host_of(json_t *o, int *has)
{
    *has = json_object_get(o, "host") != NULL;
    return mtb_jstr(o, "host");
}

void mtb_sum_config_read(json_t *c, struct mtb_sum_config *r)
{
    r->service = mtb_jstr(c, "service");
    r->platform = mtb_jstr(c, "platform");
    r->kernel = mtb_jstr(c, "kernel");
    r->variant = mtb_jstr(c, "variant");
    r->mode = mtb_jstr(c, "mode");
    r->host = host_of(c, &r->has_host);
    r->baseline = mtb_record_is_baseline(c);
    r->emulated = flag(c, "emulated");
    r->client_bound = flag(c, "client_bound");
    r->errors_over_limit = flag(c, "errors_over_limit");
    r->noisy = flag(c, "noisy");
    r->runs = mtb_jint(c, "runs");
    mtb_sum_workload_read(json_object_get(c, "workload"), &r->workload);
    json_t *rl = json_object_get(c, "run_length");
    r->has_run_length = rl != NULL;
    r->pilot_s = mtb_jnum(rl, "pilot_s");
    r->pilot_pairs = mtb_jnum(rl, "pilot_pairs");
    r->chosen_s = mtb_jnum(rl, "chosen_s");
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        mtb_ci_read(json_object_get(c, mtb_run_metrics[m].key), &r->metric[m]);
    static const char *const pr_keys[MTB_NPR] = {
#define X(id, key) key,
        MTB_SUM_PER_REQUEST(X)
#undef X
    };
    for (size_t k = 0; k < MTB_NPR; k++) {
        json_t *pr = json_object_get(c, pr_keys[k]);
        r->per_request[k] = json_is_object(pr) ? pr : NULL;
    }
    r->overhead = NULL;
}

void mtb_sum_overhead_read(json_t *o, struct mtb_sum_overhead *r)
{
    r->service = mtb_jstr(o, "service");
    r->platform = mtb_jstr(o, "platform");
    r->kernel = mtb_jstr(o, "kernel");
    r->variant = mtb_jstr(o, "variant");
    r->mode = mtb_jstr(o, "mode");
    r->host = host_of(o, &r->has_host);
    r->baseline = mtb_jstr(o, "baseline");
    mtb_sum_workload_read(json_object_get(o, "workload"), &r->workload);
    r->pairs = mtb_jint(o, "pairs");
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        mtb_ci_read(json_object_get(o, mtb_pair_metrics[m].key), &r->metric[m]);
    r->mann_whitney_p = mtb_jnum(o, "mann_whitney_p");
    json_t *sq = json_object_get(o, "sequential");
    r->sequential = json_is_object(sq);
    r->stopped_by_user = flag(sq, "stopped_by_user");
    r->reached = flag(sq, "reached");
    r->max_time_s = mtb_jnum(sq, "max_time_s");
}

/* the overhead of a configuration: the same service, variant, mode,
 * platform, kernel, host and workload */
static const struct mtb_sum_overhead *overhead_of(const struct mtb_sum_rows *r, const struct mtb_sum_config *c)
{
    for (size_t j = 0; j < r->noverheads; j++) {
        const struct mtb_sum_overhead *o = &r->overheads[j];
        if (!strcmp(o->service, c->service) && !strcmp(o->variant, c->variant) && !strcmp(o->mode, c->mode) &&
            !strcmp(o->platform, c->platform) && !strcmp(o->kernel, c->kernel) && !strcmp(o->host, c->host) &&
            mtb_workload_equal(o->workload.j, c->workload.j))
            return o;
    }
    return NULL;
}

static void geomean_read(json_t *g, struct mtb_sum_geomean *r)
{
    r->variant = mtb_jstr(g, "variant");
    r->mode = mtb_jstr(g, "mode");
    r->platform = mtb_jstr(g, "platform");
    r->kernel = mtb_jstr(g, "kernel");
    r->n = mtb_jint(g, "n");
    mtb_ci_read(json_object_get(g, "slowdown"), &r->slowdown);
    r->of = json_object_get(g, "of");
}

static void allocator_read(json_t *a, struct mtb_sum_allocator *r)
{
    r->service = mtb_jstr(a, "service");
    r->allocator = mtb_jstr(a, "allocator");
    json_t *alone = json_object_get(a, "allocator_alone"), *tagging = json_object_get(a, "tagging"), *t;
    mtb_ci_read(json_object_get(alone, "slowdown"), &r->alone);
    r->alone_pairs = mtb_jint(alone, "pairs");
    r->ntagging = json_array_size(tagging);
    r->tagging = mtb_calloc(r->ntagging ? r->ntagging : 1, sizeof *r->tagging);
    size_t i;
    json_array_foreach(tagging, i, t)
    {
        struct mtb_sum_tagging *g = &r->tagging[i];
        g->variant = mtb_jstr(t, "variant");
        g->mode = mtb_jstr(t, "mode");
        mtb_ci_read(json_object_get(t, "slowdown"), &g->slowdown);
        mtb_ci_read(json_object_get(t, "slowdown_glibc"), &g->slowdown_glibc);
        mtb_ci_read(json_object_get(t, "difference"), &g->difference);
        g->pairs = mtb_jint(t, "pairs");
    }
}

static void kernel_read(json_t *k, struct mtb_sum_kernel *r)
{
    r->service = mtb_jstr(k, "service");
    r->variant = mtb_jstr(k, "variant");
    r->mode = mtb_jstr(k, "mode");
    r->platform = mtb_jstr(k, "platform");
    r->kernel_a = mtb_jstr(k, "kernel_a");
    r->kernel_b = mtb_jstr(k, "kernel_b");
    r->note = mtb_jstr(k, "note");
    r->emulated = flag(k, "emulated");
    r->significant = flag(k, "significant");
    r->runs_a = mtb_jint(k, "runs_a");
    r->runs_b = mtb_jint(k, "runs_b");
    r->ops_a = mtb_jnum(k, "ops_a");
    r->ops_b = mtb_jnum(k, "ops_b");
    r->mann_whitney_p = mtb_jnum(k, "mann_whitney_p");
    mtb_ci_read(json_object_get(k, "delta"), &r->delta);
    mtb_ci_read(json_object_get(k, "slowdown_a"), &r->slowdown_a);
    mtb_ci_read(json_object_get(k, "slowdown_b"), &r->slowdown_b);
    r->pairs = mtb_jint(k, "pairs");
    mtb_ci_read(json_object_get(k, "ops_ratio"), &r->ops_ratio);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        mtb_ci_read(json_object_get(k, mtb_pair_metrics[m].key), &r->metric[m]);
}

static void cores_read(json_t *o, struct mtb_sum_cores *r)
{
    r->service = mtb_jstr(o, "service");
    r->workload = mtb_jstr(o, "workload");
    r->platform = mtb_jstr(o, "platform");
    r->kernel = mtb_jstr(o, "kernel");
    r->variant = mtb_jstr(o, "variant");
    r->mode = mtb_jstr(o, "mode");
    r->core_type = mtb_jstr(o, "core_type");
    r->service_cpus = mtb_jstr(o, "service_cpus");
    r->cores = mtb_jnum(o, "cores");
    mtb_ci_read(json_object_get(o, "ops_per_sec"), &r->ops_per_sec);
    mtb_ci_read(json_object_get(o, "slowdown"), &r->slowdown);
}

void mtb_sum_rows_read(json_t *sum, struct mtb_sum_rows *r)
{
    memset(r, 0, sizeof *r);
    r->emulated = flag(sum, "emulated");
    MTB_READ_ROWS(json_object_get(sum, "overheads"), r->overheads, r->noverheads, mtb_sum_overhead_read);
    MTB_READ_ROWS(json_object_get(sum, "configs"), r->configs, r->nconfigs, mtb_sum_config_read);
    for (size_t i = 0; i < r->nconfigs; i++)
        r->configs[i].overhead = overhead_of(r, &r->configs[i]);
    MTB_READ_ROWS(json_object_get(sum, "geomeans"), r->geomeans, r->ngeomeans, geomean_read);
    MTB_READ_ROWS(json_object_get(sum, "allocators"), r->allocators, r->nallocators, allocator_read);
    MTB_READ_ROWS(json_object_get(sum, "kernels"), r->kernels, r->nkernels, kernel_read);
    MTB_READ_ROWS(json_object_get(sum, "cores"), r->cores, r->ncores, cores_read);
    r->warnings = json_object_get(sum, "warnings");
    json_t *env = json_object_get(sum, "environment");
    r->has_environment = json_is_object(env);
    static const char *const env_keys[MTB_NENV] = {
#define X(key, label) #key,
        MTB_SUM_ENV(X)
#undef X
    };
    for (size_t k = 0; k < MTB_NENV; k++)
        r->env[k] = json_object_get(env, env_keys[k]);
    r->first_started = mtb_jstr(env, "first_started");
    r->last_finished = mtb_jstr(env, "last_finished");
}

void mtb_sum_overheads_stopped_by_user(json_t *sum)
{
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(sum, "overheads"), i, o)
        json_object_set_new(json_object_get(o, "sequential"), "stopped_by_user", json_true());
}

void mtb_sum_rows_free(struct mtb_sum_rows *r)
{
    for (size_t i = 0; i < r->nallocators; i++)
        free(r->allocators[i].tagging);
    free(r->configs);
    free(r->overheads);
    free(r->geomeans);
    free(r->allocators);
    free(r->kernels);
    free(r->cores);
    memset(r, 0, sizeof *r);
}

static void work_row_read(json_t *r, struct mtb_sum_work *w)
{
    w->service = mtb_jstr(r, "service");
    w->variant = mtb_jstr(r, "variant");
    w->mode = mtb_jstr(r, "mode");
    w->kernel = mtb_jstr(r, "kernel");
    w->role = mtb_jstr(r, "role");
    w->record = mtb_jstr(r, "record");
    w->requests = mtb_jnum(r, "requests");
    w->baseline = json_is_true(json_object_get(r, "baseline"));
    json_t *vals = json_object_get(r, "values"), *ratio = json_object_get(r, "ratio");
    for (int q = 0; q < MTB_NWORK; q++) {
        const char *k = mtb_work_quantities[q].key;
        w->values[q] = mtb_jnum(vals, k);
        w->has_ratio[q] = json_is_number(json_object_get(ratio, k));
        w->ratio[q] = mtb_jnum(ratio, k);
    }
}

void mtb_sum_work_read(json_t *rows, struct mtb_sum_work **out, size_t *n)
{
    MTB_READ_ROWS(rows, *out, *n, work_row_read);
}

void mtb_sum_sections_read(json_t *sum, struct mtb_sum_sections *s)
{
    s->emulated = flag(sum, "emulated");
    s->protection = json_object_get(sum, "protection");
    s->work = json_object_get(sum, "work");
    s->capacity = json_object_get(sum, "capacity");
    s->plot_problems = json_object_get(sum, "plot_problems");
}
