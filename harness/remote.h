/* remote.h - a run whose service runs on a server host (the machine
 * profile's server_host, --server-host), optionally loaded from client hosts
 * (client_hosts, --client-hosts).
 *
 * The controller's side (mtb_remote_run): the agent step over the ssh
 * transport: the run's build put on the server host (by its key), the far
 * `mtebench run` executed there with the same service, variant, mode,
 * platform and workload, and its record brought back: the proof, pinning,
 * perf counters, the service's counters, provenance and the quiet check are
 * the server host's. With client hosts the far run serves instead of driving
 * (mtb_remote_serve); the controller starts the clients together
 * (clients.c), reads the service's request counters before and after over
 * ssh (the far side: driver_external.c), merges the clients' histograms into the record's load and checks the
 * merged request count against the counters. */
#ifndef MTB_REMOTE_H
#define MTB_REMOTE_H
#include <jansson.h>
#include <stddef.h>

struct mtb_run;

/* One run on the profile's server host; writes run->dir/record.json.
 * @return an enum mtb_run_status. */
int mtb_remote_run(const struct mtb_run *run, json_t **record);

struct mtb_machine;
struct mtb_platform;
/* Which build of a service runs (the platform's target): on a server
 * host, PLATFORM=host means that host's own CPU, an arm64 MTE server:
 * "aarch64" (cross-built here); else the platform's target. */
const char *mtb_remote_target(const struct mtb_machine *m, const struct mtb_platform *p);
/* A run where the profile says: on its server host (mtb_remote_run), else
 * here (mtb_run_one). @return an enum mtb_run_status. */
int mtb_run_anywhere(const struct mtb_run *run, json_t **record);
#endif
