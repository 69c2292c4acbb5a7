/* agent.c - see agent.h: the transports and the agent step */
#include "agent/agent.h"
#include "core/load_rows.h"
#include "core/record.h"
#include "core/run_request.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one line per transport (transport_<name>.c) */
extern const struct mtb_transport mtb_transport_console, mtb_transport_ssh;

#define NTRANSPORTS 8
static const struct mtb_transport *transports[NTRANSPORTS] = { &mtb_transport_console, &mtb_transport_ssh };

const struct mtb_transport *mtb_transport_find(const char *name)
{
    for (int i = 0; i < NTRANSPORTS && transports[i]; i++)
        if (name && !strcmp(transports[i]->name, name))
            return transports[i];
    return NULL;
}

int mtb_transport_register(const struct mtb_transport *t)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        if (!transports[i] || !strcmp(transports[i]->name, t->name)) {
            int replaced = transports[i] != NULL;
            transports[i] = t;
            return replaced;
        }
    return -1;
}

/* exec in a thread of its own while far->during runs in this one */
struct exec_job {
    const struct mtb_transport *t;
    struct mtb_session *s;
    char *const *argv;
    double deadline;
    const char *local;
    struct mtb_agent_result *res;
    char *err;
    size_t errlen;
    int rc;
    volatile int ended;
};

static void *exec_main(void *arg)
{
    struct exec_job *j = arg;
    j->rc = j->t->exec(j->s, j->argv, j->deadline, j->local, j->res, j->err, j->errlen);
    j->ended = 1;
    return NULL;
}

/* open, put each input, exec (beside far->during when there is one), close */
static int agent_step(const struct mtb_transport *t, const struct mtb_agent_target *target,
                      const struct mtb_agent_job *job, const struct mtb_agent_far *far, struct mtb_agent_result *res,
                      char *err, size_t errlen)
{
    const struct mtb_agent_put *puts = job->puts;
    char *const *argv = job->argv;
    double deadline_s = job->deadline_s;
    const char *local_dir = job->local_dir;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    struct mtb_session *s = t->open(target, err, errlen);
    if (!s)
        return -1;
    int rc = 0;
    for (int i = 0; i < job->nputs && rc == 0; i++)
        rc = t->put(s, puts[i].local, puts[i].remote, puts[i].sha256, err, errlen);
    if (rc == 0 && !(far && far->during)) {
        rc = t->exec(s, argv, deadline_s, local_dir, res, err, errlen);
    } else if (rc == 0) {
        struct exec_job j = { t, s, argv, deadline_s, local_dir, res, err, errlen, -1, 0 };
        pthread_t th;
        if (pthread_create(&th, NULL, exec_main, &j) != 0) {
            snprintf(err, errlen, "cannot start a thread");
            rc = -1;
        } else {
            far->during(t, s, &j.ended, far->arg);
            pthread_join(th, NULL);
            rc = j.rc;
        }
    }
    t->close(s);
    return rc;
}

int mtb_agent_exec(const struct mtb_transport *t, const struct mtb_agent_target *target,
                   const struct mtb_agent_job *job, struct mtb_agent_result *res, struct mtb_err *e)
{
    char err[MTB_ERRLEN] = "";
    int rc = agent_step(t, target, job, NULL, res, err, sizeof err);
    if (rc < 0)
        mtb_err_set(e, MTB_ERR_FAIL, "%s", err[0] ? err : "the agent step failed");
    return rc;
}

/* The far `mtebench run` of a run: run --platform=P --kernel=host
 * --service --variant --mode --build={root}/builds/S/V --results={out},
 * far->args, every workload field (so the far record names the same
 * workload) and its params (--param), --quiet; a detection trial's bug switch and trigger, which
 * `mtebench detect` sets in this process's environment for the run, as
 * --bug and --bug-trigger (the trigger under the far checkout: {root}/...).
 * Into a (NULL-terminated). */
static void mtb_agent_run_argv(const struct mtb_run *run, const struct mtb_agent_far *far, struct mtb_argv *a)
{
    mtb_argv_push(a, "run");
    mtb_argv_pushf(a, "--platform=%s", far->platform);
    mtb_argv_push(a, "--kernel=host");
    mtb_argv_pushf(a, "--service=%s", run->recipe->name);
    mtb_argv_pushf(a, "--variant=%s", run->variant);
    mtb_argv_pushf(a, "--mode=%s", run->mode->name);
    if (run->allocator && run->allocator->preload)
        mtb_argv_pushf(a, "--allocator=%s", run->allocator->name);
    mtb_argv_pushf(a, "--build={root}/builds/%s/%s", run->recipe->name, run->variant);
    mtb_argv_push(a, "--results={out}");
    if (run->count)
        mtb_argv_push(a, "--count");
    if (run->fault_report) /* a detect trial's allocation record, in the guest too */
        mtb_argv_push(a, "--fault-report");
    for (char *const *x = far->args; x && *x; x++)
        mtb_argv_push(a, *x);
    const char *bug = run->bug_switch, *trig = run->trigger;
    size_t rl = strlen(mtb_root());
    if (bug && *bug)
        mtb_argv_pushf(a, "--bug=%s", bug);
    if (bug && *bug && trig && *trig)
        mtb_argv_pushf(a, "--bug-trigger=%s%s", !strncmp(trig, mtb_root(), rl) && trig[rl] == '/' ? "{root}" : "",
                       !strncmp(trig, mtb_root(), rl) && trig[rl] == '/' ? trig + rl : trig);
    mtb_workload_args(run->wl, a);
    for (size_t i = 0; run->wl->params && i < run->wl->params->n; i++) { /* a trial's workload params (--param, spaces and % encoded) */
        const char *pk = run->wl->params->kv[i].key;
        char *v = mtb_strdup(""), *n;
        for (const char *s = run->wl->params->kv[i].value; *s; s++, free(v), v = n)
            n = *s == ' ' ? mtb_asprintf("%s%%20", v) : *s == '%' ? mtb_asprintf("%s%%25", v) : mtb_asprintf("%s%c", v, *s);
        mtb_argv_pushf(a, "--param=%s=%s", pk, v);
        free(v);
    }
    mtb_argv_push(a, "--quiet");
}

