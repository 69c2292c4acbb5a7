/* agent.c - see agent.h: the transports and the agent step */
#include "agent.h"
#include "run.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one line per transport (transport_<name>.c) */
extern const struct mtb_transport mtb_transport_console, mtb_transport_ssh;

const struct mtb_transport *const mtb_transports[] = { &mtb_transport_console, &mtb_transport_ssh, NULL };

const struct mtb_transport *mtb_transport_find(const char *name)
{
    for (const struct mtb_transport *const *t = mtb_transports; *t; t++)
        if (name && !strcmp((*t)->name, name))
            return *t;
    return NULL;
}

int mtb_agent_exec(const struct mtb_transport *t, const struct mtb_agent_target *target,
                   const struct mtb_agent_put *puts, int nputs, char *const *argv, double deadline_s,
                   const char *local_dir, struct mtb_agent_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    struct mtb_session *s = t->open(target, err, errlen);
    if (!s)
        return -1;
    int rc = 0;
    for (int i = 0; i < nputs && rc == 0; i++)
        rc = t->put(s, puts[i].local, puts[i].remote, puts[i].sha256, err, errlen);
    if (rc == 0)
        rc = t->exec(s, argv, deadline_s, local_dir, res, err, errlen);
    t->close(s);
    return rc;
}

static json_t *load_json_file(const char *p)
{
    json_error_t je;
    return json_load_file(p, 0, &je);
}

int mtb_agent_run(const struct mtb_transport *t, const struct mtb_agent_target *target,
                  const struct mtb_run *run, struct mtb_agent_result *res, json_t **record,
                  char *err, size_t errlen)
{
    *record = NULL;
    struct mtb_argv g = { 0 };
    mtb_argv_push(&g, "run");
    mtb_argv_push(&g, "--platform=host");
    mtb_argv_push(&g, "--kernel=host");
    mtb_argv_pushf(&g, "--service=%s", run->recipe->name);
    mtb_argv_pushf(&g, "--variant=%s", run->variant);
    mtb_argv_pushf(&g, "--mode=%s", run->mode->name);
    mtb_argv_pushf(&g, "--build={root}/builds/%s/%s", run->recipe->name, run->variant);
    mtb_argv_push(&g, "--results={out}");
    mtb_workload_args(run->wl, &g);
    mtb_argv_push(&g, "--quiet");
    char *remote = mtb_asprintf("builds/%s/%s", run->recipe->name, run->variant);
    struct mtb_agent_put put = { run->build->dir, remote, run->build->key };
    char *local = mtb_asprintf("%s/guest", run->dir);
    double deadline = 240 + 3 * (run->wl->duration + run->wl->warmup);
    int rc = mtb_agent_exec(t, target, &put, 1, g.v, deadline, local, res, err, errlen);
    if (rc == 0) {
        char *rp = mtb_asprintf("%s/001-%s-%s/record.json", local, run->variant, run->mode->name);
        *record = load_json_file(rp);
        /* files the far record names (load.hlog) are relative to its directory, now under guest/ */
        json_t *ld = json_object_get(*record, "load");
        if (json_is_string(json_object_get(ld, "hlog")))
            json_object_set_new(ld, "hlog", json_sprintf("guest/001-%s-%s/%s", run->variant, run->mode->name,
                                                         json_string_value(json_object_get(ld, "hlog"))));
        if (!*record) {
            snprintf(err, errlen, "the far side's mtebench wrote no record (exit %d); see %s/agent.log",
                     res->exit_status, local);
            rc = -1;
        }
        free(rp);
    }
    mtb_argv_free(&g);
    free(remote);
    free(local);
    return rc;
}
