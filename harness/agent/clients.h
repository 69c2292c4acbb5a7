/* clients.h - load from several client hosts (over the ssh transport).
 *
 * Each client host runs mtload with its share of the connections (and of the
 * rate, open loop), all started at one wall-clock instant: the controller
 * picks the instant on its own clock and passes each host that instant on
 * the host's clock (its offset measured at connect). Each writes its full
 * histogram and time series; the controller merges them by adding the
 * histograms bucket by bucket (loadgen/hist.c), never by averaging
 * percentiles. A client that fails, starts late or ends early fails the
 * whole load with its name and reason: a partial merge is never a result. */
#ifndef MTB_CLIENTS_H
#define MTB_CLIENTS_H
#include <jansson.h>
#include <stddef.h>
#include "core/workload.h"
#include "lib/argv.h"

struct mtb_session;

struct mtb_clients {
    int n;
    char **hosts;                 /* as given: [user@]host[:port] */
    struct mtb_session **s;
    char *workdir;
};

/* What every client runs, in total (shares of conns and rate are made
 * here; mtload's flags come from the workload's field list). */
struct mtb_client_load {
    const char *server;           /* HOST:PORT as the clients reach it */
    const char *protocol;         /* memcache, http (mtload's) */
    const char *tool;             /* what each host runs: NULL (mtload) or "pgbench" */
    struct mtb_workload wl;       /* the load: every field as mtload takes it */
    double late_limit;            /* seconds a start may be late (0: 0.25) */
};

/* Connect to every host of the comma-separated list (sessions stay open).
 * @return 0, or -1 with err naming the host. */
int mtb_clients_open(struct mtb_clients *c, const char *csv, const char *workdir, char *err, size_t errlen);
void mtb_clients_close(struct mtb_clients *c);

/* Run the load on every client host, started together, into dir/<host>/.
 * @return the merged load (mtload's format plus "clients": per host
 * identity, clock offset, share, start lateness, client-bound flag, CPU use,
 * its own totals and latency), or NULL with err naming the failed client
 * and why (the per-host results stay in dir). */
json_t *mtb_clients_run(struct mtb_clients *c, const struct mtb_client_load *l, const char *dir, char *err,
                        size_t errlen);


/* pgbench from client hosts (clients_pgbench.c): one host's share as the
 * far `client-load --tool=pgbench` arguments (after "--": pgbench's own,
 * with -n; the far side adds its per-transaction log); its logs, brought
 * back into dir, folded into mtload's format (dir/load.json), with
 * totals.setup: the transactions pgbench's own connections and table checks
 * commit on the server; cj: the host's client.json (its CPU use).
 * @return 0 / the load, or -1 / NULL with why. */
int mtb_clients_pgbench_argv(const struct mtb_client_load *l, const struct mtb_workload *share, struct mtb_argv *a,
                             char *why, size_t n);
json_t *mtb_clients_pgbench_fold(const char *dir, const struct mtb_workload *share, json_t *cj, char *why, size_t n);
/* The address each client host reaches the server address from (`ip route
 * get` there; else ssh's SSH_CONNECTION), space-separated, to be freed; or
 * NULL with err naming the host. */
char *mtb_clients_sources(struct mtb_clients *c, const char *server_addr, char *err, size_t errlen);

/* The far side of a client host (`mtebench client-load`): wait for the
 * instant at (wall clock, 0: now), run mtload with args (or, tool
 * "pgbench", pgbench with its per-transaction log out/pgbench_tx.*, folded
 * by the controller, and with kv_keys > 0 the kv scripts in out), and
 * write out/load.json and out/client.json (start lateness, CPU use, exit).
 * @return 0 when the tool exited 0, else 1 */
int mtb_clients_far_load(double at, const char *out, const char *tool, long kv_keys, char *const *args, int nargs);
#endif
