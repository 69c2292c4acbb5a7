/* clients_pgbench.c - pgbench from client hosts (see clients.h): each host
 * runs the system's pgbench with its share of the clients and of the rate,
 * logging every transaction; the logs come back with the host's results and
 * are folded here into mtload's format, which clients.c merges bucket by
 * bucket like mtload's. */
#include "loadgen/adapt.h"
#include "agent/clients.h"
#include "core/load_rows.h"
#include "drivers/driver.h"
#include "agent/transport_ssh.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *param(const struct mtb_workload *w, const char *k, const char *dflt)
{
    const char *v = mtb_workload_param(w, k);
    return v ? v : dflt;
}

/* pgbench's -T: whole seconds, never fewer than asked */
static long seconds(double d)
{
    long t = (long)ceil(d - 1e-9);
    return t < 1 ? 1 : t;
}

int mtb_clients_pgbench_argv(const struct mtb_client_load *l, const struct mtb_workload *share, struct mtb_argv *a,
                             char *why, size_t n)
{
    const char *script = param(share, "script", "tpcb-like");
    int kv = !strcmp(script, "kv");
    /* HOST:PORT, the host maybe an IPv6 literal in brackets */
    const char *colon = strrchr(l->server, ':');
    if (!colon || colon == l->server) {
        snprintf(why, n, "pgbench from client hosts: no port in '%s'", l->server);
        return -1;
    }
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)(colon - l->server), l->server);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = 0;
    }
    mtb_argv_push(a, "--tool=pgbench");
    if (kv)
        mtb_argv_pushf(a, "--kv-keys=%ld", share->keys);
    mtb_argv_push(a, "--");
    mtb_argv_pushf(a, "-h%s", host);
    mtb_argv_pushf(a, "-p%s", colon + 1);
    mtb_argv_pushf(a, "-U%s", param(share, "db_user", "mtebench"));
    mtb_argv_pushf(a, "-c%ld", share->conns);
    mtb_argv_pushf(a, "-j%ld", share->threads);
    mtb_argv_pushf(a, "-T%ld", seconds(share->duration));
    /* no vacuum or truncate: the server host's preload (pgbench -i) left the
     * tables fresh and vacuumed, and the setup transactions stay countable */
    mtb_argv_push(a, "-n");
    if (share->rate > 0)
        mtb_argv_pushf(a, "--rate=%g", share->rate);
    if (kv) {
        long s, g;
        mtb_driver_mix_parts(share->mix, &s, &g);
        if (g > 0)
            mtb_argv_pushf(a, "-fkv-get.sql@%ld", g);
        if (s > 0)
            mtb_argv_pushf(a, "-fkv-set.sql@%ld", s);
    } else {
        mtb_argv_pushf(a, "-b%s", script);
    }
    mtb_argv_push(a, param(share, "database", "postgres"));
    return 0;
}

json_t *mtb_clients_pgbench_fold(const char *dir, const struct mtb_workload *share, json_t *cj, char *why, size_t n)
{
    struct mtl_adapt ad;
    if (mtl_adapt_init(&ad) != 0) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    char *prefix = mtb_asprintf("%s/pgbench_tx", dir);
    json_t *load = NULL;
    if (mtb_pgbench_fold_logs(prefix, 0, &ad, why, n) == 0) {
        const char *script = param(share, "script", "tpcb-like");
        long t = seconds(share->duration);
        json_t *cfg = json_pack("{s:s,s:s,s:I,s:I}", "driver", "pgbench", "script", script, "clients",
                                (json_int_t)share->conns, "threads", (json_int_t)share->threads);
        load = mtl_adapt_json(&ad, "pgbench", (double)t, cfg, NULL);
        mtb_load_set_total(load, "setup",
                           json_integer((json_int_t)mtb_pgbench_setup_xacts(strcmp(script, "kv") != 0, share->conns)));
        /* pgbench's CPU use on its host: bound when its threads were busy */
        struct mtb_client_outcome co;
        mtb_client_outcome_read(cj, &co);
        double user = co.cpu_user_s, sys = co.cpu_sys_s;
        double busy = (user + sys) / ((double)t * (double)share->threads);
        json_object_set_new(load, "cpu", json_pack("{s:f,s:f,s:f,s:b}", "user_s", user, "sys_s", sys, "busy", busy,
                                                   "client_bound", busy > 0.9));
        char *lp = mtb_asprintf("%s/load.json", dir);
        char *text = json_dumps(load, JSON_INDENT(2));
        mtb_write_atomic(lp, text, strlen(text));
        free(text);
        free(lp);
    }
    mtl_adapt_free(&ad);
    free(prefix);
    return load;
}

char *mtb_clients_sources(struct mtb_clients *c, const char *server_addr, char *err, size_t errlen)
{
    const struct mtb_transport *t = mtb_transport_find("ssh");
    if (!*server_addr || strspn(server_addr, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.:-") !=
                             strlen(server_addr)) {
        snprintf(err, errlen, "the server's address '%s' is no host name or address", server_addr);
        return NULL;
    }
    char *all = mtb_strdup("");
    /* the source address of the route to the server; without ip(8), the
     * address this host's ssh session came in on */
    char *cmd = mtb_asprintf("a=$(ip -o route get '%s' 2>/dev/null | sed -n 's/.* src \\([^ ]*\\).*/\\1/p'); "
                             "[ -n \"$a\" ] || a=$(echo $SSH_CONNECTION | cut -d' ' -f3); echo \"$a\"",
                             server_addr);
    for (int i = 0; i < c->n; i++) {
        char *out = NULL, e[MTB_ERRLEN] = "";
        int st = t->sh(c->s[i], cmd, 20, &out, e, sizeof e);
        char a[128] = "";
        if (st == 0 && out)
            sscanf(out, "%127s", a);
        free(out);
        if (!a[0] || strspn(a, "0123456789abcdefABCDEF.:") != strlen(a)) {
            snprintf(err, errlen, "client host %s: cannot tell its address toward %s%s%s", c->hosts[i], server_addr,
                     e[0] ? ": " : "", e);
            free(all);
            all = NULL;
            break;
        }
        char *nall = mtb_asprintf("%s%s%s", all, *all ? " " : "", a);
        free(all);
        all = nall;
    }
    free(cmd);
    return all;
}
