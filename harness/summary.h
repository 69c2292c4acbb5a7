/* summary.h - statistics over run records: per configuration medians with
 * CIs, and the overhead of each tagged configuration against its baseline
 * (median of the pairwise ratios of interleaved runs), for every metric of
 * record.h's table. Rendered by summary_text.h. Used by `bench`, `report`. */
#ifndef MTB_SUMMARY_H
#define MTB_SUMMARY_H
#include <jansson.h>
#include <stdio.h>
#include "record.h"

/* records: array of run records (status "ok" ones are used).
 * @return a summary object: {"configs":[...], "overheads":[...], "emulated":bool, ...} */
json_t *mtb_summary_build(json_t *records);
#endif
