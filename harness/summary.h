/* summary.h - statistics over run records: per configuration medians with
 * CIs, and the overhead of each tagged configuration against its baseline
 * (median of the pairwise ratios of interleaved runs). Used by `bench`. */
#ifndef MTB_SUMMARY_H
#define MTB_SUMMARY_H
#include <jansson.h>
#include <stdio.h>
#include "record.h"

/* records: array of run records (status "ok" ones are used).
 * @return a summary object: {"configs":[...], "overheads":[...], "emulated":bool, ...} */
json_t *mtb_summary_build(json_t *records);
/* The human table (as printed by make bench). */
void mtb_summary_print(json_t *summary, FILE *out);
/* The same as Markdown, with an environment block. */
char *mtb_summary_markdown(json_t *summary);
/* A whole number with thousands separators ("12,345"), "-" for NaN. */
void mtb_summary_fmt_int(char *buf, size_t n, double v);
/* 1 if a CI object reaches less than the nominal 95% confidence. */
int mtb_summary_low_conf(json_t *ci);
#endif
