/* remote.c - see remote.h */
#include "remote.h"
#include "clients.h"
#include "proc.h"
#include "run.h"
#include "transport_ssh.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the controller's side ------------------------------------------------------ */

struct server_job {
    struct mtb_session *s;
    struct mtb_argv argv;
    double deadline;
    char *local;
    struct mtb_agent_result res;
    int rc;
    volatile int done;
    char err[MTB_ERRLEN];
};

static void *server_main(void *arg)
{
    struct server_job *j = arg;
    j->rc = mtb_transport_ssh.exec(j->s, j->argv.v, j->deadline, j->local, &j->res, j->err, sizeof j->err);
    j->done = 1;
    return NULL;
}

/* The service's own counters on the server host ([run] counters of its
 * recipe, run there). @return {name: value}, or NULL. */
static json_t *far_counters(struct mtb_session *s, const struct mtb_run *run, int port)
{
    const char *tmpl = mtb_recipe_get(run->recipe, "run", "counters");
    if (!tmpl)
        return NULL;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    const char *pairs[] = { "port", portbuf, "rundir", ".", NULL, NULL };
    char *cmd = mtb_template(tmpl, pairs);
    char *full = mtb_asprintf("cd services/%s && %s", run->recipe->name, cmd);
    char *out = NULL, err[MTB_ERRLEN];
    int st = mtb_ssh_sh(s, full, 30, &out, err, sizeof err);
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

/* requests the service counted: memcached's cmd_get + cmd_set; -1 unknown */
static long long counted(json_t *c)
{
    json_t *g = json_object_get(c, "cmd_get"), *s = json_object_get(c, "cmd_set");
    return json_is_integer(g) && json_is_integer(s) ? json_integer_value(g) + json_integer_value(s) : -1;
}

static json_t *base_record(const struct mtb_run *run, const char *started, const char *err)
{
    json_t *rec = json_object();
    json_object_set_new(rec, "schema", json_string(MTB_RECORD_SCHEMA));
    json_object_set_new(rec, "mtebench_version", json_string(MTEBENCH_VERSION));
    json_object_set_new(rec, "started", json_string(started));
    json_object_set_new(rec, "status", json_string("error"));
    json_object_set_new(rec, "error", json_string(err));
    json_object_set_new(rec, "config", json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:o}", "service",
                                                 run->recipe->name, "variant", run->variant, "mode", run->mode->name,
                                                 "platform", run->platform->name, "kernel", run->kernel, "plan",
                                                 run->plan ? run->plan : "", "rep", run->rep, "index", run->index,
                                                 "total", run->total, "workload", mtb_workload_json(run->wl)));
    json_object_set(rec, "build", run->build->info);
    json_object_set_new(rec, "kernel", json_object());
    json_object_set_new(rec, "platform", json_pack("{s:s,s:b}", "name", run->platform->name, "emulated",
                                                   mtb_platform_emulated(run->platform)));
    json_object_set_new(rec, "machine", mtb_machine_json(run->machine));
    return rec;
}

static void set_error(json_t *rec, const char *err)
{
    json_object_set_new(rec, "status", json_string("error"));
    json_object_set_new(rec, "error", json_string(err));
}

/* the far mtebench run: the same run, made there */
static void far_argv(const struct mtb_run *run, const char *ext, struct mtb_argv *g)
{
    mtb_argv_push(g, "run");
    mtb_argv_pushf(g, "--platform=%s", run->platform->name);
    mtb_argv_push(g, "--kernel=host");
    mtb_argv_pushf(g, "--service=%s", run->recipe->name);
    mtb_argv_pushf(g, "--variant=%s", run->variant);
    mtb_argv_pushf(g, "--mode=%s", run->mode->name);
    mtb_argv_pushf(g, "--build={root}/builds/%s/%s", run->recipe->name, run->variant);
    mtb_argv_push(g, "--results={out}");
    mtb_argv_push(g, "--server-host=local");
    mtb_argv_push(g, "--client-hosts=none");
    if (run->machine->path[0] && strstr(run->machine->path, "/configs/machines/"))
        mtb_argv_pushf(g, "--machine=%s", run->machine->name);
    mtb_workload_args(run->wl, g);
    mtb_argv_push(g, "--quiet");
    if (ext)
        mtb_argv_pushf(g, "--external-load={root}/%s", ext);
}

/* what the client hosts measured, and the service's counters around it */
struct drive {
    json_t *merged, *before, *after;
    long long warm_left;      /* the warm-up's requests sent and never answered: they
                                 may reach the service after the first counters */
    char err[MTB_ERRLEN];
};

