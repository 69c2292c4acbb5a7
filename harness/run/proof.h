/* proof.h - prove the requested MTE mode before measuring: run the aarch64
 * probe (harness/probe/mteprobe.c) on the same platform with the same
 * environment as the service, and compare what it saw with the mode's
 * expectations; on platforms that show it, count the service's PROT_MTE
 * mappings (`mt` in /proc/PID/smaps). */
#ifndef MTB_PROOF_H
#define MTB_PROOF_H
#include <jansson.h>
#include <sys/types.h>
#include "core/allocator.h"
#include "core/mode.h"
#include "core/platform.h"

/* Run the probe. env: NAME=value list given to the service too.
 * @return 1 if the mode is proved, 0 if not (why says what differed);
 * *out receives the proof object for the run record either way. */
int mtb_proof_run(const struct mtb_platform *p, const struct mtb_mode *m, char *const *env,
                  json_t **out, char *why, size_t n);
/* After a proved mode: the allocator a serves the probe's malloc (its
 * malloc_from), and how much it tags (small and large blocks) into
 * proof.allocator. @return 1, or 0 and why */
int mtb_proof_allocator(json_t *proof, const struct mtb_allocator *a, const struct mtb_mode *m, char *why, size_t n);
/* Check parsed probe output against a mode (exposed for unit tests). */
int mtb_proof_check(const struct mtb_mode *m, json_t *probe, char *why, size_t n);
/* Parse the probe's key=value lines into a JSON object (numbers where numeric). */
json_t *mtb_proof_parse(const char *text);
/* Mappings of pid whose VmFlags carry `mt`; -1 if smaps is unreadable.
 * *shared (if given): how many of them are MAP_SHARED (`ms`): glibc's tagged
 * heap is private, a service's own shared memory and mmap'd files shared.
 * shared_names (if given): their names from smaps are appended to it. */
int mtb_proof_smaps_mt(pid_t pid, int *shared, json_t *shared_names);
/* The largest counts in a file of "MTEBENCH-SMAPS mt=N shared=S" lines
 * written by libmtefault.so's smaps sampler (embedded services); -1 if none. */
int mtb_proof_smaps_max(const char *path, int *shared);
#endif
