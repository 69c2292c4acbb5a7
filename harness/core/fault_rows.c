/* fault_rows.c - see fault_rows.h */
#include "core/fault_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>


static void frame_read(json_t *f, struct mtb_fault_frame *r)
{
    json_t *inl = json_object_get(f, "inlined_in");
    r->pc = mtb_jstr(f, "pc");
    r->function = mtb_jstr(f, "function");
    r->source = mtb_jstr(f, "source");
    r->module = mtb_jstr(f, "module");
    r->offset = mtb_jstr(f, "offset");
    r->inlined_in = json_array_size(inl) ? json_string_value(json_array_get(inl, json_array_size(inl) - 1)) : NULL;
}

static void stack_read(json_t *a, struct mtb_fault_stack *s) { MTB_READ_ROWS(a, s->v, s->n, frame_read); }

static void object_read(json_t *o, struct mtb_fault_object *r)
{
    r->present = o != NULL;
    r->start = mtb_jstr(o, "start");
    r->relation = mtb_jstr(o, "relation");
    r->kind = mtb_jstr(o, "kind");
    r->size = mtb_jint(o, "size");
    r->distance = mtb_jint(o, "distance");
}

static void alt_read(json_t *a, struct mtb_fault_alt *r)
{
    r->cause = mtb_jstr(a, "cause");
    r->why = mtb_jstr(a, "why");
    object_read(json_object_get(a, "object"), &r->object);
}

void mtb_fault_view_read(json_t *f, struct mtb_fault_view *v)
{
    memset(v, 0, sizeof *v);
    json_t *rep = json_object_get(f, "report"), *tags = json_object_get(f, "tags"), *c = json_object_get(f, "core");
    v->kind = mtb_jstr(f, "kind");
    v->addr = mtb_jstr(f, "addr");
    v->tag_check = json_is_true(json_object_get(f, "tag_check"));
    v->si_code = mtb_jint(f, "si_code");
    v->signal = mtb_jint(f, "signal");
    v->pid = mtb_jint(f, "pid");
    v->has_memory_tag = json_object_get(f, "memory_tag") != NULL;
    v->memory_tag = mtb_jint(f, "memory_tag");
    v->has_tags = tags != NULL;
    v->tags_base = mtb_jstr(tags, "base");
    v->tags = mtb_jstr(tags, "tags");
    v->has_report = rep != NULL;
    v->headline = mtb_jstr(rep, "headline");
    v->cause = mtb_jstr(rep, "cause");
    v->access = mtb_jstr(rep, "access");
    v->why = mtb_jstr(rep, "why");
    v->has_report_memory_tag = json_object_get(rep, "memory_tag") != NULL;
    v->pointer_tag = mtb_jint(rep, "pointer_tag");
    v->report_memory_tag = mtb_jint(rep, "memory_tag");
    v->has_syscall = json_object_get(rep, "syscall") != NULL;
    v->syscall = mtb_jint(rep, "syscall");
    v->allocation_record = json_is_true(json_object_get(rep, "allocation_record"));
    object_read(json_object_get(rep, "object"), &v->object);
    MTB_READ_ROWS(json_object_get(rep, "alternatives"), v->alts, v->nalts, alt_read);
    stack_read(json_object_get(rep, "stack"), &v->stack);
    stack_read(json_object_get(rep, "alloc_stack"), &v->alloc_stack);
    stack_read(json_object_get(rep, "free_stack"), &v->free_stack);
    stack_read(json_object_get(rep, "second_free_stack"), &v->second_free_stack);
    v->alloc_thread = mtb_jint(rep, "alloc_thread");
    v->free_thread = mtb_jint(rep, "free_thread");
    v->has_core = c != NULL;
    v->core = c;
    v->core_error = json_object_get(c, "error") ? mtb_jstr(c, "error") : NULL;
    v->core_file = mtb_jstr(c, "file");
    v->tag_segments = mtb_jint(c, "tag_segments");
    v->has_core_memory_tag = json_object_get(c, "memory_tag") != NULL;
    v->core_memory_tag = mtb_jint(c, "memory_tag");
    v->has_agrees = json_object_get(c, "agrees") != NULL;
    v->agrees = json_is_true(json_object_get(c, "agrees"));
    v->no_siginfo = json_is_false(json_object_get(c, "siginfo"));
}

void mtb_fault_view_free(struct mtb_fault_view *v)
{
    free(v->alts);
    free(v->stack.v);
    free(v->alloc_stack.v);
    free(v->free_stack.v);
    free(v->second_free_stack.v);
    memset(v, 0, sizeof *v);
}
