/* summary.h - statistics over run records: per configuration medians with
 * CIs, and the overhead of each tagged configuration against its baseline
 * (median of the pairwise ratios of interleaved runs), for every metric of
 * record.h's table. Rendered by summary_text.h. Used by `bench`, `report`. */
#ifndef MTB_SUMMARY_H
#define MTB_SUMMARY_H
#include <jansson.h>
#include <stdio.h>
#include "core/record.h"

/* records: array of run records (status "ok" ones are used).
 * @return a summary object: {"configs":[...], "overheads":[...], "emulated":bool, ...} */
json_t *mtb_summary_build(json_t *records);
/* The same, with the reference of the kernel axis named ("kernels": each
 * comparison of two kernels has kernel_a = reference_kernel where it is one of
 * them; NULL: host, then stock, lead, else the sort order). compare-kernels
 * reads its table from this axis. */
json_t *mtb_summary_build_ref(json_t *records, const char *reference_kernel);
#endif
