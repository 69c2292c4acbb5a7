/* remote.c - see remote.h */
#include "remote.h"
#include "clients.h"
#include "driver.h"
#include "proc.h"
#include "run.h"
#include "transport_ssh.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the far side ------------------------------------------------------------ */

json_t *mtb_remote_serve(const struct mtb_drive *d, const char *dir, char *why, size_t n)
{
    mtb_mkdir_p(dir);
    char *sp = mtb_asprintf("%s/serving.json", dir), *stop = mtb_asprintf("%s/stop", dir);
    char *text = mtb_asprintf("{\"port\": %d, \"pid\": %d}\n", d->port, (int)getpid());
    json_t *load = NULL;
    if (mtb_write_atomic(sp, text, strlen(text)) != 0) {
        snprintf(why, n, "cannot write %s", sp);
        goto out;
    }
    double t0 = mtb_mono();
    while (!mtb_file_exists(stop)) {
        if (mtb_proc_interrupted) {
            snprintf(why, n, "interrupted while serving the client hosts");
            goto out;
        }
        if (mtb_mono() - t0 > d->timeout) {
            snprintf(why, n, "the controller did not end the load within %.0f s", d->timeout);
            goto out;
        }
        usleep(50000);
    }
    load = json_pack("{s:s,s:s}", "schema", "mtload/1", "external",
                     "the load came from client hosts; the controller merges their results into this record");
out:
    free(sp);
    free(stop);
    free(text);
    return load;
}

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

