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

/* A vm run's fault made again on this machine (dir: the run's directory,
 * rec: its record): the fault file the guest handed back
 * (dir/guest/<run>/fault.txt), its frames symbolised on this machine's copy
 * of the build the guest ran (the guest's /mtb/builds/S/V is the record's
 * build in the cache; the guest has no addr2line). NULL when there is none;
 * *path (when path is given) the fault file's, to be freed. */
json_t *mtb_fault_read_guest(const char *dir, json_t *rec, char **path);

/* The same from the lines themselves (a core's, run/core.c) */
json_t *mtb_fault_parse(const char *text);

/* The report as text for people (explain, detect.md): the cause line, the
 * alternatives, the stacks and the tags; NULL when fault has no report.
 * Free it. */
char *mtb_fault_text(json_t *fault);
#endif
