/* remote.c - see remote.h */
#include "agent/remote.h"
#include "lib/jsonx.h"
#include "agent/agent.h"
#include "agent/clients.h"
#include "drivers/driver.h"
#include "core/platform.h"
#include "lib/proc.h"
#include "core/host_rows.h"
#include "core/load_rows.h"
#include "core/record_outcome.h"
#include "core/run_request.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the controller's side ------------------------------------------------------ */

/* The service's own counters on the server host ([run] counters of its
 * recipe, run there). @return {name: value}, or NULL. */
static json_t *far_counters(const struct mtb_transport *t, struct mtb_session *s, const struct mtb_run *run, int port)
{
    const char *tmpl = run->recipe->run.counters;
    if (!tmpl)
        return NULL;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    const char *pairs[] = { "port", portbuf, "rundir", ".", NULL, NULL };
    char *cmd = mtb_template(tmpl, pairs);
    char *full = mtb_asprintf("cd services/%s && %s", run->recipe->name, cmd);
    char *out = NULL, err[MTB_ERRLEN];
    int st = t->sh(s, full, 30, &out, err, sizeof err);
    free(cmd);
    free(full);
    json_t *o = NULL;
    if (st == 0 && out) {
        o = json_object();
        char *save = NULL;
        for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char key[128];
            long long v;
            if (sscanf(line, "%127s %lld", key, &v) == 2)
                json_object_set_new(o, key, json_integer(v));
        }
    }
    free(out);
    return o;
}

/* requests the service counted: the sum of its recipe's [run] counted
 * (memcached's cmd_get + cmd_set, nginx's requests); -1 unknown */
static long long counted(const struct mtb_recipe *r, json_t *c)
{
    return mtb_counters_sum(c, r->run.counted);
}

/* the requests each reading of the counters adds to them ([run] counters_self) */
static long long counters_self(const struct mtb_recipe *r)
{
    const char *s = r->run.counters_self;
    return s ? atoll(s) : 0;
}

/* [run] clients_allow: let the client hosts in (PostgreSQL's pg_hba.conf),
 * on the server host, with their addresses toward it. @return the
 * addresses admitted (to be freed; "" when the recipe needs nothing), or
 * NULL with err */
static char *allow_clients(const struct mtb_transport *t, struct mtb_session *s, const struct mtb_run *run,
                           struct mtb_clients *cl, const char *addr, int port, char *err, size_t errlen)
{
    const char *tmpl = run->recipe->run.clients_allow;
    if (!tmpl)
        return mtb_strdup("");
    char *srcs = mtb_clients_sources(cl, addr, err, errlen);
    if (!srcs)
        return NULL;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    const char *pairs[] = { "port", portbuf, "clients", srcs, NULL, NULL };
    char *cmd = mtb_template(tmpl, pairs);
    char *full = mtb_asprintf("cd services/%s && %s 2>&1", run->recipe->name, cmd);
    char *out = NULL, e[MTB_ERRLEN] = "";
    int st = t->sh(s, full, 30, &out, e, sizeof e);
    if (st != 0) {
        char *nl = out ? strchr(out, '\n') : NULL;
        if (nl)
            *nl = 0;
        snprintf(err, errlen, "server host %s: letting the client hosts in (%s: %s) failed: %s",
                 run->machine->server_host, srcs, cmd, e[0] ? e : out && *out ? out : "no output");
        free(srcs);
        srcs = NULL;
    }
    free(out);
    free(cmd);
    free(full);
    return srcs;
}

/* what the client hosts measured, and the service's counters around it */
struct drive {
    json_t *merged, *before, *after;
    char *admitted;           /* the client hosts' addresses the service was told to admit */
    long long warm_left;      /* the warm-up's requests sent and never answered: they
                                 may reach the service after the first counters */
    char err[MTB_ERRLEN];
};

/* a merged load's requests: answered, and sent (answered + lost + in
 * flight at the end; = answered when the clients give no accounting) */
static long long answered_sent(json_t *merged, long long *sent)
{
    struct mtb_load_view l;
    mtb_load_view_read(merged, &l);
    long long req = isfinite(l.requests) ? (long long)l.requests : 0;
    double sn = l.account[MTB_LOAD_A_SENT];
    *sent = isfinite(sn) && sn >= (double)req ? (long long)sn : req;
    return req;
}

