/* run.h - one run: (service, variant, mode, platform, kernel, workload,
 * repetition). Proves the mode, starts the service, drives it with mtload,
 * stops it and writes the run's record atomically. */
#ifndef MTB_RUN_H
#define MTB_RUN_H
#include <jansson.h>
#include "core/build.h"
#include "core/machine.h"
#include "core/mode.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "core/workload.h"
#include "core/record.h" /* the record: schema, writing */

struct mtb_run {
    const struct mtb_recipe *recipe;
    const char *variant;
    const struct mtb_mode *mode;
    const struct mtb_platform *platform;
    const char *kernel;              /* "host", or a named kernel / Image path (vm) */
    const struct mtb_workload *wl;
    const struct mtb_build *build;
    const struct mtb_machine *machine;   /* CPUs, threads, perf events */
    int rep, index, total;           /* repetition (1-based), position in the plan */
    const char *plan;
    const char *dir;                 /* this run's directory (created) */
    json_t *environment;             /* provenance and the quiet check, shared by a plan's runs */
    int quiet;
    const char *external_load;       /* on a server host: the load comes from client hosts; the
                                        handshake with the controller happens in this directory
                                        (remote.c); the service listens on every address */
};

/* Perform the run, where its platform says (platform->run: the vm, or a
 * server host's placement, remote.c), else here in steps; *record receives
 * the record (also written to dir/record.json). */
enum mtb_run_status mtb_run_one(const struct mtb_run *run, json_t **record);
/* The run's record begun: its identity (record.c, mtb_record_begin), set
 * once. kernel: config.kernel (NULL: run->kernel). */
json_t *mtb_run_record(const struct mtb_run *run, const char *kernel);
/* The run's identity over a record made elsewhere (a far side's). */
void mtb_run_identify(const struct mtb_run *run, const char *kernel, json_t *rec);
/* The record's "summary" of a load object (mtload's format). */
json_t *mtb_run_summary(json_t *load);
/* The record's headline figures (from its "summary"); 0 if absent. */
double mtb_record_num(json_t *rec, const char *key);
#endif