/* a merged load's requests: answered, and sent (answered + lost + in
 * flight at the end; = answered when the clients give no accounting) */
static long long answered_sent(json_t *merged, long long *sent)
{
    json_t *tot = json_object_get(merged, "totals");
    long long req = json_integer_value(json_object_get(tot, "requests"));
    json_t *sj = json_object_get(json_object_get(tot, "accounting"), "sent");
    *sent = json_is_integer(sj) && json_integer_value(sj) >= req ? json_integer_value(sj) : req;
    return req;
}

/* the far service's port, once it serves (0: it never did) */
static int far_port(struct mtb_session *s, const char *ext, const struct server_job *job)
{
    int port = 0;
    double t0 = mtb_mono();
    char *cat = mtb_asprintf("cat %s/serving.json 2>/dev/null; true", ext);
    while (!job->done && !mtb_proc_interrupted && mtb_mono() - t0 < 300) {
        char *o = NULL, e[MTB_ERRLEN];
        mtb_ssh_sh(s, cat, 20, &o, e, sizeof e);
        json_error_t je;
        json_t *sj = o && *o ? json_loads(o, 0, &je) : NULL;
        free(o);
        if (sj) {
            port = (int)json_integer_value(json_object_get(sj, "port"));
            json_decref(sj);
            break;
        }
        usleep(100000);
    }
    free(cat);
    return port;
}

/* Load the far service from every client host: a warm-up, the counters,
 * the measurement, the counters; then the far run is told to stop. */
static void drive_clients(struct mtb_session *s, const struct mtb_run *run, struct mtb_clients *cl, const char *ext,
                          const struct server_job *job, struct drive *dr)
{
    const struct mtb_machine *mach = run->machine;
    const struct mtb_workload *w = run->wl;
    int port = far_port(s, ext, job);
    if (port <= 0) {
        snprintf(dr->err, sizeof dr->err, "server host %s: the service never came to serve the client hosts%s",
                 mach->server_host, job->done ? " (the far run ended: see its record)" : "");
    } else {
        const char *addr = mach->server_address[0] ? mach->server_address
                                                   : json_string_value(json_object_get(mtb_ssh_info(s), "address"));
        char *server = mtb_asprintf("%s:%d", addr ? addr : "127.0.0.1", port);
        const char *proto = mtb_recipe_get(run->recipe, "run", "protocol");
        struct mtb_client_load l = { .server = server, .protocol = proto ? proto : "memcache", .mix = w->mix,
                                     .value_size = w->value_size, .keys = w->keys, .conns = w->conns,
                                     .threads = w->threads, .pipeline = w->pipeline, .rate = w->rate,
                                     .duration = w->duration };
        json_t *wm = NULL;
        if (w->warmup > 0) { /* the same load, not measured, before the counters are read */
            struct mtb_client_load lw = l;
            lw.duration = w->warmup;
            char *wd = mtb_asprintf("%s/clients-warmup", run->dir);
            mtb_mkdir_p(wd);
            wm = mtb_clients_run(cl, &lw, wd, dr->err, sizeof dr->err);
            free(wd);
        }
        if (wm) {
            long long wsent, wans = answered_sent(wm, &wsent);
            dr->warm_left = wsent - wans;
        }
        if (w->warmup <= 0 || wm) {
            dr->before = far_counters(s, run, port);
            char *cd = mtb_asprintf("%s/clients", run->dir);
            mtb_mkdir_p(cd);
            dr->merged = mtb_clients_run(cl, &l, cd, dr->err, sizeof dr->err);
            if (dr->merged && json_object_get(dr->merged, "hlog")) /* relative to the record's directory */
                json_object_set_new(dr->merged, "hlog", json_string("clients/load.hlog"));
            free(cd);
            dr->after = far_counters(s, run, port);
        }
        json_decref(wm);
        free(server);
    }
    char *stop = mtb_asprintf("mkdir -p %s && touch %s/stop", ext, ext), e[MTB_ERRLEN];
    mtb_ssh_sh(s, stop, 30, NULL, e, sizeof e);
    free(stop);
}

static int is_ok(json_t *rec)
{
    const char *st = json_string_value(json_object_get(rec, "status"));
    return st && !strcmp(st, "ok");
}

/* the far record with what the clients measured: the merged load, the
 * clients, the check of the request count; a partial merge is never a result */
