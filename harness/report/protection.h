/* protection.h - what the price buys: detection results (`mtebench detect`)
 * joined to the overheads of the same configurations, as rows that the
 * commands print and the HTML and Markdown formats render alike. */
#ifndef MTB_PROTECTION_H
#define MTB_PROTECTION_H
#include "core/summary_rows.h"

#include <jansson.h>
#include <stdio.h>

/* What the price buys: detection matrices (`mtebench detect`'s
 * DIR/detect.json, or the file) joined to the summary's overheads of the
 * same service, variant and mode: an array of rows {service, variant, mode,
 * kernel, cost_platform, slowdown{median,lo,hi} (or baseline: plain/off),
 * bugs_caught, bugs_tested, fraction, wilson95_lo/hi, detect_platform,
 * makeup, source}; NULL with err when a path holds no matrix. */
json_t *mtb_report_protection(json_t *sum, char *const *paths, int n, char *err, size_t errlen);
/* One such row as texts (HTML and Markdown alike). */
struct mtb_protection_text {
    char config[160], cost[112], caught[48], fraction[64], explained[80], where[96];
};
void mtb_report_protection_text(const struct mtb_sum_protection *row, int emulated, struct mtb_protection_text *t);
/* The rows as lines "CONFIG what the price buys: catches ..." (the
 * commands' output; its Markdown section: report_md.c's
 * mtb_report_protection_md). */
void mtb_report_protection_print(FILE *f, json_t *rows, int emulated);

#endif
