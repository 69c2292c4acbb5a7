/* driver.h - load drivers: what puts load on a service and turns the
 * outcome into one record format (mtload's JSON: totals, latency_us,
 * histogram, timeseries, cpu). One file per driver (driver_<name>.c) in a
 * registry (driver.c); a service's recipe names its driver ([run] driver =
 * ...), so adding a service adds no harness code paths. */
#ifndef MTB_DRIVER_H
#define MTB_DRIVER_H
#include <jansson.h>
#include <sys/resource.h>
#include "core/build.h"
#include "core/machine.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "core/workload.h"
#include "lib/util.h"
#include "lib/argv.h"

struct mtb_drive {
    const struct mtb_recipe *recipe;
    const struct mtb_workload *wl;
    const struct mtb_build *build;
    const struct mtb_platform *platform;
    int port;                  /* the service's TCP port; 0 for embedded services */
    const char *rundir;
    char client_cpus[256];     /* "1-1": where a native client runs */
    const int *svc_cpus;       /* embedded services run on these */
    int nsvc;
    char *const *svc_env;      /* NAME=value for the measured program (tagging, fault file) */
    const char *user;          /* run the measured program as this user, or NULL */
    double timeout;            /* seconds for each step */
    int numa_node;             /* bind the measured program's memory here; -1: no binding */
    long ncli;                 /* client CPUs */
    char *client_seen;         /* read back: the CPUs the client's tasks may use (256 bytes) */
    char *service_seen;        /* the same for an embedded service (db_bench) */
    /* an embedded service: called when its measured invocation starts (run.c
     * attaches perf stat to it) */
    void (*measured_start)(pid_t pid, void *arg);
    void *measured_arg;
    const char *external;      /* --external-load: the handshake directory (driver_external.c) */
    const char *trigger;       /* a detect trial's trigger file (driver_trigger.c; the run's) */
    /* out: an embedded service's own counters over its measured benchmark
     * ("name": integer, the record's service_counters.delta), or left NULL */
    json_t **own_counters;
};

struct mtb_driver {
    const char *name;
    const char *summary;
    int embedded;              /* the driver runs the service's own binary (no server) */
    /* The workload fields it honours (bits 1u << MTB_WL_<field>); any other
     * field must hold the field list's default, or the run is refused
     * naming it (mtb_driver_check). service_threads is the service's
     * ({threads} in its command line), never a driver's. */
    unsigned honours;
    /* The arrivals its open loop draws whatever it is asked ("poisson":
     * pgbench's --rate); NULL: it takes the workload's ARRIVAL.
     * mtb_opts_resolve sets its own and refuses another one asked for. */
    const char *arrival;
    /* NULL, or refusals that depend on the values (db_bench: a weighted
     * value-size list; pgbench: mix and keys without the kv script).
     * @return 0, or -1 with why. */
    int (*check)(const struct mtb_workload *w, char *why, size_t n);
    /* Fill the data set before measuring. @return 0, or -1 with why. */
    int (*preload)(const struct mtb_drive *d, char *why, size_t n);
    /* Warm up and measure. @return the load object, or NULL with why. */
    json_t *(*measure)(const struct mtb_drive *d, char *why, size_t n);
    /* The client program client hosts run in its place (clients.c), for a
     * driver that is no mtload protocol: "pgbench"; NULL: none (a recipe
     * without an mtload [run] protocol is then refused client hosts). */
    const char *client_hosts;
};

/* every workload field (a driver's honours) */
#define MTB_WL_EVERY ((1u << MTB_WL_NFIELDS) - 1)

extern const struct mtb_driver mtb_driver_mtload, mtb_driver_wrk, mtb_driver_pgbench, mtb_driver_dbbench;
extern const struct mtb_driver mtb_driver_external; /* not a recipe's choice: --external-load */
/* mtebench detect's: a bug's trigger bytes, then a liveness check (driver_trigger.c) */
extern const struct mtb_driver mtb_driver_trigger;
/* The bytes of a bug's trigger.hex (hex digits, '#' comments, a line
 * "*N hex..." repeated N times). @return them (to be freed) with *len, or
 * NULL with why. With cuts (MTB_TRIGGER_MAXCUTS), *ncuts offsets where a
 * line "--" asks for a pause before sending on. */
