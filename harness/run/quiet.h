/* quiet.h - is the machine quiet enough to measure on? Before a plan (and a
 * single run) the harness checks, on the profile's CPUs: the frequency
 * governor, turbo/boost, SMT siblings inside the service set (or shared with
 * the client), background load (loadavg, busy CPUs and the processes keeping
 * them busy), swap, and transparent huge pages. Each finding is a warning;
 * with --strict the plan is refused. A setting the harness changes (the
 * governor, when the profile says set_governor = yes) is put back on exit,
 * also on Ctrl-C. */
#ifndef MTB_QUIET_H
#define MTB_QUIET_H
#include "lib/err.h"
#include <jansson.h>
#include "core/machine.h"

/* The 1-minute load average decays over about a minute after work ends, so
 * a plan started right after another job would read "busy" on an idle
 * machine (a nightly run after the previous one: the night was kept out of
 * the change-point test). It says something else is running when it passes
 * MTB_QUIET_LOAD_PER_CPU per CPU and some CPU of the machine was at least
 * MTB_QUIET_IDLE_CPU busy over the sample; otherwise the check records it as
 * the tail of ended work (checks.loadavg_tail), not a warning. */
#define MTB_QUIET_LOAD_PER_CPU 0.25
#define MTB_QUIET_IDLE_CPU 0.10
int mtb_quiet_load_busy(double load1, int ncpu, double busiest_cpu);
/* The CPU sample of the check before a plan or a run: 0.5 s, or
 * MTEBENCH_QUIET_SAMPLE seconds (0.05 to 10; the test suite's runs use 0.1:
 * the sample is a wait, and a suite makes hundreds of runs). The record
 * keeps the sample taken (checks.sample_seconds). */
#define MTB_QUIET_SAMPLE_S 0.5
void mtb_quiet_restore(void);
/* The environment block of every run of a plan: provenance and the quiet
 * check; warns on stderr. with_floor: the machine's latency floor measured
 * too (run/floor.h: a plan's check and `quiet`, not each single or far run,
 * where it would cost ~6 s a run); otherwise checks.floor says it was not
 * measured. NULL with e set (bad input, the machine as it was): with strict,
 * a machine not quiet; a bad MTEBENCH_QUIET_SAMPLE or MTEBENCH_FLOOR. */
json_t *mtb_quiet_environment(const struct mtb_machine *m, int strict, int quiet_output, int with_floor,
                              struct mtb_err *e);
#endif
