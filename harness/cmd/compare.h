/* compare.h - the kernel comparison: the same service, workload and mode on
 * two or more kernels (PLATFORM=vm), interleaved over the repetitions, and
 * its table (text and Markdown) with the honest note on where a kernel
 * difference can show at all. */
#ifndef MTB_COMPARE_H
#define MTB_COMPARE_H
#include <jansson.h>
#include <stdio.h>

/* kernels.json's schema. 2: rows carry every run metric of record.h's table
 * as a median with its CI (1: ops_per_sec only, p50_us/p99_us plain
 * medians), and vs_reference is the summary's kernel axis (median with CI,
 * pair metrics, Mann–Whitney; 1: median, min, max of the pairs). */
#define MTB_KERNEL_COMPARE_SCHEMA "mtebench-kernel-compare/2"

/* records: run records whose config.kernel differ; the first kernel in
 * kernels (comma-separated) is the reference of the ratios. The figures are
 * the summary's (mtb_summary_build_ref): its configurations and its kernel
 * axis, with the same intervals and tests as every other table.
 * @return {"schema","kernels":[...],"reference","rows":[...],"platform",...,"note"} */
json_t *mtb_compare_build(json_t *records, const char *kernels);
/* What the price buys on each kernel: `mtebench detect`'s matrices (paths:
 * DIR or DIR/detect.json) beside each kernel's overhead of the same variant
 * and mode (tagged/MODE against plain/off on that kernel, from --baseline
 * runs), as cmp's "protection" rows (report.h's mtb_report_protection, with
 * the kernel) and, when no row has an overhead, "protection_note".
 * @return 0, or -1 with err when a path holds no matrix. */
int mtb_compare_add_protection(json_t *cmp, json_t *records, char *const *paths, int n, char *err, size_t errlen);
void mtb_compare_print(json_t *cmp, FILE *out);
char *mtb_compare_markdown(json_t *cmp);

#endif
