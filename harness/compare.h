/* compare.h - the kernel comparison: the same service, workload and mode on
 * two or more kernels (PLATFORM=vm), interleaved over the repetitions, and
 * its table (text and Markdown) with the honest note on where a kernel
 * difference can show at all. */
#ifndef MTB_COMPARE_H
#define MTB_COMPARE_H
#include <jansson.h>
#include <stdio.h>

/* records: run records whose config.kernel differ; the first kernel in
 * kernels (comma-separated) is the reference of the ratios.
 * @return {"schema","kernels":[...],"rows":[...],"platform",...,"note"} */
json_t *mtb_compare_build(json_t *records, const char *kernels);
void mtb_compare_print(json_t *cmp, FILE *out);
char *mtb_compare_markdown(json_t *cmp);

/* `mtebench compare-kernels --service S --mode M --kernels A,B [--reps N ...]` */
int mtb_cmd_compare_kernels(int argc, char **argv);
#endif
