/* work_table.h - the work table: MTE's work per request of counted runs
 * (core/work.h's account in each record), for people. */
#ifndef MTEBENCH_WORK_TABLE_H
#define MTEBENCH_WORK_TABLE_H
#include <jansson.h>
#include <stdio.h>

/* One counted record's work per request, one row per role (service, load
 * generator, or all vCPUs) and EL. @return 0, or -1 (nothing printed) when
 * the record has no per-request work. */
int mtb_work_table_print(FILE *f, const json_t *rec);
/* The work of a baseline record and a measured one side by side, per
 * request on the service's vCPUs (or all, when they were not apart), EL0
 * and EL1, with the measured one's ratio to the baseline. */
void mtb_work_table_pair(FILE *f, const json_t *base, const json_t *rec);
/* The same configuration's work on several kernels, one column each, with
 * each kernel's EL1 Tag Checked accesses split into unprivileged (the
 * kernel's accesses to user memory) and its own. */
void mtb_work_table_kernels(FILE *f, json_t *const *recs, int n);

/* The counted runs among results directories (each DIR/work/NNN-.../record.json:
 * bench's pair, a plan's `count`) as the report's rows: [{service,
 * variant, mode, kernel, role, requests, record, baseline (plain/off),
 * values: {core/work.h's quantities per request}, ratio: {each against the
 * plain/off counted for the same service and kernel; null where that is 0
 * or absent}}], in the directories' order. An empty array when none. */
json_t *mtb_work_rows(const json_t *dirs);
/* The rows as Markdown (a heading and a table), CSV (a header and a line
 * each) */
void mtb_work_rows_md(FILE *f, const json_t *rows);
void mtb_work_rows_csv(FILE *f, const json_t *rows);
#endif
