/* summary_text.h - the summary (summary.h) rendered: the text table `bench`
 * prints, the Markdown of summary.md/report.md, and the cells that the
 * Markdown and the HTML report (report.c) share. The metric columns come
 * from record.h's metric table. */
#ifndef MTB_SUMMARY_TEXT_H
#define MTB_SUMMARY_TEXT_H
#include <jansson.h>
#include <stdio.h>

/* The human table (as printed by make bench). */
void mtb_summary_print(json_t *summary, FILE *out);
/* The same as Markdown, with an environment block. */
char *mtb_summary_markdown(json_t *summary);
/* A whole number with thousands separators ("12,345"), "-" for NaN. */
void mtb_summary_fmt_int(char *buf, size_t n, double v);
/* 1 if a CI object reaches less than the nominal 95% confidence. */
int mtb_summary_low_conf(json_t *ci);

/* How a CI object is written: a whole number ("median" of a run metric), a
 * ratio ("median" or "geomean": "1.234x"), or a delta ("+1.2%"). */
enum mtb_ci_style { MTB_CI_INT, MTB_CI_RATIO, MTB_CI_DELTA };
/**
 * mtb_ci_cell - the two parts of a CI cell: the estimate ("12,345",
 * "1.234x", "+1.2%") and its interval ("[11,000 – 13,000]", with "*" when
 * below 95% confidence; "" when the interval is a single value).
 * @return 1, or 0 when ci holds no value (the cell is "-")
 */
int mtb_ci_cell(json_t *ci, enum mtb_ci_style style, char *est, size_t en, char *range, size_t rn);

/* What the Markdown and the HTML report show alike of a configuration
 * (summary "configs") and of a core sweep row (summary "cores"): */
/* its overhead (summary "overheads": the same service, variant, mode,
 * platform, kernel, workload and host), or NULL */
json_t *mtb_summary_overhead_of(json_t *sum, json_t *c);
/* 1 when some configuration has an object `field` (perf_per_request, ...) */
int mtb_summary_any_config(json_t *sum, const char *field);
/* its workload: "NAME", or "NAME, N cores" at a point of a core sweep */
void mtb_summary_workload_label(json_t *w, char *buf, size_t n);
/* a core sweep row's cores: "N", or "N TYPE" (big.LITTLE) */
void mtb_summary_cores_label(json_t *row, char *buf, size_t n);
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
    json_t *delta;       /* then: delta B vs A (a CI object, MTB_CI_DELTA) */
    char p[96];          /* Mann-Whitney p, with whether it is significant */
    json_t *slowdown[2]; /* overhead A and B (CI objects, MTB_CI_RATIO) */
};
void mtb_summary_kernel_row(json_t *k, struct mtb_summary_kernel_row *r);
/* the rows' distinct notes (a new array) */
json_t *mtb_summary_kernel_notes(json_t *kernels);
#endif