int mtb_remote_run(const struct mtb_run *run, json_t **record)
{
    const struct mtb_machine *mach = run->machine;
    const struct mtb_workload *w = run->wl;
    char started[32], finished[32], err[MTB_ERRLEN] = "", cerr[MTB_ERRLEN] = "";
    mtb_utc_iso(started, sizeof started);
    mtb_mkdir_p(run->dir);
    json_t *rec = NULL, *merged = NULL, *cbefore = NULL, *cafter = NULL;
    struct mtb_clients cl = { 0 };
    int have_clients = mach->client_hosts[0] != 0;
    struct server_job job = { 0 };
    char *ext = NULL, *swd = mtb_asprintf("%s/ssh-server", run->dir);
    struct mtb_agent_target t = { .where = mach->server_host, .workdir = swd, .quiet = run->quiet };
    struct mtb_session *s = mtb_transport_ssh.open(&t, err, sizeof err);
    pthread_t th;
    int started_th = 0;
    if (!s) {
        char e2[MTB_ERRLEN];
        snprintf(e2, sizeof e2, "server host %s: %s", mach->server_host, err);
        snprintf(err, sizeof err, "%s", e2);
        goto done;
    }
    char *remote_build = mtb_asprintf("builds/%s/%s", run->recipe->name, run->variant);
    int prc = mtb_transport_ssh.put(s, run->build->dir, remote_build, run->build->key, err, sizeof err);
    free(remote_build);
    if (prc != 0)
        goto done;
    if (have_clients && mtb_clients_open(&cl, mach->client_hosts, run->dir, err, sizeof err) != 0)
        goto done;

    /* the far mtebench run: the same run, made there */
    struct mtb_argv *g = &job.argv;
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
    if (mach->path[0] && strstr(mach->path, "/configs/machines/"))
        mtb_argv_pushf(g, "--machine=%s", mach->name);
    mtb_workload_args(w, g);
    mtb_argv_push(g, "--quiet");
    if (have_clients) {
        ext = mtb_asprintf("ext/%d-%d", (int)getpid(), run->index);
        mtb_argv_pushf(g, "--external-load={root}/%s", ext);
    }
    job.s = s;
    job.local = mtb_asprintf("%s/server", run->dir);
    job.deadline = 300 + 3 * (w->duration + w->warmup);
    if (pthread_create(&th, NULL, server_main, &job) != 0) {
        snprintf(err, sizeof err, "cannot start a thread");
        goto done;
    }
    started_th = 1;
    if (have_clients) {
        /* wait for the far service to serve, then load it from every client */
        int port = 0;
        double t0 = mtb_mono();
        char *cat = mtb_asprintf("cat %s/serving.json 2>/dev/null; true", ext);
        while (!job.done && !mtb_proc_interrupted && mtb_mono() - t0 < 300) {
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
        if (port <= 0) {
            snprintf(cerr, sizeof cerr, "server host %s: the service never came to serve the client hosts%s",
                     mach->server_host, job.done ? " (the far run ended: see its record)" : "");
        } else {
            const char *addr = mach->server_address[0]
                                   ? mach->server_address
                                   : json_string_value(json_object_get(mtb_ssh_info(s), "address"));
            char *server = mtb_asprintf("%s:%d", addr ? addr : "127.0.0.1", port);
            const char *proto = mtb_recipe_get(run->recipe, "run", "protocol");
            struct mtb_client_load l = { .server = server, .protocol = proto ? proto : "memcache", .mix = w->mix,
                                         .value_size = w->value_size, .keys = w->keys, .conns = w->conns,
                                         .threads = w->threads, .pipeline = w->pipeline, .rate = w->rate,
                                         .duration = w->duration };
            json_t *wm = NULL;
            if (w->warmup > 0) { /* warm-up: the same load, not measured, before the counters are read */
                struct mtb_client_load lw = l;
                lw.duration = w->warmup;
                char *wd = mtb_asprintf("%s/clients-warmup", run->dir);
                mtb_mkdir_p(wd);
                wm = mtb_clients_run(&cl, &lw, wd, cerr, sizeof cerr);
                free(wd);
            }
            if (w->warmup <= 0 || wm) {
                cbefore = far_counters(s, run, port);
                char *cd = mtb_asprintf("%s/clients", run->dir);
                mtb_mkdir_p(cd);
                merged = mtb_clients_run(&cl, &l, cd, cerr, sizeof cerr);
                free(cd);
                cafter = far_counters(s, run, port);
            }
            json_decref(wm);
            free(server);
        }
        /* always: the far run stops serving */
        char *stop = mtb_asprintf("mkdir -p %s && touch %s/stop", ext, ext), e[MTB_ERRLEN];
        mtb_ssh_sh(s, stop, 30, NULL, e, sizeof e);
        free(stop);
    }
    pthread_join(th, NULL);
    started_th = 0;
    if (job.rc != 0)
        snprintf(err, sizeof err, "server host %.150s: %.300s", mach->server_host, job.err);
    char *rp = mtb_asprintf("%s/001-%s-%s/record.json", job.local, run->variant, run->mode->name);
    json_error_t je;
    rec = json_load_file(rp, 0, &je);
    if (!rec && !err[0])
        snprintf(err, sizeof err, "server host %s: its mtebench wrote no record (exit %d); see %s/agent.log",
                 mach->server_host, job.res.exit_status, job.local);
    free(rp);

done:
    if (started_th) {
        pthread_join(th, NULL);
    }
    if (!rec)
        rec = base_record(run, started, err[0] ? err : cerr);
    /* the controller's view: the run's place in the plan, the hosts */
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
    if (have_clients)
        json_object_set_new(hosts, "client_hosts", json_string(mach->client_hosts));
    json_object_set_new(rec, "hosts", hosts);
    if (have_clients && json_is_object(json_object_get(rec, "load"))) {
        if (merged) {
            json_object_set(rec, "clients", json_object_get(merged, "clients"));
            json_object_set_new(rec, "summary", mtb_run_summary(merged));
            json_object_set(rec, "load", merged);
            long long b = counted(cbefore), a = counted(cafter);
            long long req = json_integer_value(json_object_get(json_object_get(merged, "totals"), "requests"));
            json_object_set_new(rec, "client_check",
                                json_pack("{s:I,s:o,s:o,s:o,s:s}", "merged_requests", (json_int_t)req,
                                          "service_requests", a >= 0 && b >= 0 ? json_integer(a - b) : json_null(),
                                          "before", cbefore ? json_incref(cbefore) : json_null(), "after",
                                          cafter ? json_incref(cafter) : json_null(), "how",
                                          "the service's cmd_get + cmd_set change over the measured load, read on the "
                                          "server host, against the clients' merged request count"));
            if (a >= 0 && b >= 0 && a - b != req && !strcmp(json_string_value(json_object_get(rec, "status")), "ok")) {
                char m[MTB_ERRLEN];
                snprintf(m, sizeof m, "the client hosts' merged request count (%lld) differs from the service's own "
                         "count (%lld)", req, a - b);
                set_error(rec, m);
            }
        } else {
            /* a partial merge is never a result */
            json_object_del(rec, "load");
            json_object_del(rec, "summary");
            if (!json_object_get(rec, "error") || !strcmp(json_string_value(json_object_get(rec, "status")), "ok"))
                set_error(rec, cerr[0] ? cerr : err);
            char *cp = mtb_asprintf("%s/clients/clients.json", run->dir);
            json_error_t je2;
            json_t *cj = json_load_file(cp, 0, &je2);
            if (cj)
                json_object_set_new(rec, "clients", cj);
            free(cp);
        }
    } else if (have_clients && (cerr[0] || err[0]) && !strcmp(json_string_value(json_object_get(rec, "status")), "ok")) {
        set_error(rec, cerr[0] ? cerr : err);
    } else if (err[0] && json_string_value(json_object_get(rec, "status")) &&
               !strcmp(json_string_value(json_object_get(rec, "status")), "ok")) {
        set_error(rec, err);
    }
    mtb_utc_iso(finished, sizeof finished);
    json_object_set_new(rec, "finished", json_string(finished));
    json_object_set_new(rec, "logs", json_pack("{s:s,s:s}", "agent", "server/agent.log", "ssh", "ssh-server/ssh.log"));
    char *recp = mtb_asprintf("%s/record.json", run->dir);
    if (mtb_record_write(recp, rec) != 0)
        mtb_warn("cannot write %s", recp);
    free(recp);
    const char *st = json_string_value(json_object_get(rec, "status"));
    int status = st && !strcmp(st, "ok") ? MTB_RUN_OK : st && !strcmp(st, "fault") ? MTB_RUN_FAULT : MTB_RUN_ERROR;
    if (status != MTB_RUN_OK && !run->quiet)
        mtb_warn("run %d/%d (%s %s/%s on server host %s): %s", run->index, run->total, run->recipe->name, run->variant,
                 run->mode->name, mach->server_host, json_string_value(json_object_get(rec, "error")));
    if (s)
        mtb_transport_ssh.close(s);
    if (have_clients)
        mtb_clients_close(&cl);
    mtb_argv_free(&job.argv);
    free(job.local);
    json_decref(job.res.info);
    json_decref(merged);
    json_decref(cbefore);
    json_decref(cafter);
    free(ext);
    free(swd);
    *record = rec;
    return status;
}
