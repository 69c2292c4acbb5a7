/* prom.h - Prometheus textfiles (`--prom-textfile DIR` on bench, plan and
 * nightly): a run's and its summary's figures in the text exposition format
 * 0.0.4 for node_exporter's textfile collector (docs/FORMATS.md). Written to a
 * temporary file in DIR (not *.prom, so never read half-written) and renamed.
 * Labels are bounded: service, variant, mode, platform, kernel, host, workload
 * name, mtebench version (and, on their metrics, percentile, stat and a
 * capacity search's slo bound). */
#ifndef MTB_PROM_H
#define MTB_PROM_H
#include <jansson.h>
#include <stddef.h>
#include "lib/err.h"

/** The directory given with --prom-textfile, or NULL. */
extern const char *mtb_prom_dir;

/** Check and remember --prom-textfile DIR: a directory this process can write
 *  into. @return 0, or -1 with e set (bad input, named: before any run). */
int mtb_prom_set_dir(const char *dir, struct mtb_err *e);


/** When --prom-textfile was given: mtb_prom_write, a failure said on stderr.
 *  @return 0, or 1 when the textfile could not be written. */
int mtb_prom_after(const char *job, json_t *sum);
#endif
