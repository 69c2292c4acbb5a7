/* proof_rows.h - what the mode probe said (harness/probe/mteprobe.c's
 * key=value lines, as run/proof.c's mtb_proof_parse keeps them: a record's
 * proof.probe) read once into a struct: the tag-check mode the kernel set,
 * the tagged pointers malloc handed out, the si_code a tag mismatch raised
 * on a store and on a load, and whose malloc served. The mode proof and the
 * allocator's proof read these fields, never the probe's output by key.
 *
 * A string the probe did not say (or said as a number) reads as NULL; a
 * fault code it did not give as an integer is not there (has_). Strings are
 * the probe object's own, valid while it is.
 *
 *   struct mtb_probe_view p;
 *   mtb_probe_view_read(probe, &p);
 */
#ifndef MTB_PROOF_ROWS_H
#define MTB_PROOF_ROWS_H
#include <jansson.h>

struct mtb_probe_view {
    const char *tcf;             /* PR_GET_TAGGED_ADDR_CTRL's mode: "none", "sync", "async", "asymm" */
    const char *tagged_ptrs;     /* of malloc's small blocks, the tagged ones ("7/8") */
    const char *tagged_large;    /* ... and of its large ones */
    const char *malloc_from;     /* the library whose malloc served */
    int has_write_fault, has_read_fault;
    long long write_fault, read_fault; /* the si_code a mismatch raised (0: none) */
};

void mtb_probe_view_read(json_t *probe, struct mtb_probe_view *p);
/** how a mode proof was made (its "method": "probe", ...; "" when absent) */
const char *mtb_proof_method(json_t *proof);
/** the same of a mode proof's probe (its "probe") */
void mtb_probe_view_of_proof(json_t *proof, struct mtb_probe_view *p);
#endif
