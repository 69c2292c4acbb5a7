/* detect.h - what MTE buys: detection of memory-safety bugs.
 * `mtebench detect-sweep` (detect_sweep.c): the synthetic sweep of granule
 * and tag-collision arithmetic; `mtebench detect` (detect.c): the bug
 * catalogue of services/<svc>/bugs/ run as trials. docs/DETECTION.md. */
#ifndef MTB_DETECT_H
#define MTB_DETECT_H
#include <jansson.h>
#include <stdio.h>
int mtb_cmd_detect_sweep(int argc, char **argv);
int mtb_cmd_detect(int argc, char **argv);
/* detect_report.c: the matrix of an array of trials (detect.json objects):
 * cells per bug x configuration, per class, the headline and the
 * catalogue's make-up; printed as text or Markdown (md). */
json_t *mtb_detect_matrix(json_t *trials);
void mtb_detect_matrix_print(FILE *f, json_t *mx, int md);
/* The same as a self-contained HTML page (detect.html). */
void mtb_detect_matrix_html(FILE *f, json_t *mx);
/* Cost beside protection: each headline configuration's overhead (the
 * slowdown median and CI of summary.c's overheads of the same service,
 * variant, mode and platform; plain/off is 1) as its "cost". */
void mtb_detect_cost(json_t *mx, json_t *summary, const char *service, const char *platform);
#endif
