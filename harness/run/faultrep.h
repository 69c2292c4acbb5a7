/* faultrep.h - a fault made into a report someone can act on
 * (docs/DETECTION.md, "Fault reports"): libmtefault's lines (the fault, the
 * memory tags around it, the registers, the stack, the mappings) and
 * libmtealloc's (the objects near the address, with their allocation and
 * free stacks) read into the record's `fault` object, whose `report` names
 * the cause (use after free, buffer overflow or underflow, double free,
 * stack, unknown; ranked alternatives where several fit), the object (its
 * start, size and the fault's offset into or past it) and the stacks,
 * symbolised with addr2line on the binaries the mappings name. */
#ifndef MTB_FAULTREP_H
#define MTB_FAULTREP_H
#include <jansson.h>

/* The fault file at path as the record's fault object (signal, si_code,
 * addr, pid, kind, tag_check, pc, lr; report where the lines say more).
 * NULL: no fault line in it. */
json_t *mtb_fault_read(const char *path);

/* The same from the lines themselves (a core's, run/core.c) */
json_t *mtb_fault_parse(const char *text);

/* The report as text for people (explain, detect.md): the cause line, the
 * alternatives, the stacks and the tags; NULL when fault has no report.
 * Free it. */
char *mtb_fault_text(json_t *fault);
#endif
