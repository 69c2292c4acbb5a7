/* work_rows.c - see work_rows.h */
#include "core/work_rows.h"
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
