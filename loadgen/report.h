/* report.h - mtload's outputs: the human table, JSON (schema mtload/1), .hgrm. */
#ifndef MTL_REPORT_H
#define MTL_REPORT_H
#include <stdio.h>
#include "config.h"
#include "engine.h"

#define MTL_JSON_SCHEMA "mtload/1"

/** Print the human-readable summary. */
void mtl_report_print(FILE *f, const struct mtl_config *cfg, const struct mtl_results *res);
/** Write the JSON document atomically (temporary file, then rename). @return 0 or errno. */
int mtl_report_write_json(const char *path, const struct mtl_config *cfg,
                          const struct mtl_results *res);
/** Write the corrected distribution as .hgrm (values in ms), atomically. @return 0 or errno. */
int mtl_report_write_hgrm(const char *path, const struct mtl_results *res);
#endif