static void add_clients(json_t *rec, const struct mtb_run *run, struct drive *dr, const char *err)
{
    if (!json_is_object(json_object_get(rec, "load"))) {
        if (is_ok(rec) && (dr->err[0] || err[0]))
            set_error(rec, dr->err[0] ? dr->err : err);
        return;
    }
    if (!dr->merged) {
        json_object_del(rec, "load");
        json_object_del(rec, "summary");
        if (is_ok(rec) || !json_object_get(rec, "error"))
            set_error(rec, dr->err[0] ? dr->err : err);
        char *cp = mtb_asprintf("%s/clients/clients.json", run->dir);
        json_error_t je;
        json_t *cj = json_load_file(cp, 0, &je);
        if (cj)
            json_object_set_new(rec, "clients", cj);
        free(cp);
        return;
    }
    json_object_set(rec, "clients", json_object_get(dr->merged, "clients"));
    json_object_set_new(rec, "summary", mtb_run_summary(dr->merged));
    json_t *perf = json_object_get(rec, "perf");
    if (json_is_object(perf))
        json_object_set_new(perf, "per_request_note",
                            json_string("not computed: the load came from client hosts, and perf's window on the "
                                        "server host (from the end of the warm-up delay to the stop) is not the "
                                        "clients' measured window"));
    json_object_set(rec, "load", dr->merged);
    long long b = counted(dr->before), a = counted(dr->after);
    /* the service counted every answered request; lost ones (timed out,
     * closed, garbled, in flight at the end) it may have counted or not,
     * and the warm-up's too (they may reach it after the first counters) */
    long long sent, req = answered_sent(dr->merged, &sent);
    json_object_set_new(rec, "client_check",
                        json_pack("{s:I,s:I,s:I,s:o,s:O?,s:O?,s:s}", "merged_requests", (json_int_t)req, "merged_sent",
                                  (json_int_t)sent, "warmup_unanswered", (json_int_t)dr->warm_left,
                                  "service_requests", a >= 0 && b >= 0 ? json_integer(a - b) : json_null(), "before",
                                  dr->before, "after", dr->after, "how",
                                  "the service's cmd_get + cmd_set change over the measured load, read on the server "
                                  "host, against the clients' merged count: at least every answered request, at "
                                  "most every one sent (answered + lost + in flight at the end) plus the warm-up's "
                                  "unanswered ones"));
    if (a >= 0 && b >= 0 && (a - b < req || a - b > sent + dr->warm_left) && is_ok(rec)) {
        char m[MTB_ERRLEN];
        snprintf(m, sizeof m,
                 "the service's own count (%lld) is not within the client hosts' merged answered (%lld) and sent "
                 "(%lld, and %lld of the warm-up unanswered) requests",
                 a - b, req, sent, dr->warm_left);
        set_error(rec, m);
    }
}

/* the controller's view: the run's place in the plan, the hosts */
static void add_hosts(json_t *rec, const struct mtb_run *run, struct mtb_session *s)
{
    const struct mtb_machine *mach = run->machine;
    json_t *c = json_object_get(rec, "config");
    if (c) {
        json_object_set_new(c, "plan", json_string(run->plan ? run->plan : ""));
        json_object_set_new(c, "rep", json_integer(run->rep));
        json_object_set_new(c, "index", json_integer(run->index));
        json_object_set_new(c, "total", json_integer(run->total));
    }
    json_t *hosts = json_pack("{s:s,s:o}", "server_host", mach->server_host, "server",
                              s ? json_deep_copy(mtb_ssh_info(s)) : json_null());
    char hn[256] = "";
    gethostname(hn, sizeof hn - 1);
    json_object_set_new(hosts, "controller", json_pack("{s:s}", "hostname", hn));
    if (mach->client_hosts[0])
        json_object_set_new(hosts, "client_hosts", json_string(mach->client_hosts));
    json_object_set_new(rec, "hosts", hosts);
}

/* The session to the server host with the run's build there, and the
 * client hosts' sessions. @return the server session, or NULL with err. */
