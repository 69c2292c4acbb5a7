/* perf.h - `perf stat` on a service for the measurement window only: it
 * starts with the driver and waits out the warm-up (-D) before counting,
 * and is stopped (SIGINT) when the driver returns; its CSV becomes the
 * record's "perf" object (events, per request, unsupported ones named). */
#ifndef MTB_PERF_H
#define MTB_PERF_H
#include <jansson.h>
#include <sys/types.h>
#include "lib/proc.h"

struct mtb_perf {
    const char *dir;         /* the run directory: perf.csv, perf.log */
    const char *events;      /* -e list (the machine profile's) */
    const char *raw;         /* the profile's raw events "label=rHEX,...": labels for rHEX names */
    int emulated;            /* a note that perf counts qemu-aarch64 */
    double warmup;           /* the workload's warm-up (the record says the window) */
    struct mtb_proc proc;
    int on;                  /* started */
};

/* perf stat on pid and every process of its process group, counting after
 * delay seconds (the warm-up). @return 1 started, 0 not. */
int mtb_perf_start(struct mtb_perf *p, pid_t pid, double delay);
/* For an embedded service (db_bench): start on its measured invocation
 * (arg: the struct mtb_perf; no warm-up to wait out). */
void mtb_perf_attach(pid_t pid, void *arg);
/* Stop and read perf.csv: {status, events, per_request, unsupported, ...}. */
json_t *mtb_perf_stop(struct mtb_perf *p, double requests);
/* {status: unavailable, requested, reason} */
json_t *mtb_perf_unavailable(const char *events, const char *reason);
#endif