#define MTB_TRIGGER_MAXCUTS 8
unsigned char *mtb_trigger_read(const char *path, size_t *len, size_t *cuts, int *ncuts, char *why, size_t n);
/* The driver of a workload: its [workload] driver, else the recipe's [run]
 * driver, else mtload; NULL when that name is unknown (*name says it). */
const struct mtb_driver *mtb_driver_of(const struct mtb_workload *w, const char **name);
/* Refuse a workload field the driver does not honour (set away from its
 * default), or what its own check refuses, before any run.
 * @return 0, or -1 with why naming the field and the driver. */
int mtb_driver_check(const struct mtb_driver *drv, const struct mtb_workload *w, char *why, size_t n);
/* db_bench's options for a value size in mtload's syntax: N (fixed), MIN-MAX
 * (--value_size_distribution_type=uniform); a weighted list only when all
 * its sizes are one. @return 0, or -1 with why (a is left as it was). */
int mtb_dbbench_value_size(const char *spec, struct mtb_argv *a, char *why, size_t n);
/* pgbench (driver_pgbench.c), also run from client hosts (clients_pgbench.c):
 * the key-value scripts (DIR/kv-get.sql and kv-set.sql, keys 1..KEYS; their
 * paths into get and set) @return 0 or -1; its per-transaction logs
 * (PREFIX.*) folded into ad, leaving out transactions that started before
 * skip (epoch seconds; 0: none) @return 0, or -1 with why; and the
 * transactions one `pgbench -n` invocation with CLIENTS connections commits
 * on the server beside its script's (a built-in script or not). */
struct mtl_adapt;
int mtb_pgbench_kv_write(const char *dir, long keys, char *get, char *set, size_t n);
int mtb_pgbench_fold_logs(const char *prefix, double skip, struct mtl_adapt *ad, char *why, size_t n);
long mtb_pgbench_setup_xacts(int builtin, long clients);
/* What drivers share: a workload parameter or dflt; "WHAT failed (status);
 * see LOG" into why (@return -1) unless st is 0; a mix's SET and GET parts;
 * a preload that does nothing. */
const char *mtb_driver_param(const struct mtb_drive *d, const char *k, const char *dflt);
int mtb_driver_failed(int st, const char *what, const char *logp, char *why, size_t n);
void mtb_driver_mix_parts(const char *mix, long *set, long *get);
int mtb_driver_no_preload(const struct mtb_drive *d, char *why, size_t n);
/* Run argv with output appended to logp (the command line first), with
 * extra env, as user, pinned to cpus; bounded by timeout.
 * @return wait status, -ETIMEDOUT or -errno. */
int mtb_driver_exec(const struct mtb_drive *d, struct mtb_argv *argv, char *const *env, const char *logp,
                    const int *cpus, int ncpus, const char *user);
/* The same for any lib/proc.h spawn request (memory bound to a NUMA node,
 * the CPUs its tasks may use read back while it runs, a call once it has
 * started): its command line logged into s->log_path first, bounded by the
 * drive's timeout. @return wait status, -ETIMEDOUT or -errno. */
struct mtb_spawn;
int mtb_driver_spawn(const struct mtb_drive *d, const struct mtb_spawn *s);
/* Run a client program (native, pinned to the client CPUs) and add its CPU
 * use over `seconds` to load as {"cpu": {user_s, sys_s, busy, client_bound}}
 * (busy = CPU seconds / (seconds x client CPUs); bound above 0.9). */
int mtb_driver_exec_client(const struct mtb_drive *d, struct mtb_argv *argv, const char *logp, struct rusage *ru);
void mtb_driver_cpu(const struct mtb_drive *d, json_t *load, const struct rusage *ru, double seconds);
/* A client that runs for a time: run(d, seconds, log, measured, arg), 0 or a
 * status for mtb_driver_failed. */
typedef int (*mtb_driver_run_fn)(const struct mtb_drive *d, double secs, const char *logp, int measured, void *arg);
/* Run it for the warm-up, if any, into RUNDIR/NAME-warmup.log, then for the
 * measurement into RUNDIR/NAME.log. @return 0 with *logp (the measured
 * log's path) and *text (what it holds; NULL when unreadable), both to be
 * freed; -1 with why naming the run that failed ("NAME warm-up", "NAME"). */
int mtb_driver_warm_measure(const struct mtb_drive *d, const char *name, mtb_driver_run_fn run, void *arg, char **logp,
                            char **text, char *why, size_t n);
#endif
