/* bench_work.h - bench's counted pair (docs/COUNTING.md): where timings
 * cannot speak for MTE (no MTE hardware), `bench` first counts the work of
 * the baseline and of the measured configuration, exactly, on the vm
 * platform, and prints the work table before its emulated timings;
 * compare-kernels counts the measured configuration on each kernel. */
#ifndef MTEBENCH_BENCH_WORK_H
#define MTEBENCH_BENCH_WORK_H
#include "plan/opts.h"

#define MTB_WORK_MAXK 8
struct mtb_bench_work {
    const struct mtb_opts *o;
    const char *kernels[MTB_WORK_MAXK]; /* compare-kernels: count tagged/MODE on each; none: bench's pair */
    int nkernels;
    int failed; /* COUNT=1 and the work was not counted (said on stderr) */
};

/* A plan's before_runs (plan/plan.h), arg a struct mtb_bench_work.
 * MTEBENCH_WORK (COUNT=): "auto" (the default: on a machine without MTE
 * when the vm platform and the counting plugin are usable here), "1" (must
 * count: a reason it cannot is an error), "0" (never). Counts into
 * DIR/work/, prints the table. */
void mtb_bench_work(const char *dir, void *arg);
#endif