static struct mtb_session *reach_hosts(const struct mtb_run *run, const char *swd, struct mtb_clients *cl, char *err,
                                       size_t errlen)
{
    const struct mtb_machine *mach = run->machine;
    struct mtb_agent_target t = { .where = mach->server_host, .workdir = swd, .quiet = run->quiet };
    char e[MTB_ERRLEN];
    struct mtb_session *s = mtb_transport_ssh.open(&t, e, sizeof e);
    if (!s) {
        snprintf(err, errlen, "server host %.150s: %.300s", mach->server_host, e);
        return NULL;
    }
    char *remote_build = mtb_asprintf("builds/%s/%s", run->recipe->name, run->variant);
    int rc = mtb_transport_ssh.put(s, run->build->dir, remote_build, run->build->key, err, errlen);
    free(remote_build);
    if (rc == 0 && mach->client_hosts[0])
        rc = mtb_clients_open(cl, mach->client_hosts, run->dir, err, errlen);
    if (rc != 0) {
        mtb_transport_ssh.close(s);
        return NULL;
    }
    return s;
}

int mtb_remote_run(const struct mtb_run *run, json_t **record)
{
    const struct mtb_machine *mach = run->machine;
    char started[32], finished[32], err[MTB_ERRLEN] = "";
    mtb_utc_iso(started, sizeof started);
    mtb_mkdir_p(run->dir);
    json_t *rec = NULL;
    struct mtb_clients cl = { 0 };
    struct drive dr = { 0 };
    struct server_job job = { 0 };
    char *ext = mach->client_hosts[0] ? mtb_asprintf("ext/%d-%d", (int)getpid(), run->index) : NULL;
    char *swd = mtb_asprintf("%s/ssh-server", run->dir);
    struct mtb_session *s = reach_hosts(run, swd, &cl, err, sizeof err);
    pthread_t th;
    if (s) {
        far_argv(run, ext, &job.argv);
        job.s = s;
        job.local = mtb_asprintf("%s/server", run->dir);
        job.deadline = 300 + 3 * (run->wl->duration + run->wl->warmup);
        if (pthread_create(&th, NULL, server_main, &job) != 0) {
            snprintf(err, sizeof err, "cannot start a thread");
        } else {
            if (ext)
                drive_clients(s, run, &cl, ext, &job, &dr);
            pthread_join(th, NULL);
            if (job.rc != 0)
                snprintf(err, sizeof err, "server host %.150s: %.300s", mach->server_host, job.err);
            char *rp = mtb_asprintf("%s/001-%s-%s/record.json", job.local, run->variant, run->mode->name);
            json_error_t je;
            rec = json_load_file(rp, 0, &je);
            if (!rec && !err[0])
                snprintf(err, sizeof err, "server host %s: its mtebench wrote no record (exit %d); see %s/agent.log",
                         mach->server_host, job.res.exit_status, job.local);
            free(rp);
        }
    }
    if (!rec)
        rec = base_record(run, started, err[0] ? err : dr.err);
    add_hosts(rec, run, s);
    if (ext)
        add_clients(rec, run, &dr, err);
    else if (err[0] && is_ok(rec))
        set_error(rec, err);
    mtb_utc_iso(finished, sizeof finished);
    json_object_set_new(rec, "finished", json_string(finished));
    json_object_set_new(rec, "logs", json_pack("{s:s,s:s}", "agent", "server/agent.log", "ssh", "ssh-server/ssh.log"));
    char *recp = mtb_asprintf("%s/record.json", run->dir);
    if (mtb_record_write(recp, rec) != 0)
        mtb_warn("cannot write %s", recp);
    free(recp);
    int status = is_ok(rec) ? MTB_RUN_OK : !strcmp(json_string_value(json_object_get(rec, "status")), "fault") ? MTB_RUN_FAULT : MTB_RUN_ERROR;
    if (status != MTB_RUN_OK && !run->quiet)
        mtb_warn("run %d/%d (%s %s/%s on server host %s): %s", run->index, run->total, run->recipe->name, run->variant,
                 run->mode->name, mach->server_host, json_string_value(json_object_get(rec, "error")));
    if (s)
        mtb_transport_ssh.close(s);
    if (ext)
        mtb_clients_close(&cl);
    mtb_argv_free(&job.argv);
    free(job.local);
    json_decref(job.res.info);
    json_decref(dr.merged);
    json_decref(dr.before);
    json_decref(dr.after);
    free(ext);
    free(swd);
    *record = rec;
    return status;
}

const char *mtb_remote_target(const struct mtb_machine *m, const struct mtb_platform *p)
{
    return mtb_machine_remote(m) && !strcmp(p->target(), "native") ? "aarch64" : p->target();
}

int mtb_run_anywhere(const struct mtb_run *run, json_t **record)
{
    if (mtb_machine_remote(run->machine))
        return mtb_remote_run(run, record);
    return (int)mtb_run_one(run, record);
}
