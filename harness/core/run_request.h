/* run_request.h - the run request (struct mtb_run): one run's identity
 * (service, variant, mode, allocator, platform, kernel, workload,
 * repetition), where it sits in its plan, how it is run (fault report,
 * core, counted, a trial's bug), and the record begun from it. Whoever performs the run (run/run.c here, the
 * agent step elsewhere: agent/) starts its record here, so that the identity
 * is set in one place. */
#ifndef MTB_RUN_REQUEST_H
#define MTB_RUN_REQUEST_H
#include <jansson.h>
#include "core/allocator.h"
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
    const struct mtb_allocator *allocator; /* NULL: glibc's malloc */
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
    int fault_report;                /* a fault's report with its objects and their stacks: the
                                        allocation record preloaded (probe/mtealloc.c; never timed
                                        runs: detect's trials, run --fault-report) */
    int core;                        /* keep the faulting process's core, slimmed, with its tags
                                        (run --core: a vm guest's run, where the guest's /init
                                        points core_pattern at a directory; run/core.h) */
    int count;                       /* count MTE's work (vm: the plugin; the guest's run marks the
                                        measured window): a counted run is never timed */
    const char *external_load;       /* on a server host: the load comes from client hosts; the
                                        handshake with the controller happens in this directory
                                        (remote.c); the service listens on every address */
    /* a detect trial's bug (docs/DETECTION.md), carried here, not in the
     * harness's environment: the switch its -bugs build turns on
     * (MTEBENCH_BUG in the service's environment), a synthetic plant
     * (MTEBENCH_PLANT) and the trigger file the trigger driver sends; NULL:
     * none */
    const char *bug_switch, *plant, *trigger;
};

/* The run's record begun: its identity (record.c, mtb_record_begin), set
 * once. kernel: config.kernel (NULL: run->kernel). */
json_t *mtb_run_record(const struct mtb_run *run, const char *kernel);
/* The run's identity over a record made elsewhere (a far side's). */
void mtb_run_identify(const struct mtb_run *run, const char *kernel, json_t *rec);
/* The record's "summary" of a load object (mtload's format). */
json_t *mtb_run_summary(json_t *load);
#endif