/* the far service's port, once it serves (0: it never did) */
static int far_port(const struct mtb_transport *t, struct mtb_session *s, const char *ext, const volatile int *ended)
{
    int port = 0;
    double t0 = mtb_mono();
    char *cat = mtb_asprintf("cat %s/serving.json 2>/dev/null; true", ext);
    while (!*ended && !mtb_proc_interrupted && mtb_mono() - t0 < 300) {
        char *o = NULL, e[MTB_ERRLEN];
        t->sh(s, cat, 20, &o, e, sizeof e);
        json_error_t je;
        json_t *sj = o && *o ? json_loads(o, 0, &je) : NULL;
        free(o);
        if (sj) { /* driver_external.c's {"port": N, "pid": P} */
            if (json_unpack(sj, "{s:i}", "port", &port) != 0)
                port = 0;
            json_decref(sj);
            break;
        }
        usleep(100000);
    }
    free(cat);
    return port;
}

/* A server host's run loaded from client hosts: the far run serves. */
struct served {
    const struct mtb_run *run;
    struct mtb_clients *cl;
    const char *ext;          /* the handshake directory, under the far root */
    struct drive dr;
};

/* Load the far service from every client host (while the far run serves):
 * a warm-up, the counters, the measurement, the counters; then the far run
 * is told to stop. */
static void drive_clients(const struct mtb_transport *t, struct mtb_session *s, const volatile int *ended, void *arg)
{
    struct served *sv = arg;
    const struct mtb_run *run = sv->run;
    struct mtb_clients *cl = sv->cl;
    struct drive *dr = &sv->dr;
    const char *ext = sv->ext;
    const struct mtb_machine *mach = run->machine;
    const struct mtb_workload *w = run->wl;
    int port = far_port(t, s, ext, ended);
    if (port <= 0) {
        snprintf(dr->err, sizeof dr->err, "server host %s: the service never came to serve the client hosts%s",
                 mach->server_host, *ended ? " (the far run ended: see its record)" : "");
    } else {
        struct mtb_host_view hv;
        mtb_host_view_read(t->info(s), &hv);
        const char *addr = mach->server_address[0] ? mach->server_address : hv.address;
        char *server = mtb_asprintf("%s:%d", addr ? addr : "127.0.0.1", port);
        const char *proto = run->recipe->run.protocol, *dn;
        const struct mtb_driver *drv = mtb_driver_of(w, &dn);
        struct mtb_client_load l = { .server = server, .protocol = proto ? proto : "memcache", .wl = *w,
                                     .tool = proto || !drv ? NULL : drv->client_hosts };
        l.wl.warmup = 0; /* the warm-up is a load of its own, before the counters */
        json_t *wm = NULL;
        dr->admitted = allow_clients(t, s, run, cl, addr ? addr : "127.0.0.1", port, dr->err, sizeof dr->err);
        if (!dr->admitted) {
            /* not let in: no load */
        } else if (w->warmup > 0) { /* the same load, not measured, before the counters are read */
            struct mtb_client_load lw = l;
            lw.wl.duration = w->warmup;
            char *wd = mtb_asprintf("%s/clients-warmup", run->dir);
            mtb_mkdir_p(wd);
            wm = mtb_clients_run(cl, &lw, wd, dr->err, sizeof dr->err);
            free(wd);
        }
        if (wm) {
            long long wsent, wans = answered_sent(wm, &wsent);
            dr->warm_left = wsent - wans;
        }
        if (dr->admitted && (w->warmup <= 0 || wm)) {
            dr->before = far_counters(t, s, run, port);
            char *cd = mtb_asprintf("%s/clients", run->dir);
            mtb_mkdir_p(cd);
            dr->merged = mtb_clients_run(cl, &l, cd, dr->err, sizeof dr->err);
            struct mtb_load_view ml;
            mtb_load_view_read(dr->merged, &ml);
            if (ml.hlog) /* relative to the record's directory */
                mtb_load_set_hlog(dr->merged, json_sprintf("clients/%s", ml.hlog));
            free(cd);
            dr->after = far_counters(t, s, run, port);
        }
        json_decref(wm);
        free(server);
    }
    char *stop = mtb_asprintf("mkdir -p %s && touch %s/stop", ext, ext), e[MTB_ERRLEN];
    t->sh(s, stop, 30, NULL, e, sizeof e);
    free(stop);
}

