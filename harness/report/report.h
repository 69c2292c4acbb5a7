/* report.h - a report of run records (loaded by core/record_load.c):
 * reports/<name>/ with index.html (self-contained, inline CSS and SVG),
 * report.md, runs.csv and summary.json, for the `report` command
 * (cmd/report_cli.c), bench and the nightly.
 * One file per format: report_html.c, report_md.c, report_csv.c; report.c
 * writes the directory (and summary.json). A new
 * format: a file exporting one function of the shape below, called from
 * mtb_report_write.
 *
 * Functions returning int return 0 or a negative errno value; they never
 * exit. Problems with single records are collected, not fatal. */
#ifndef MTB_REPORT_H
#define MTB_REPORT_H
#include <jansson.h>
#include <stdio.h>
#include "core/record.h"
#include "lib/err.h"


/**
 * mtb_report_write - write OUT/NAME/{index.html, report.md, runs.csv,
 * summary.json} of the records in set.
 * @param set         the records (loaded, or in memory after a plan)
 * @param summary     their summary (mtb_summary_build), or NULL to build it here
 * @param summary_md  its Markdown (mtb_summary_markdown), or NULL to build it here
 * @param name        report name (a single path component)
 * @param out         parent directory of the report (created)
 * @param dir_out     if not NULL, receives the report directory (heap string)
 * @param summary_out if not NULL, receives summary.json's object (caller decrefs)
 * @return 0; -ENODATA if no record is usable (nothing written); -EINVAL for a
 *         bad name; -EIO if a file cannot be written: with e set, saying which
 */
int mtb_report_write(const struct mtb_record_set *set, json_t *summary, const char *summary_md, const char *name,
                     const char *out, char **dir_out, json_t **summary_out, struct mtb_err *e);

/* The formats, each a heap string (NULL: out of memory). sum is the set's
 * summary; problems collects the plots not drawn. */
char *mtb_report_html(const struct mtb_record_set *set, json_t *sum, const char *name, json_t *problems);
/* body: the summary's Markdown (mtb_summary_markdown), its title replaced */
char *mtb_report_md(const struct mtb_record_set *set, json_t *sum, const char *body, const char *name,
                    json_t *problems);
char *mtb_report_csv(const struct mtb_record_set *set);

/* A plot in a page: gnuplot's SVG of script (ids prefixed with id_prefix)
 * in a <div class="plot">, or a warning naming why it was not drawn (also
 * appended to problems). Nothing when script is NULL. */
void mtb_report_plot(FILE *f, const char *script, const char *id_prefix, int width, int height, json_t *problems);

/* The stylesheet of the report pages (inlined; the nightly dashboard uses it too). */
extern const char mtb_report_css[];

/* The CSV field of one value, quoted per RFC 4180 when needed (heap string). */
char *mtb_csv_field(const char *s);
/* The text with &, <, >, " and ' escaped for HTML (heap string). */
char *mtb_html_escape(const char *s);

#include "report/protection.h" /* what the price buys, in every format */
/* The protection rows as the Markdown section "What the price buys" (nothing
 * when there are none). */
void mtb_report_protection_md(FILE *f, json_t *rows, int emulated);
/* The capacity results of a results directory: DIR/capacity.json (`mtebench
 * capacity`'s) and DIR/capacity-ENTRY/capacity.json (a plan's entries with
 * an slo), each with "file" (its path) and "dir" (its directory) added; a file that is not
 * mtebench-capacity/1 is named on stderr (prefixed who) and left out.
 * @return an array (caller decrefs), empty when there is none */
json_t *mtb_capacity_find(const char *dir, const char *who);
#endif
