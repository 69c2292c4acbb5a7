/* fault_rows.h - a fault as the records keep it (a record's `fault`, a
 * trial's, `explain --json`'s: run/faultrep.c makes it from the fault
 * file) read once into a struct: the fault, the tags around it, the report
 * (cause, access, tags, the object, the alternatives, the stacks) and the
 * core beside it (`run --core`). The fault's text (mtb_fault_text), explain
 * and detect's judgement of a catch read these fields, never the fault by key.
 *
 * A key the fault lacks reads as "" (a string), 0 (a count, a flag), not
 * present (the has_ flags and the objects' present). Strings are the
 * fault's own: valid while it is.
 *
 *   struct mtb_fault_view v;
 *   mtb_fault_view_read(fault, &v);
 *   ... v.cause, v.object.start, v.stack.n ...
 *   mtb_fault_view_free(&v);
 */
#ifndef MTB_FAULT_ROWS_H
#define MTB_FAULT_ROWS_H
#include <jansson.h>
#include <stddef.h>

/* a frame of a symbolised stack */
struct mtb_fault_frame {
    const char *pc, *function, *source, *module, *offset; /* "" when not known */
    const char *inlined_in;      /* the function it was inlined in, the outermost, or NULL */
};
struct mtb_fault_stack {
    struct mtb_fault_frame *v;
    size_t n;
};

/* an object the report names: the culprit, or an alternative's */
struct mtb_fault_object {
    int present;
    const char *start, *relation, *kind; /* kind: "heap", "service", "stack" */
    long long size, distance;
};

/* another cause the report allows */
struct mtb_fault_alt {
    const char *cause, *why;
    struct mtb_fault_object object;
};

struct mtb_fault_view {
    const char *kind, *addr;     /* "tag-check fault, synchronous (SEGV_MTESERR)", "0x0e00..." */
    int tag_check;
    long long signal, si_code, pid; /* the signal, its si_code, the process that took it */
    int has_memory_tag;          /* the fault file's tags: the memory's tag at the address */
    long long memory_tag;
    int has_tags;                /* the tags of the 33 granules around the address */
    const char *tags_base, *tags;
    /* the report (a tag-check fault with more than its line) */
    int has_report;
    const char *headline, *cause, *access, *why;
    int has_report_memory_tag;   /* the tags it compared */
    long long pointer_tag, report_memory_tag;
    int has_syscall;             /* an asynchronous fault raised at a system call's return */
    long long syscall;
    int allocation_record;       /* libmtealloc.so's record was there */
    struct mtb_fault_object object;
    struct mtb_fault_alt *alts;
    size_t nalts;
    struct mtb_fault_stack stack, alloc_stack, free_stack, second_free_stack;
    long long alloc_thread, free_thread;
    /* the core beside the fault (explain: a run kept one) */
    int has_core;
    json_t *core;                /* the block (borrowed), or NULL */
    const char *core_error;      /* why it could not be read, or NULL */
    const char *core_file;
    long long tag_segments;
    int has_core_memory_tag, has_agrees, agrees, no_siginfo;
    long long core_memory_tag;
};

void mtb_fault_view_read(json_t *fault, struct mtb_fault_view *v);
void mtb_fault_view_free(struct mtb_fault_view *v);
#endif
