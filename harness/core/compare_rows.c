/* compare_rows.c - see compare_rows.h */
#include "core/compare_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

static void kernel_read(json_t *k, struct mtb_cmp_kernel *r)
{
    r->name = mtb_jstr(k, "name");
    r->uname_r = mtb_jstr(k, "uname_r");
    r->build_hash = mtb_jstr(k, "build_hash");
    r->config_hash = mtb_jstr(k, "config_hash");
    json_t *ps = json_object_get(k, "patches"), *p;
    size_t i;
    r->patches = mtb_calloc(json_array_size(ps) + 1, sizeof *r->patches);
    json_array_foreach(ps, i, p) r->patches[r->npatches++] = mtb_jstr(p, "file");
}

static void row_read(json_t *o, struct mtb_cmp_row *r)
{
    r->config = mtb_jstr(o, "config");
    r->kernel = mtb_jstr(o, "kernel");
    r->runs = mtb_jint(o, "runs");
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        mtb_ci_read(json_object_get(o, mtb_run_metrics[m].key), &r->metric[m]);
    json_t *v = json_object_get(o, "vs_reference");
    r->vs.present = v != NULL;
    mtb_ci_read(v, &r->vs.ratio);
    r->vs.pairs = mtb_jint(v, "pairs");
    r->vs.mann_whitney_p = mtb_jnum(v, "mann_whitney_p");
    r->vs.significant = json_is_true(json_object_get(v, "significant"));
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        mtb_ci_read(json_object_get(v, mtb_pair_metrics[m].key), &r->vs.pair[m]);
}

void mtb_cmp_rows_read(json_t *cmp, struct mtb_cmp_rows *r)
{
    memset(r, 0, sizeof *r);
    json_t *p = json_object_get(cmp, "platform");
    r->reference = mtb_jstr(cmp, "reference");
    r->note = mtb_jstr(cmp, "note");
    r->accel = mtb_jstr(p, "accel");
    r->qemu = mtb_jstr(p, "qemu");
    r->protection_note = json_string_value(json_object_get(cmp, "protection_note"));
    r->emulated = json_is_true(json_object_get(cmp, "emulated"));
    r->protection = json_object_get(cmp, "protection");
    MTB_READ_ROWS(json_object_get(cmp, "kernels"), r->kernels, r->nkernels, kernel_read);
    MTB_READ_ROWS(json_object_get(cmp, "rows"), r->rows, r->nrows, row_read);
}

void mtb_cmp_rows_free(struct mtb_cmp_rows *r)
{
    for (size_t i = 0; i < r->nkernels; i++)
        free(r->kernels[i].patches);
    free(r->kernels);
    free(r->rows);
    memset(r, 0, sizeof *r);
}
