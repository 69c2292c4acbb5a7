/* run.h - one run: (service, variant, mode, platform, kernel, workload,
 * repetition). Proves the mode, starts the service, drives it with mtload,
 * stops it and writes the run's record atomically. */
#ifndef MTB_RUN_H
#define MTB_RUN_H
#include <jansson.h>
#include "core/run_request.h" /* struct mtb_run: what the run is, its record begun */


/* Perform the run, where its platform says (platform->run: the vm, or a
 * server host's placement, remote.c), else here in steps; *record receives
 * the record (also written to dir/record.json). */
enum mtb_run_status mtb_run_one(const struct mtb_run *run, json_t **record);
#endif