/* The far record brought back into local (its run's directory under
 * far->dir), given the run's identity; or, when none came back, an error
 * record saying why (err, or that the far mtebench wrote none). *rc
 * becomes -1 when the record is not the far run's own. */
static json_t *far_record(const struct mtb_run *run, const struct mtb_agent_far *far, const char *local,
                          const char *started, const struct mtb_agent_result *res, int *rc, char *err, size_t errlen)
{
    char lab[128];
    char *rp = mtb_asprintf("%s/001-%s-%s/record.json", local, mtb_variant_label(run->variant, run->allocator, lab, sizeof lab),
                            run->mode->name);
    json_error_t je;
    json_t *rec = json_load_file(rp, 0, &je);
    free(rp);
    if (!rec && !err[0])
        snprintf(err, errlen, "%s%sits mtebench wrote no record (exit %d); see %s/agent.log", far->name ? far->name : "",
                 far->name ? ": " : "the far side: ", res->exit_status, local);
    if (!rec) {
        rec = mtb_run_record(run, far->kernel);
        json_object_set_new(rec, "started", json_string(started));
        mtb_record_fail(rec, err);
        *rc = -1;
        return rec;
    }
    mtb_run_identify(run, far->kernel, rec);
    /* files the far record names (load.hlog) are relative to its directory, which came back under far->dir */
    struct mtb_load_view lv;
    mtb_load_view_of_record(rec, &lv);
    if (lv.hlog)
        mtb_record_load_hlog(rec, json_sprintf("%s/001-%s-%s/%s", far->dir, run->variant, run->mode->name, lv.hlog));
    if (*rc != 0 && mtb_record_status(rec) == MTB_RUN_OK)
        mtb_record_fail(rec, err);
    return rec;
}

/* err prefixed with the far side's name */
static void name_err(const struct mtb_agent_far *far, char *err, size_t errlen)
{
    if (err[0] && far->name) {
        char *e = mtb_asprintf("%s: %s", far->name, err);
        snprintf(err, errlen, "%s", e);
        free(e);
    }
}

int mtb_agent_run(const struct mtb_transport *t, const struct mtb_agent_target *target, const struct mtb_run *run,
                  const struct mtb_agent_far *far, struct mtb_agent_result *res, json_t **record, char *err,
                  size_t errlen)
{
    err[0] = 0;
    char started[32];
    mtb_utc_iso(started, sizeof started);
    mtb_mkdir_p(run->dir);
    struct mtb_argv g = { 0 };
    mtb_agent_run_argv(run, far, &g);
    char *remote = mtb_asprintf("builds/%s/%s", run->recipe->name, run->variant);
    const char *sname = far->seed ? strrchr(far->seed, '/') : NULL;
    char *sremote = mtb_asprintf("seed/setup/%s", sname ? sname + 1 : "");
    /* a seed's name is its content key */
    struct mtb_agent_put puts[2] = { { run->build->dir, remote, run->build->key },
                                     { far->seed, sremote, sname ? sname + 1 : NULL } };
    char *local = mtb_asprintf("%s/%s", run->dir, far->dir);
    double deadline = 300 + 3 * (run->wl->duration + run->wl->warmup);
    const struct mtb_agent_job job = { puts, sname ? 2 : 1, g.v, deadline, local };
    int rc = agent_step(t, target, &job, far, res, err, errlen);
    name_err(far, err, errlen);
    /* the far record, even when the step did not end well (it may say why) */
    *record = far_record(run, far, local, started, res, &rc, err, errlen);
    mtb_argv_free(&g);
    free(remote);
    free(sremote);
    free(local);
    return rc;
}

int mtb_agent_fetch(const struct mtb_transport *t, const struct mtb_agent_target *target, const struct mtb_run *run,
                    const struct mtb_agent_far *far, const char *far_out, struct mtb_agent_result *res,
                    json_t **record, struct mtb_err *e)
{
    char err[MTB_ERRLEN] = "";
    *record = NULL;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    if (!t->fetch) {
        mtb_err_set(e, MTB_ERR_FAIL, "the %s transport cannot bring back an earlier run's output", t->name);
        return 1;
    }
    struct mtb_session *s = t->open(target, err, sizeof err);
    if (!s) {
        name_err(far, err, sizeof err);
        return mtb_err_set(e, MTB_ERR_FAIL, "%s", err);
    }
    char *local = mtb_asprintf("%s/%s", run->dir, far->dir);
    int rc = t->fetch(s, far_out, local, res, err, sizeof err);
    t->close(s);
    name_err(far, err, sizeof err);
    if (rc == 0) {
        char started[32];
        mtb_utc_iso(started, sizeof started);
        *record = far_record(run, far, local, started, res, &rc, err, sizeof err);
    }
    free(local);
    if (err[0])
        mtb_err_set(e, MTB_ERR_FAIL, "%s", err);
    return rc;
}
