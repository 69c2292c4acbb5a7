/* machine.h - machine profiles (configs/machines/<name>.conf): which CPUs
 * the service and the load generator get, the NUMA node for memory, the
 * server core counts to sweep, how many threads each side runs, which perf
 * events (generic and raw, per microarchitecture) are counted on the service
 * during a run, and the clock/SMT settings the quiet-machine check expects.
 * The profile `auto` splits the CPUs in halves. */
#ifndef MTB_MACHINE_H
#define MTB_MACHINE_H
#include "lib/cpus.h" /* MTB_MAX_CPUS, CPU lists */
#include <jansson.h>
#include <stddef.h>

#define MTB_MAX_SWEEP 32

struct mtb_machine {
    char name[64];
    char summary[256];
    char path[512];          /* the file it came from ("" for auto) */
    int svc_cpus[MTB_MAX_CPUS], nsvc;
    int cli_cpus[MTB_MAX_CPUS], ncli;
    int swp_cpus[MTB_MAX_CPUS], nswp; /* what a core sweep draws from (default: service_cpus) */
    int svc_line, cli_line, swp_line, types_line; /* where the CPU lists are in the file */
    int cpus;                /* CPUs of the machine the profile is written for (0: not said) */
    int allow_overlap;       /* service and client may share CPUs */
    int numa_node;           /* memory bound to this node; -1: no binding */
    int numa_strict;         /* 1 (default): a binding that fails refuses the run; 0: run unbound */
    char numa_warning[320];  /* set when the binding failed and the run goes unbound */
    int cores[MTB_MAX_SWEEP], ncores; /* server core counts to sweep (0: none) */
    char type_name[MTB_MAX_SWEEP][24];  /* core_types = little:0, big:4, ...: one */
    int type_cpu[MTB_MAX_SWEEP], ntypes; /* sweep point per core type, on that CPU */
    long service_threads;    /* 0: the recipe's default */
    long loadgen_threads;    /* 0: the workload's default */
    char perf_events[512];   /* generic events, comma-separated, "" = none */
    char perf_raw[512];      /* raw events "label=rHEX,...", for the microarchitecture */
    char microarch[64];      /* what the raw events are for, e.g. "AmpereOne" */
    char cpu_parts[128];     /* MIDR "implementer:part" pairs the profile suits, e.g. "0xc0:0xac3" */
    char governor[32];       /* the frequency governor expected ("" = not checked) */
    int set_governor;        /* set it for the run(s) and restore it afterwards */
    int boost_off;           /* turbo/boost should be off */
    int smt_siblings_ok;     /* SMT siblings inside the service set are fine */
    /* where the parts run (transport_ssh.c): "" or "local" = this machine */
    char server_host[256];   /* [user@]host[:port]: the service runs and its record is made there */
    char client_hosts[1024]; /* h1,h2,...: mtload runs on each with its share of the load */
    char server_address[256];/* the address the clients reach the server at (default: the one ssh reached) */
};

/* Parse a profile file without checking it against this machine.
 * @return 0, or -1 with "FILE:LINE: what" in err. */
int mtb_machine_parse(const char *path, struct mtb_machine *m, char *err, size_t errlen);
/* Load a profile by name (configs/machines/NAME.conf) or path; "auto" or
 * NULL gives the halves split. Checks the CPUs exist here (naming the file
 * and line of a list that does not fit). @return 0, or -1 with err. */
int mtb_machine_load(const char *name, struct mtb_machine *m, char *err, size_t errlen);
/* The profile names a server host other than this machine. */
int mtb_machine_remote(const struct mtb_machine *m);
/* mtb_machine_load with the profile's hosts overridden (NULL: the
 * profile's; "local": this machine; client_hosts "none": no client hosts);
 * the CPU lists are checked here only when the server is this machine. */
int mtb_machine_load_hosts(const char *name, const char *server_host, const char *client_hosts, struct mtb_machine *m,
                           char *err, size_t errlen);
/* The service CPUs of a sweep point: the first `cores` of the sweep set
 * (the service set for cores <= 0). @return the count. */
int mtb_machine_svc_slice(const struct mtb_machine *m, long cores, int *cpus);
/* "instructions,cycles,r4005" for perf -e: the generic events and the raw ones. */
char *mtb_machine_perf_list(const struct mtb_machine *m);
/* The profile as recorded in a run record. */
json_t *mtb_machine_json(const struct mtb_machine *m);
/* Which shipped profile suits a machine with ncpus CPUs, this /proc/cpuinfo
 * text and nnodes NUMA nodes; *why says on what grounds. */
const char *mtb_machine_suggest(int ncpus, const char *cpuinfo, int nnodes, char *why, size_t whylen);
#endif