/* the far record with what the clients measured: the merged load, the
 * clients, the check of the request count; a partial merge is never a result */
static void add_clients(json_t *rec, const struct mtb_run *run, struct drive *dr, const char *err)
{
    if (dr->admitted && *dr->admitted) /* the addresses the service was told to let in */
        mtb_record_hosts_set(rec, "client_addresses", json_string(dr->admitted));
    struct mtb_load_view far;
    mtb_load_view_of_record(rec, &far);
    struct mtb_rec_outcome ro;
    mtb_rec_outcome_read(rec, &ro);
    if (!far.present) {
        if ((mtb_record_status(rec) == MTB_RUN_OK) && (dr->err[0] || err[0]))
            mtb_record_fail(rec, dr->err[0] ? dr->err : err);
        return;
    }
    if (!dr->merged) {
        json_object_del(rec, "load");
        json_object_del(rec, "summary");
        if ((mtb_record_status(rec) == MTB_RUN_OK) || !ro.error)
            mtb_record_fail(rec, dr->err[0] ? dr->err : err);
        char *cp = mtb_asprintf("%s/clients/clients.json", run->dir);
        json_error_t je;
        json_t *cj = json_load_file(cp, 0, &je);
        if (cj)
            json_object_set_new(rec, "clients", cj);
        free(cp);
        return;
    }
    struct mtb_load_view ml;
    mtb_load_view_read(dr->merged, &ml);
    json_object_set(rec, "clients", ml.clients);
    json_object_set_new(rec, "summary", mtb_run_summary(dr->merged));
    json_t *perf = ro.perf;
    if (json_is_object(perf))
        json_object_set_new(perf, "per_request_note",
                            json_string("not computed: the load came from client hosts, and perf's window on the "
                                        "server host (from the end of the warm-up delay to the stop) is not the "
                                        "clients' measured window"));
    json_object_set(rec, "load", dr->merged);
    long long b = counted(run->recipe, dr->before), a = counted(run->recipe, dr->after);
    /* what the clients' own setup made the service count (pgbench's connections and table checks) */
    long long setup = ml.setup;
    if (a >= 0 && b >= 0)
        a -= counters_self(run->recipe) + setup; /* the reading after the load counted itself */
    const char *what = run->recipe->run.counted;
    char how[768];
    snprintf(how, sizeof how,
             "the service's %s change over the measured load (less %lld for the reading itself%s), read on the "
             "server host, against the clients' merged count: at least every answered request, at most every one "
             "sent (answered + lost + in flight at the end) plus the warm-up's unanswered ones",
             what ? what : "(no [run] counted: not checked)", counters_self(run->recipe),
             ml.has_setup ? " and the clients' setup: per pgbench, its setup connection, two table checks "
                                   "(built-in scripts) and one connection per client" : "");

    /* the service counted every answered request; lost ones (timed out,
     * closed, garbled, in flight at the end) it may have counted or not,
     * and the warm-up's too (they may reach it after the first counters) */
    long long sent, req = answered_sent(dr->merged, &sent);
    json_t *cc = json_pack("{s:I,s:I,s:I,s:o,s:O?,s:O?,s:s,s:s?}", "merged_requests", (json_int_t)req, "merged_sent",
                           (json_int_t)sent, "warmup_unanswered", (json_int_t)dr->warm_left, "service_requests",
                           a >= 0 && b >= 0 ? json_integer(a - b) : json_null(), "before", dr->before, "after",
                           dr->after, "how", how, "counted", what);
    if (ml.has_setup)
        json_object_set_new(cc, "clients_setup", json_integer(setup));
    json_object_set_new(rec, "client_check", cc);
    if (a >= 0 && b >= 0 && (a - b < req || a - b > sent + dr->warm_left) && (mtb_record_status(rec) == MTB_RUN_OK)) {
        char m[MTB_ERRLEN];
        snprintf(m, sizeof m,
                 "the service's own count (%lld) is not within the client hosts' merged answered (%lld) and sent "
                 "(%lld, and %lld of the warm-up unanswered) requests",
                 a - b, req, sent, dr->warm_left);
        mtb_record_fail(rec, m);
    }
}

