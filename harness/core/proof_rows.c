/* proof_rows.c - what the mode probe said, read into its struct (proof_rows.h) */
#include "core/proof_rows.h"
#include "lib/jsonx.h"

#include <string.h>

static void code(json_t *probe, const char *k, int *has, long long *v)
{
    json_t *x = json_object_get(probe, k);
    *has = json_is_integer(x);
    *v = json_integer_value(x);
}

void mtb_probe_view_read(json_t *probe, struct mtb_probe_view *p)
{
    memset(p, 0, sizeof *p);
    p->tcf = json_string_value(json_object_get(probe, "tcf"));
    p->tagged_ptrs = json_string_value(json_object_get(probe, "tagged_ptrs"));
    p->tagged_large = json_string_value(json_object_get(probe, "tagged_large"));
    p->malloc_from = json_string_value(json_object_get(probe, "malloc_from"));
    code(probe, "write_fault", &p->has_write_fault, &p->write_fault);
    code(probe, "read_fault", &p->has_read_fault, &p->read_fault);
}

void mtb_probe_view_of_proof(json_t *proof, struct mtb_probe_view *p)
{
    mtb_probe_view_read(json_object_get(proof, "probe"), p);
}

const char *mtb_proof_method(json_t *proof) { return mtb_jstr(proof, "method"); }
