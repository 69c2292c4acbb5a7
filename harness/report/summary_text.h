/* summary_text.h - the summary (summary.h) rendered: the text table `bench`
 * prints, the Markdown of summary.md/report.md, and the cells that the
 * Markdown and the HTML report (report.c) share. The metric columns come
 * from record.h's metric table. */
#ifndef MTB_SUMMARY_TEXT_H
#define MTB_SUMMARY_TEXT_H
#include "core/summary_rows.h"

#include <jansson.h>
#include <stdio.h>

/* The human table (as printed by make bench). */
void mtb_summary_print(json_t *summary, FILE *out);
/* The same as Markdown, with an environment block. */
char *mtb_summary_markdown(json_t *summary);
/* A whole number with thousands separators ("12,345"), "-" for NaN. */
void mtb_summary_fmt_int(char *buf, size_t n, double v);

/* How a CI object is written: a whole number ("median" of a run metric), a
 * ratio ("median" or "geomean": "1.234x"), or a delta ("+1.2%"). */
enum mtb_ci_style { MTB_CI_INT, MTB_CI_RATIO, MTB_CI_DELTA };
/**
 * mtb_ci_cell - the two parts of a CI cell: the estimate ("12,345",
 * "1.234x", "+1.2%") and its interval ("[11,000 – 13,000]", with "*" when
 * below 95% confidence; "" when the interval is a single value).
 * @return 1, or 0 when ci holds no value (the cell is "-")
 */
int mtb_ci_cell(const struct mtb_ci *ci, enum mtb_ci_style style, char *est, size_t en, char *range, size_t rn);

/* What the Markdown and the HTML report show alike of a configuration
 * (summary "configs") and of a core sweep row (summary "cores"): */
/* 1 when some configuration has figures per request pr */
int mtb_summary_any_config(const struct mtb_sum_rows *r, enum mtb_sum_per_request pr);
/* its workload: "NAME, mix M, values V", and ", N cores" at a point of a core sweep */
void mtb_summary_workload_label(const struct mtb_sum_workload *w, char *buf, size_t n);
/* a core sweep row's cores: "N", or "N TYPE" (big.LITTLE) */
void mtb_summary_cores_label(const struct mtb_sum_cores *row, char *buf, size_t n);
/* a per-request object as "event 1.234, event 5.678" (to be freed) */
char *mtb_summary_per_request_text(json_t *pr);

/* The kernel comparison (summary "kernels": one configuration under two
 * kernels) as the Markdown and the HTML report both show it: the columns,
 * each row's text cells, the CI cells each format writes its own way, the
 * note under the table and the rows' notes, each once. */
#define MTB_SUMMARY_KERNEL_NCOLS 12
extern const char *const mtb_summary_kernel_cols[MTB_SUMMARY_KERNEL_NCOLS];
extern const char mtb_summary_kernel_note[];
struct mtb_summary_kernel_row {
    char text[8][128];   /* service, config, platform, kernel A, kernel B, runs A/B, ops/s A, ops/s B */
    const struct mtb_ci *delta;       /* then: delta B vs A (MTB_CI_DELTA) */
    char p[96];                       /* Mann-Whitney p, with whether it is significant */
    const struct mtb_ci *slowdown[2]; /* overhead A and B (MTB_CI_RATIO) */
};
void mtb_summary_kernel_row(const struct mtb_sum_kernel *k, struct mtb_summary_kernel_row *r);
/* the kernel rows' distinct notes (a new array) */
json_t *mtb_summary_kernel_notes(const struct mtb_sum_rows *r);
#endif