/* the hosts: the server's facts (as the transport saw them), the controller;
 * far_out: where the far run's output stays when the connection was lost
 * ("" none), for --resume (server_host_recover) */
static void add_hosts(json_t *rec, const struct mtb_run *run, json_t *server, const char *far_out)
{
    const struct mtb_machine *mach = run->machine;
    json_t *hosts = json_pack("{s:s,s:O?}", "server_host", mach->server_host, "server", server);
    if (far_out && *far_out)
        json_object_set_new(hosts, "far_out", json_string(far_out));
    char hn[256] = "";
    gethostname(hn, sizeof hn - 1);
    json_object_set_new(hosts, "controller", json_pack("{s:s}", "hostname", hn));
    if (mach->client_hosts[0])
        json_object_set_new(hosts, "client_hosts", json_string(mach->client_hosts));
    json_object_set_new(rec, "hosts", hosts);
}

/* One run on the profile's server host: the agent step over the ssh
 * transport, the far `mtebench run` on the same platform there; with client
 * hosts, the far run serves while they load it. */
static enum mtb_run_status server_host_run(const struct mtb_run *run, json_t **record)
{
    const struct mtb_machine *mach = run->machine;
    const struct mtb_transport *t = mtb_transport_find("ssh");
    char err[MTB_ERRLEN] = "";
    mtb_mkdir_p(run->dir);
    json_t *rec = NULL;
    struct mtb_clients cl = { 0 };
    struct mtb_agent_result res = { 0 };
    char *ext = mach->client_hosts[0] ? mtb_asprintf("ext/%d-%d", (int)getpid(), run->index) : NULL;
    struct served sv = { .run = run, .cl = &cl, .ext = ext };
    if (!ext || mtb_clients_open(&cl, mach->client_hosts, run->dir, err, sizeof err) == 0) {
        struct mtb_argv args = { 0 };
        mtb_argv_push(&args, "--server-host=local");
        mtb_argv_push(&args, "--client-hosts=none");
        if (mach->path[0] && strstr(mach->path, "/configs/machines/"))
            mtb_argv_pushf(&args, "--machine=%s", mach->name);
        if (ext)
            mtb_argv_pushf(&args, "--external-load={root}/%s", ext);
        char *swd = mtb_asprintf("%s/ssh-server", run->dir), *name = mtb_asprintf("server host %s", mach->server_host);
        struct mtb_agent_target tg = { .where = mach->server_host, .workdir = swd, .quiet = run->quiet };
        struct mtb_agent_far far = { .platform = run->platform->name, .dir = "server", .name = name, .args = args.v,
                                     .during = ext ? drive_clients : NULL, .arg = &sv };
        mtb_agent_run(t, &tg, run, &far, &res, &rec, err, sizeof err);
        mtb_argv_free(&args);
        free(swd);
        free(name);
    } else {
        rec = mtb_run_record(run, NULL);
        mtb_record_fail(rec, err);
    }
    /* with client hosts the far record alone is not the run: nothing to bring back later */
    add_hosts(rec, run, res.info, ext ? NULL : res.far_out);
    if (ext)
        add_clients(rec, run, &sv.dr, err);
    json_object_set_new(rec, "logs", json_pack("{s:s,s:s}", "agent", "server/agent.log", "ssh", "ssh-server/ssh.log"));
    enum mtb_run_status status = mtb_record_end(rec, run->dir);
    if (status != MTB_RUN_OK && !run->quiet)
        mtb_warn("run %d/%d (%s %s/%s on server host %s): %s", run->index, run->total, run->recipe->name, run->variant,
                 run->mode->name, mach->server_host, mtb_rec_outcome_error(rec));
    if (ext)
        mtb_clients_close(&cl);
    json_decref(res.info);
    json_decref(sv.dr.merged);
    json_decref(sv.dr.before);
    json_decref(sv.dr.after);
    free(sv.dr.admitted);
    free(ext);
    *record = rec;
    return status;
}

