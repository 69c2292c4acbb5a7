/* plan_work.h - counted runs (docs/COUNTING.md): a configuration's MTE work
 * counted once on the vm platform with the plugin (run/ `.count`), never
 * timed; for bench's counted pair (cmd/bench_work.c) and a plan's or a
 * nightly's `count` ([plan] count = yes | only: plan.c's plan_count). */
#ifndef MTEBENCH_PLAN_WORK_H
#define MTEBENCH_PLAN_WORK_H
#include <jansson.h>
#include <stddef.h>

struct mtb_recipe;
struct mtb_workload;
struct mtb_mode;
struct mtb_allocator;
struct mtb_machine;

/* the seconds of load a counted run's window spans */
#define MTB_WORK_SECONDS 2.0
/* a counted run's load: one connection, one request in flight, and (mtload)
 * this many requests a second, open loop: a gap of 5 ms, several times what
 * a request takes in a counted guest, so each finds the service asleep */
#define MTB_WORK_RATE 200.0

/* What one counted run is: a configuration on vm, and where it goes. */
struct mtb_work_req {
    const struct mtb_recipe *recipe;
    const struct mtb_workload *wl;         /* its load, run with no warm-up and MTB_WORK_RATE's rate */
    double seconds;                        /* of load (0: MTB_WORK_SECONDS) */
    const char *variant;
    const struct mtb_mode *mode;
    const struct mtb_allocator *allocator;
    const char *kernel;                    /* a name, an Image path or git:PATH@REF */
    const struct mtb_machine *machine;
    const char *dir;                       /* into DIR/work/NNN-VARIANT-MODE-KERNEL/ */
    int index, total;                      /* NNN, and the progress line's "of total" */
    int quiet;
};
/* One counted run. @return its record (with `work`; *file, when file is
 * given, its path: free it), or NULL when the build or the run failed
 * (said on stderr). */
json_t *mtb_work_count_one(const struct mtb_work_req *q, char **file);

/* 1 when counted runs can be made here (the vm platform usable, the plugin
 * built, TCG); 0 with why. */
int mtb_work_countable(char *why, size_t n);

#endif
