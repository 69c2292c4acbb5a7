/* fault_lines.h - libmtefault's and libmtealloc's lines about one fault
 * (harness/probe/mtefault.c and mtealloc.c say what they mean) read once
 * into a struct: the fault, the memory tags around the address, the
 * registers, the stack's addresses, the mappings and the objects near the
 * address. The fault report (faultrep.c) reasons on these fields; the
 * record's fault object is written from them (mtb_fault_lines_json).
 *
 *   int more;
 *   struct mtb_fault_lines *f = mtb_fault_lines_parse(text, &more);
 *   ... f->addr, f->allocs[i].size, mtb_fault_lines_reg(f, "sp") ...
 *   mtb_fault_lines_free(f);
 */
#ifndef MTB_FAULT_LINES_H
#define MTB_FAULT_LINES_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* a list of return addresses (STACK's pcs=, ALLOC's alloc=, free=, free2=);
 * kept signed, as the record writes them */
struct mtb_fl_pcs {
    int present;
    long long *v;
    size_t n;
};

/* a MAP line: an executable mapping, or the one holding the address */
struct mtb_fl_map {
    char role[8], perms[8];
    uint64_t start, end, offset;
    char *path;
};

/* an ALLOC line: an object near the address */
struct mtb_fl_alloc {
    char *state, *kind, *ptr_text;
    uint64_t ptr;
    long long size;
    int tid, has_free_tid, free_tid;
    struct mtb_fl_pcs st[3]; /* alloc, free, free2 */
    unsigned omit;           /* MTB_FL_OMIT_*: a value that was no UTF-8 ("" here, left out of the JSON) */
};
#define MTB_FL_OMIT_STATE 1u
#define MTB_FL_OMIT_KIND 2u
#define MTB_FL_OMIT_PTR 4u

/* a register of the REGS line: its name and value as written */
struct mtb_fl_reg {
    char *name, *value;
};

#define MTB_FL_ALLOC_INFO_N 5 /* live, freed, kept_freed, dropped, near */

/* the fault's lines: the FAULT line, then those up to its END */
struct mtb_fault_lines {
    int signo, code, pid, tag_check;
    char addr[40];
    const char *kind;
    int has_where;
    char pc[40], lr[40];
    int has_tags;                /* TAGS: the 33 granules from base */
    char *tags_base, *tags;
    int has_memory_tag, memory_tag;
    int has_regs;
    struct mtb_fl_reg *regs;
    size_t nregs;
    struct mtb_fl_pcs pcs;       /* STACK */
    int has_syscall, syscall;
    struct mtb_fl_map *maps;
    size_t nmaps;
    long fault_map;              /* the map holding the address, or -1 */
    int has_alloc_info;
    long long alloc_info[MTB_FL_ALLOC_INFO_N];
    int has_allocs;              /* libmtealloc's record was there */
    struct mtb_fl_alloc *allocs;
    size_t nallocs;
};

/** the first fault's lines in text (NULL: no FAULT line); *more: lines
 *  came after the fault's own (a second fault's lines are not its) */
struct mtb_fault_lines *mtb_fault_lines_parse(const char *text, int *more);
void mtb_fault_lines_free(struct mtb_fault_lines *f);
/** a register's value as the REGS line wrote it ("" when absent) */
const char *mtb_fault_lines_reg(const struct mtb_fault_lines *f, const char *name);
/** 1 when s is UTF-8 (what JSON can hold: a value that is not stays out
 *  of the record, as it always did) */
int mtb_fault_utf8(const char *s);
/** a hexadecimal value (0x optional; NULL or "" is 0) */
uint64_t mtb_fault_hex(const char *s);
/** the mappings' files named under far that are not on this machine, read
 *  from here instead (a vm guest's build, the host's copy of it) */
void mtb_fault_lines_maps_here(struct mtb_fault_lines *f, const char *far, const char *here);
/** the record's fault object without its report: the fault, its tags,
 *  registers, system call and objects (the mappings and the stack's
 *  addresses stay in fault.txt) */
json_t *mtb_fault_lines_json(const struct mtb_fault_lines *f);
#endif
