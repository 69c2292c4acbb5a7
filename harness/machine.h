/* machine.h - machine profiles (configs/machines/<name>.conf): which CPUs
 * the service and the load generator get, how many threads each runs, and
 * which perf events are counted on the service during a run. The profile
 * `auto` splits the CPUs in halves. */
#ifndef MTB_MACHINE_H
#define MTB_MACHINE_H
#include <jansson.h>
#include <stddef.h>

#define MTB_MAX_CPUS 1024

struct mtb_machine {
    char name[64];
    char summary[256];
    int svc_cpus[MTB_MAX_CPUS], nsvc;
    int cli_cpus[MTB_MAX_CPUS], ncli;
    long service_threads;   /* 0: the recipe's default */
    long loadgen_threads;   /* 0: the workload's default */
    char perf_events[256];  /* comma-separated, "" = none */
};

/* Parse "0-3,8,10-11" into cpus. @return count, or -1 when malformed. */
int mtb_cpulist_parse(const char *s, int *cpus, int max);
/* "0-3,8" from a list. */
void mtb_cpulist_format(const int *cpus, int n, char *buf, size_t len);
/* Load a profile by name (configs/machines/NAME.conf) or path; "auto" or
 * NULL gives the halves split. Checks the CPUs exist here.
 * @return 0, or -1 with a message in err. */
int mtb_machine_load(const char *name, struct mtb_machine *m, char *err, size_t errlen);
/* The profile as recorded in a run record. */
json_t *mtb_machine_json(const struct mtb_machine *m);
#endif