/* --resume: an earlier attempt whose connection to the server host was lost
 * while the far run went on (hosts.far_out in its record; runs without
 * client hosts, whose far record is the whole run): its far output brought
 * back, if the far run finished there by itself, and the far record made
 * the run's, saying so (hosts.recovered). */
static enum mtb_run_status server_host_recover(const struct mtb_run *run, json_t *earlier, json_t **record)
{
    const struct mtb_machine *mach = run->machine;
    struct mtb_rec_hosts oh;
    mtb_rec_hosts_read(earlier, &oh);
    const char *far_out = oh.far_out, *earlier_error = mtb_rec_outcome_error(earlier);
    *record = NULL;
    if (!*far_out || mach->client_hosts[0] || strcmp(oh.server_host, mach->server_host))
        return MTB_RUN_ERROR;
    struct mtb_err e = { 0 };
    char *swd = mtb_asprintf("%s/ssh-server", run->dir), *name = mtb_asprintf("server host %s", mach->server_host);
    struct mtb_agent_target tg = { .where = mach->server_host, .workdir = swd, .quiet = run->quiet };
    struct mtb_agent_far far = { .platform = run->platform->name, .dir = "server", .name = name };
    struct mtb_agent_result res = { 0 };
    json_t *rec = NULL;
    int rc = mtb_agent_fetch(mtb_transport_find("ssh"), &tg, run, &far, far_out, &res, &rec, &e);
    enum mtb_run_status st = MTB_RUN_ERROR;
    if (rc == 0 && rec && mtb_record_status(rec) == MTB_RUN_OK) {
        json_t *hosts = json_deep_copy(oh.j);
        json_object_del(hosts, "far_out");
        char now[32];
        mtb_utc_iso(now, sizeof now);
        json_object_set_new(hosts, "recovered",
                            json_pack("{s:s,s:s,s:s,s:s}", "how", "brought back by --resume from the server host, "
                                      "where the run had finished after the connection was lost",
                                      "at", now, "far_out", far_out, "earlier_error", earlier_error ? earlier_error : ""));
        json_object_set_new(rec, "hosts", hosts);
        json_object_set_new(rec, "logs", json_pack("{s:s,s:s}", "agent", "server/agent.log", "ssh", "ssh-server/ssh.log"));
        st = mtb_record_end(rec, run->dir);
        if (!run->quiet)
            fprintf(stderr, "mtebench: run %d/%d: brought back from server host %s, where it finished after the "
                    "connection was lost (%s)\n", run->index, run->total, mach->server_host, far_out);
    } else if (!run->quiet) {
        fprintf(stderr, "mtebench: run %d/%d: nothing to bring back from server host %s (%s): run again\n",
                run->index, run->total, mach->server_host, e.msg[0] ? e.msg : "its record there is not ok");
    }
    if (st == MTB_RUN_OK)
        *record = rec;
    else
        json_decref(rec);
    json_decref(res.info);
    free(swd);
    free(name);
    return st;
}

static const char *far_aarch64(void) { return "aarch64"; }

const struct mtb_platform *mtb_remote_platform(const struct mtb_platform *p)
{
    static struct mtb_platform placed[4];
    static const struct mtb_platform *of[4];
    for (int i = 0; i < 4; i++) {
        if (of[i] == p)
            return &placed[i];
        if (!of[i]) {
            placed[i] = *p;
            placed[i].run = server_host_run;
            placed[i].recover = server_host_recover;
            /* PLATFORM=host there is that host's own CPU, an arm64 MTE server */
            if (!strcmp(p->target(), "native"))
                placed[i].target = far_aarch64;
            of[i] = p;
            return &placed[i];
        }
    }
    return NULL;
}

const char *mtb_remote_target(const struct mtb_machine *m, const struct mtb_platform *p)
{
    return mtb_machine_remote(m) && !strcmp(p->target(), "native") ? "aarch64" : p->target();
}
