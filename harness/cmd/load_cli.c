/* load_cli.c - `mtebench load` (drive a server from several client hosts
 * at once) and `mtebench client-load` (a client host's side of it): their
 * options; agent/clients.c does the work. */
#include "cmd/commands.h"
#include "agent/clients.h"
#include "agent/transport_ssh.h"
#include "core/load_rows.h"
#include "core/workload.h"
#include "lib/files.h"
#include "lib/opttab.h"
#include "lib/util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- client-load: the client host's side --------------------------------------- */

enum { O_START_AT = 1, O_OUT, O_TOOL, O_KV_KEYS, O_HELP };
static const struct mtb_opt far_opts[] = {
    MTB_OPT("start-at", "EPOCH", NULL, O_START_AT, NULL, "start at this instant of the host's wall clock"),
    MTB_OPT("out", "DIR", NULL, O_OUT, NULL, "load.json, client.json and the tool's log go here"),
    MTB_OPT("tool", "T", NULL, O_TOOL, NULL, "mtload (default) or pgbench (every transaction logged)"),
    MTB_OPT("kv-keys", "N", NULL, O_KV_KEYS, NULL, "pgbench: the key-value scripts for N keys, written in DIR"),
    MTB_OPT("help", NULL, NULL, O_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const far_tabs[] = { far_opts, NULL };

static void far_usage(FILE *f)
{
    fprintf(f, "usage: mtebench client-load --start-at=EPOCH --out=DIR [--tool=mtload|pgbench] [--kv-keys=N] "
               "-- MTLOAD-OR-PGBENCH-ARGS\n"
               "  (on a client host, started by `mtebench load` and the client hosts of a bench)\n");
    mtb_opt_help(f, far_tabs, "client-load");
}

int mtb_cmd_client_load(int argc, char **argv)
{
    double at = 0;
    const char *out = NULL, *tool = "mtload";
    long kv_keys = 0;
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "client-load", 0);
    int c, bad = 0;
    while (!bad && (c = mtb_opt_next(&p, far_tabs)) > 0) {
        switch (c) {
        case O_START_AT: at = atof(p.val); break;
        case O_OUT: out = p.val; break;
        case O_TOOL:
            if (strcmp(p.val, "mtload") && strcmp(p.val, "pgbench"))
                snprintf(p.err, sizeof p.err, "--tool %s: accepted mtload, pgbench", p.val), bad = 1;
            tool = p.val;
            break;
        case O_KV_KEYS:
            if (mtb_parse_long(p.val, 1, 1L << 40, &kv_keys) != 0)
                snprintf(p.err, sizeof p.err, "--kv-keys %s: a number of keys from 1", p.val), bad = 1;
            break;
        case O_HELP: far_usage(stdout); mtb_opt_free(&p); return 0;
        }
    }
    int dd = 0; /* where "--" is: the tool's arguments come after it, nothing before */
    while (dd < argc && strcmp(argv[dd], "--"))
        dd++;
    if (!bad && c != MTB_OPT_ERR && p.npos > argc - dd - 1)
        snprintf(p.err, sizeof p.err, "unexpected argument '%s' before -- (the tool's arguments follow --)", p.pos[0]),
            bad = 1;
    if (bad || c == MTB_OPT_ERR || !out || !p.npos) {
        fprintf(stderr, "mtebench client-load: %s\n", bad || c == MTB_OPT_ERR ? p.err : !out ? "no --out DIR" : "no tool arguments after --");
        far_usage(stderr);
        mtb_opt_free(&p);
        return 2;
    }
    int rc = mtb_clients_far_load(at, out, tool, kv_keys, p.pos, p.npos);
    mtb_opt_free(&p);
    return rc;
}

/* ---- load: several client hosts at once ----------------------------------------- */

enum { L_HOSTS = 1, L_SERVER, L_PROTOCOL, L_OUT, L_LATE, L_HELP, L_WL = 100 };
#define WL(f) (L_WL + MTB_WL_##f)
static const struct mtb_opt load_opts[] = {
    MTB_OPT("client-hosts", "H1,H2", NULL, L_HOSTS, NULL, "the client hosts ([user@]host[:port], by ssh)"),
    MTB_OPT("server", "HOST:PORT", NULL, L_SERVER, NULL, "the server they drive"),
    MTB_OPT("out", "DIR", NULL, L_OUT, NULL, "DIR/<host>/ for each host, DIR/load.json merged"),
    MTB_OPT("protocol", "P", NULL, L_PROTOCOL, NULL, "memcache (default) or http"),
    MTB_OPT("conns", "N", NULL, WL(conns), NULL, "total connections, shared among the hosts (default 16)"),
    MTB_OPT("threads", "N", NULL, WL(threads), NULL, "mtload threads on each host (default 1)"),
    MTB_OPT("pipeline", "N", NULL, WL(pipeline), NULL, "requests in flight per connection (default 1)"),
    MTB_OPT("rate", "R", NULL, WL(rate), NULL, "open loop at R requests/s in all, shared (default closed loop)"),
    MTB_OPT("mix", "S:G", NULL, WL(mix), NULL, "SET:GET ratio (default 1:10)"),
    MTB_OPT("keys", "N", NULL, WL(keys), NULL, "key space (default 10000)"),
    MTB_OPT("value-size", "S", NULL, WL(value_size), NULL, "100 | 64-1024 | 100:8,4096:2"),
    MTB_OPT("duration", "T", NULL, WL(duration), NULL, "measured time (default 10s)"),
    MTB_OPT("warmup", "T", NULL, WL(warmup), NULL, "unmeasured warm-up (default 0)"),
    MTB_OPT("late-limit", "D", NULL, L_LATE, NULL,
            "a host that starts more than D after the instant fails the load\n(default 250ms)"),
    MTB_OPT("help", NULL, NULL, L_HELP, NULL, "this text"),
    { 0 },
};
#undef WL
static const struct mtb_opt *const load_tabs[] = { load_opts, mtb_ssh_opts, NULL };

static void load_usage(FILE *f)
{
    fprintf(f, "usage: mtebench load --client-hosts H1,H2 --server HOST:PORT --out DIR [options]\n"
               "Drives the server from every client host at once (shares of the connections and the rate),\n"
               "started at one instant; writes DIR/<host>/ and the merged result DIR/load.json.\n"
               "options (then the ssh options of `mtebench hosts`):\n");
    mtb_opt_help(f, load_tabs, "load");
}

/* o's number at a.b */

int mtb_cmd_load(int argc, char **argv)
{
    struct mtb_client_load l = { .protocol = "memcache" };
    /* the workload's fields (their defaults, a 10 s duration, no warm-up), parsed as every command parses them */
    struct mtb_workload_set ws;
    memset(&ws, 0, sizeof ws);
    mtb_workload_init(&l.wl);
    l.wl.duration = 10;
    l.wl.warmup = 0;
    const char *hosts = NULL, *out = NULL;
    char why[MTB_ERRLEN];
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "load", 0);
    int c;
    while ((c = mtb_opt_next(&p, load_tabs)) > 0) {
        switch (c) {
        case MTB_OPT_SSH: {
            struct mtb_err e = { 0 };
            if (mtb_ssh_option(p.name, p.val, &e) < 0)
                mtb_err_exit(&e);
            break;
        }
        case L_HOSTS: hosts = p.val; break;
        case L_SERVER: l.server = p.val; break;
        case L_PROTOCOL: l.protocol = p.val; break;
        case L_OUT: out = p.val; break;
        case L_LATE:
            if (mtb_parse_duration(p.val, &l.late_limit) != 0 || !(l.late_limit > 0))
                mtb_die(2, "--%s '%s': accepted: a duration such as 3, 3s, 500ms (above 0)", p.name, p.val);
            break;
        case L_HELP: load_usage(stdout); mtb_opt_free(&p); return 0;
        default:
            if (mtb_workload_set_parse(&ws, p.name, p.val, why, sizeof why) != 0)
                mtb_die(2, "--%s: %s", p.name, why);
        }
    }
    if (c == MTB_OPT_ERR)
        mtb_die(2, "load: %s", p.err);
    if (p.npos)
        mtb_die(2, "load: unexpected argument '%s' (see mtebench load --help)", p.pos[0]);
    mtb_opt_free(&p);
    if (!hosts || !l.server || !out)
        mtb_die(2, "load needs --client-hosts, --server and --out (see --help)");
    mtb_workload_set_apply(&ws, &l.wl);
    char err[MTB_ERRLEN];
    struct mtb_clients cl;
    mtb_mkdir_p(out);
    if (mtb_clients_open(&cl, hosts, out, err, sizeof err) != 0) {
        fprintf(stderr, "mtebench: %s\n", err);
        mtb_clients_close(&cl);
        return 1;
    }
    json_t *m = mtb_clients_run(&cl, &l, out, err, sizeof err);
    mtb_clients_close(&cl);
    mtb_ssh_close_all();
    if (!m) {
        fprintf(stderr, "mtebench: load failed: %s\n", err);
        return 1;
    }
    char *path = mtb_asprintf("%s/load.json", out);
    char *text = json_dumps(m, JSON_INDENT(2));
    mtb_write_atomic(path, text, strlen(text));
    struct mtb_load_view lv;
    mtb_load_view_read(m, &lv);
    const struct mtb_load_lat *lat = &lv.lat[MTB_LAT_CORRECTED];
    printf("%d client hosts: %.0f requests, %.0f ops/s, p50 %.1f us, p99 %.1f us (merged histograms); %s\n",
           (int)lv.nclients, mtb_or0(lv.requests), mtb_or0(lv.ops_per_sec),
           mtb_or0(lat->v[MTB_LOAD_P50]), mtb_or0(lat->v[MTB_LOAD_P99]), path);
    free(text);
    free(path);
    json_decref(m);
    return 0;
}
