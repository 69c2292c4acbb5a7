/* service.h - the life of a server in one run: the user it runs as, its
 * setup (and the setup's reuse cache), start on a free port (pinned, as its
 * user, in its own process group), readiness, the CPUs its tasks may use,
 * its own counters, and stop. Embedded services (db_bench) have none of
 * this: their driver runs them. */
#ifndef MTB_SERVICE_H
#define MTB_SERVICE_H
#include <jansson.h>
#include "core/build.h"
#include "drivers/driver.h"
#include "core/platform.h"
#include "lib/proc.h"
#include "core/recipe.h"
#include "core/workload.h"

struct mtb_service {
    const struct mtb_recipe *recipe;
    const struct mtb_workload *wl;
    const struct mtb_build *build;
    const struct mtb_platform *platform;
    const char *dir;           /* the run directory: service.log, setup.log */
    const char *user;          /* run as this user (mtebench as root), or NULL */
    char *const *env;          /* the mode's environment: tagging, fault reporter */
    const int *cpus;           /* pinned here */
    int ncpus;
    int numa_node;             /* memory bound here; -1: not */
    const char *listen;        /* {listen} in [run] args: "127.0.0.1" (NULL), or "0.0.0.0" when
                                  client hosts load it (remote.c) */
    /* set by the steps */
    int port;
    int port_fd;               /* the reserved port, held until the service starts (-1: none) */
    int counters_hung;         /* the counter query got no answer in time */
    struct mtb_proc proc;
    int started;
    char seen[256];            /* the CPUs its tasks may use, read back */
};

/* The user exists, owns the run directory and can reach it and the build.
 * @return 0, or -1 with why. */
int mtb_service_check_user(const struct mtb_service *s, char *why, size_t n);
/* A free port (reserved: held until the service starts; MTEBENCH_PORT, a
 * test hook, asks for that one), then the recipe's setup script ([run] setup) as the
 * service's user, or a copy of what an earlier run's setup made
 * ([run] setup_reuse: rec gets "setup"). @return 0, or -1 with why. */
int mtb_service_setup(struct mtb_service *s, const struct mtb_drive *d, json_t *rec, char *why, size_t n);
/* Start it (rec gets "service_command"). @return 0, or -1 with why. */
int mtb_service_start(struct mtb_service *s, json_t *rec, char *why, size_t n);
/* Poll readiness within a limit (rec gets "ready_seconds"); the listener
 * that answered must be the service's (its process group's, from
 * /proc/net/tcp and /proc/PID/fd), never another program that took the
 * port; then read the CPUs of its tasks. @return 0, or -1 with why. */
int mtb_service_ready(struct mtb_service *s, json_t *rec, char *why, size_t n);
/* Add the CPUs its tasks may use now (threads started under load). */
void mtb_service_seen_update(struct mtb_service *s);
/* Its own counters ([run] counters: "name value" lines), or NULL; NULL
 * and counters_hung set when the query gave no answer within
 * MTB_SERVICE_COUNTERS_LIMIT s (a stopped or foreign service must not hold
 * the harness forever). */
#define MTB_SERVICE_COUNTERS_LIMIT 10
json_t *mtb_service_counters(struct mtb_service *s);
/* {before, after, delta, note} after [run] counters_settle. */
json_t *mtb_service_counters_since(struct mtb_service *s, json_t *before);
/* Stop it ([run] stop_signal, a grace period, SIGKILL; rec gets
 * "service_exit"); nothing when it never started. */
void mtb_service_stop(struct mtb_service *s, json_t *rec);
/* The last lines of a log on stderr. */
void mtb_service_log_tail(const char *path, int lines);
#endif
