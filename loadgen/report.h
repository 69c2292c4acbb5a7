/* report.h - mtload's outputs: the human table, JSON (schema mtload/1), .hgrm. */
#ifndef MTL_REPORT_H
#define MTL_REPORT_H
#include <jansson.h>
#include <stdio.h>
#include "loadgen/config.h"
#include "loadgen/engine.h"

#define MTL_JSON_SCHEMA "mtload/1"

/** The share of measured requests (sent, and scheduled but never sent) not
 *  answered well (hit, miss or STORED): answered with an error, lost or never
 *  sent; their count into *bad and *total. 0 when there were none. */
double mtl_report_error_rate(const struct mtl_results *res, uint64_t *bad, uint64_t *total);
/** Print the human-readable summary. */
void mtl_report_print(FILE *f, const struct mtl_config *cfg, const struct mtl_results *res);
/** Write the JSON document atomically (temporary file, then rename). @return 0 or errno. */
int mtl_report_write_json(const char *path, const struct mtl_config *cfg,
                          const struct mtl_results *res);
/** Write the corrected distribution as .hgrm (values in ms), atomically. @return 0 or errno. */
int mtl_report_write_hgrm(const char *path, const struct mtl_results *res);


/** The latency object of mtload's JSON {"mean","p50","p90","p99","p99.9",
 *  "p99.99","max","count"} in µs, from a histogram of ns values. Also used by
 *  the adapters (adapt.c) so every driver reports alike. */
json_t *mtl_latency_json(const struct mtl_hist *h);
/** Non-empty buckets as [[value_us, count], ...]. */
json_t *mtl_buckets_json(const struct mtl_hist *h);
#endif
