/* compare_rows.h - a kernel comparison (kernels.json, schema
 * mtebench-kernel-compare/2, as cmd/compare.c makes it) read once into
 * typed rows: the kernels' identities, a row per configuration and kernel
 * with every run metric of record.h's table as an interval and, against
 * the reference kernel, the throughput ratio and the pair metrics. Its
 * text and Markdown read these fields, never the comparison by key.
 *
 * A key a comparison lacks reads as "" (a string), 0 (a count or a flag),
 * NaN (a number), an interval not present. Strings are the comparison's
 * own: valid while it is. */
#ifndef MTB_COMPARE_ROWS_H
#define MTB_COMPARE_ROWS_H
#include "core/record.h"
#include "core/summary_rows.h"

#include <jansson.h>
#include <stddef.h>

struct mtb_cmp_kernel {
    const char *name, *uname_r, *build_hash, *config_hash;
    const char **patches;        /* each patch's file, in order */
    size_t npatches;
};

/* a row's comparison with the reference kernel */
struct mtb_cmp_vs {
    int present;                 /* the row has one (not the reference's) */
    struct mtb_ci ratio;         /* throughput, this kernel over the reference */
    long long pairs;
    double mann_whitney_p;       /* NaN: none */
    int significant;
    struct mtb_ci pair[MTB_NPAIR_METRICS];
};

struct mtb_cmp_row {
    const char *config, *kernel; /* "tagged/sync", "tcma1" */
    long long runs;
    struct mtb_ci metric[MTB_NRUN_METRICS];
    struct mtb_cmp_vs vs;
};

struct mtb_cmp_rows {
    const char *reference, *note, *accel, *qemu;
    const char *protection_note; /* NULL: none */
    int emulated;
    struct mtb_cmp_kernel *kernels;
    struct mtb_cmp_row *rows;
    size_t nkernels, nrows;
    json_t *protection;          /* the rows of what the price buys (summary_rows.h's), or NULL */
};

void mtb_cmp_rows_read(json_t *cmp, struct mtb_cmp_rows *r);
void mtb_cmp_rows_free(struct mtb_cmp_rows *r);
#endif
