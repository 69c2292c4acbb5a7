/* work_rows.c - see work_rows.h */
#include "core/work_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

const char *const mtb_work_counter_keys[MTB_NWC] = {
#define X(key) #key,
    MTB_WORK_COUNTERS(X)
#undef X
};

const char *const mtb_work_role_keys[MTB_NWR] = {
#define X(key) #key,
    MTB_WORK_ROLES(X)
#undef X
};

static void acct_read(const json_t *o, struct mtb_work_acct *a)
{
    memset(a, 0, sizeof *a);
    a->present = o != NULL;
    a->object = json_is_object(o);
    for (int el = 0; el <= 1; el++) {
        const json_t *e = json_object_get(o, el ? "el1" : "el0");
        a->el_present[el] = json_is_object(e);
        for (int k = 0; k < MTB_NWC; k++)
            a->c[el][k] = json_number_value(json_object_get(e, mtb_work_counter_keys[k]));
    }
}

void mtb_work_view_read(const json_t *rec, struct mtb_work_view *w)
{
    memset(w, 0, sizeof *w);
    const json_t *work = json_object_get(rec, "work"), *pr = json_object_get(work, "per_request");
    w->present = json_is_object(pr);
    w->requests = json_number_value(json_object_get(work, "requests"));
    w->has_requests = json_is_number(json_object_get(work, "requests"));
    w->requests_from = json_string_value(json_object_get(work, "requests_from"));
    w->tasks_note = json_string_value(json_object_get(work, "tasks_note"));
    for (int r = 0; r < MTB_NWR; r++)
        acct_read(json_object_get(pr, mtb_work_role_keys[r]), &w->role[r]);
    w->main = w->role[MTB_WR_workers].present ? MTB_WR_workers : w->role[MTB_WR_service].present ? MTB_WR_service
                                                                                                   : MTB_WR_all;
    const json_t *bt = json_object_get(work, "by_task"), *t;
    const char *name;
    w->tasks = mtb_calloc(json_object_size(bt) + 1, sizeof *w->tasks);
    json_object_foreach((json_t *)bt, name, t) {
        w->tasks[w->ntasks].name = name;
        acct_read(json_object_get(t, "per_request"), &w->tasks[w->ntasks].per_request);
        w->ntasks++;
    }
}

void mtb_work_view_free(struct mtb_work_view *w)
{
    free(w->tasks);
    memset(w, 0, sizeof *w);
}

double mtb_work_tag_stores(const struct mtb_work_acct *a, int el)
{
    static const enum mtb_work_counter k[] = { MTB_WC_stg,  MTB_WC_st2g,  MTB_WC_stzg,   MTB_WC_stz2g,  MTB_WC_stgp,
                                               MTB_WC_stgm, MTB_WC_stzgm, MTB_WC_dc_gva, MTB_WC_dc_gzva };
    double s = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        s += a->c[el][k[i]];
    return s;
}

static void line_read(json_t *l, struct mtb_work_line *r)
{
    r->j = l;
    r->window = json_integer_value(json_object_get(l, "window"));
    r->vcpu = json_integer_value(json_object_get(l, "vcpu"));
    r->el = json_integer_value(json_object_get(l, "el"));
    r->tid = json_integer_value(json_object_get(l, "tid"));
    r->kv = mtb_calloc(json_object_size(l) + 1, sizeof *r->kv);
    const char *k;
    json_t *v;
    json_object_foreach(l, k, v) {
        if (!json_is_integer(v) || !strcmp(k, "vcpu") || !strcmp(k, "el") || !strcmp(k, "window"))
            continue;
        r->kv[r->n].key = k;
        r->kv[r->n++].v = json_integer_value(v);
    }
}

void mtb_work_out_read(const json_t *work, struct mtb_work_out *o)
{
    json_t *w = (json_t *)work;
    memset(o, 0, sizeof *o);
    o->plugin = json_object_get(w, "plugin");
    o->windows = json_integer_value(json_object_get(o->plugin, "windows"));
    o->context_switches = json_integer_value(json_object_get(o->plugin, "context_switches"));
    MTB_READ_ROWS(json_object_get(w, "totals"), o->totals, o->ntotals, line_read);
    MTB_READ_ROWS(json_object_get(w, "windows"), o->by_vcpu, o->nby_vcpu, line_read);
    MTB_READ_ROWS(json_object_get(w, "tasks"), o->by_task, o->nby_task, line_read);
}

static void lines_free(struct mtb_work_line *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i].kv);
    free(l);
}

void mtb_work_out_free(struct mtb_work_out *o)
{
    lines_free(o->totals, o->ntotals);
    lines_free(o->by_vcpu, o->nby_vcpu);
    lines_free(o->by_task, o->nby_task);
    memset(o, 0, sizeof *o);
}

static void svc_task_read(json_t *t, struct mtb_svc_task *r)
{
    r->tid = json_integer_value(json_object_get(t, "tid"));
    r->comm = json_string_value(json_object_get(t, "comm"));
}

const char *mtb_work_account_error(const json_t *acc)
{
    return json_string_value(json_object_get((json_t *)acc, "error"));
}

void mtb_svc_tasks_read(const json_t *tasks, struct mtb_svc_task **out, size_t *n)
{
    MTB_READ_ROWS((json_t *)tasks, *out, *n, svc_task_read);
}

void mtb_work_affinity_read(const json_t *aff, struct mtb_work_affinity *a)
{
    json_t *f = (json_t *)aff;
    a->service = json_string_value(json_object_get(f, "service"));
    a->client = json_string_value(json_object_get(f, "client"));
    a->shares = json_is_true(json_object_get(f, "shares_cpus_with_client"));
}
