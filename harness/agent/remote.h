/* remote.h - a run whose service runs on a server host (the machine
 * profile's server_host, --server-host), optionally loaded from client hosts
 * (client_hosts, --client-hosts): a placement of the host or emu platform.
 *
 * mtb_remote_platform(p) is p with its run performed there: the agent step
 * (agent.c) over the ssh transport, as the vm's is over the console: the
 * run's build put on the server host (by its key), the far `mtebench run`
 * on platform p there, its record brought back with the run's identity:
 * the proof, pinning, perf counters, the service's counters, provenance and
 * the quiet check are the server host's; the record adds `hosts` (the
 * server's facts as the transport saw them, the controller). With client
 * hosts the far run serves instead of driving (--external-load: its driver
 * is driver_external.c); while it runs, the controller warms up and
 * measures from the client hosts (clients.c), reads the service's request
 * counters before and after through the transport's shell, merges the
 * clients' histograms into the record's load and checks the merged request
 * count against the counters. */
#ifndef MTB_REMOTE_H
#define MTB_REMOTE_H
#include <jansson.h>
#include <stddef.h>

struct mtb_machine;
struct mtb_platform;
/* Platform p placed on the profile's server host: p's table with its run
 * performed there, and its target the far host's ("aarch64" where p's is
 * "native": PLATFORM=host there is an arm64 MTE server's own CPU). NULL
 * past 4 platforms placed (there are 3). */
const struct mtb_platform *mtb_remote_platform(const struct mtb_platform *p);
/* Which build of a service runs (the platform's target): on a server
 * host, PLATFORM=host means that host's own CPU, an arm64 MTE server:
 * "aarch64" (cross-built here); else the platform's target. */
const char *mtb_remote_target(const struct mtb_machine *m, const struct mtb_platform *p);
#endif
