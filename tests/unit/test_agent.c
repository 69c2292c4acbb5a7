/* Unit tests of the agent step: a run on the vm platform and a run on a
 * server host go through the same agent step. A recording transport takes
 * the place of the console and of ssh in the registry; both runs make the
 * same calls (open, put the build, exec the far `mtebench run`, close) with
 * the same far arguments but for what names the far side, and both records
 * carry the controller's identity of the run (its place in the plan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/platforms.h"
#include "agent/agent.h"
#include "core/machine.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "agent/remote.h"
#include "run/run.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

static char calls[16][2048];
static int ncalls;

static void note(const char *fmt, const char *a, const char *b)
{
    if (ncalls < 16)
        snprintf(calls[ncalls++], sizeof calls[0], fmt, a, b);
}

struct mtb_session {
    int dummy;
};
static struct mtb_session the_session;

static struct mtb_session *rec_open(const struct mtb_agent_target *t, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    note("open%s%s", "", "");
    return t ? &the_session : NULL;
}

static int rec_put(struct mtb_session *s, const char *local, const char *remote, const char *sha256, char *err,
                   size_t errlen)
{
    (void)s;
    (void)local;
    (void)err;
    (void)errlen;
    note("put %s %s", remote, sha256 ? sha256 : "-");
    return 0;
}

/* the far side: writes the far record as a far `mtebench run` would (run
 * 1 of 1 of plan "run", as the far side sees it) */
static int rec_exec(struct mtb_session *s, char *const *argv, double deadline_s, const char *local_dir,
                    struct mtb_agent_result *res, char *err, size_t errlen)
{
    (void)s;
    (void)deadline_s;
    (void)err;
    (void)errlen;
    char line[2048] = "exec";
    for (char *const *a = argv; *a; a++)
        snprintf(line + strlen(line), sizeof line - strlen(line), " %s", *a);
    note("%s%s", line, "");
    memset(res, 0, sizeof *res);
    res->connected = res->finished = 1;
    res->exit_status = 0;
    snprintf(res->uname_r, sizeof res->uname_r, "6.12.0-far");
    res->info = json_pack("{s:s}", "transport", "recording");
    char *d = mtb_asprintf("%s/001-plain-sync", local_dir);
    mtb_mkdir_p(d);
    char *p = mtb_asprintf("%s/record.json", d);
    json_t *far = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i},s:{s:s},s:{s:s}}", "schema",
                            MTB_RECORD_SCHEMA, "status", "ok", "config", "service", "memcached", "variant", "plain",
                            "mode", "sync", "platform", "host", "kernel", "host", "plan", "run", "rep", 1, "index", 1,
                            "total", 1, "kernel", "uname_r", "6.12.0-far", "platform", "cpu_model", "far");
    mtb_record_write(p, far);
    json_decref(far);
    free(p);
    free(d);
    return 0;
}

static void rec_close(struct mtb_session *s)
{
    (void)s;
    note("close%s%s", "", "");
}

static const struct mtb_transport console_rec = { .name = "console", .summary = "recording", .open = rec_open,
                                                   .put = rec_put, .exec = rec_exec, .close = rec_close };
static const struct mtb_transport ssh_rec = { .name = "ssh", .summary = "recording", .open = rec_open,
                                               .put = rec_put, .exec = rec_exec, .close = rec_close };

/* the calls, with what names the far side taken out of exec's arguments */
static void calls_of(char out[][2048], int *n)
{
    static const char *const far_only[] = { " --platform=host", " --platform=emu", " --server-host=local",
                                            " --client-hosts=none", NULL };
    for (int i = 0; i < ncalls; i++) {
        snprintf(out[i], 2048, "%s", calls[i]);
        for (const char *const *f = far_only; *f; f++) {
            char *at = strstr(out[i], *f);
            if (at)
                memmove(at, at + strlen(*f), strlen(at + strlen(*f)) + 1);
        }
    }
    *n = ncalls;
}

int main(void)
{
    char err[MTB_ERRLEN];
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *dir = mtb_asprintf("%s/mtb-test-agent.%d", tmp, (int)getpid());
    mtb_mkdir_p(dir);
    ok(mtb_transport_register(&console_rec) == 1 && mtb_transport_find("console") == &console_rec,
       "a recording transport in the console's place");
    ok(mtb_transport_register(&ssh_rec) == 1 && mtb_transport_find("ssh") == &ssh_rec, "and in ssh's");

    struct mtb_recipe *r = mtb_recipe_find("memcached", err, sizeof err);
    struct mtb_workload wl;
    mtb_workload_defaults(r, "default", &wl, NULL);
    char *image = mtb_asprintf("%s/Image", dir);
    mtb_write_atomic(image, "not a kernel", 12);
    char *bdir = mtb_asprintf("%s/build", dir);
    mtb_mkdir_p(bdir);
    struct mtb_build b = { .key = "0123456789abcdef", .dir = bdir, .binary = bdir, .info = json_pack("{s:s}", "key", "0123") };
    struct mtb_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "test");
    struct mtb_run run = { .recipe = r, .variant = "plain", .mode = mtb_mode_find("sync"), .kernel = image, .wl = &wl,
                           .build = &b, .machine = &m, .rep = 3, .index = 7, .total = 12, .plan = "the-plan",
                           .quiet = 1 };

    /* the vm platform, as a plan runs it */
    run.platform = &mtb_platform_vm;
    run.dir = mtb_asprintf("%s/vm", dir);
    json_t *vrec = NULL;
    ncalls = 0;
    enum mtb_run_status vs = mtb_run_one(&run, &vrec);
    char vm_calls[16][2048];
    int nvm;
    calls_of(vm_calls, &nvm);
    for (int i = 0; i < nvm; i++)
        diag("vm: %s", calls[i]);

    /* a server host with PLATFORM=emu, as a plan runs it */
    snprintf(m.server_host, sizeof m.server_host, "far.example");
    run.platform = mtb_remote_platform(&mtb_platform_emu);
    run.kernel = "host";
    run.dir = mtb_asprintf("%s/ssh", dir);
    json_t *srec = NULL;
    ncalls = 0;
    enum mtb_run_status ss = mtb_run_one(&run, &srec);
    char ssh_calls[16][2048];
    int nssh;
    calls_of(ssh_calls, &nssh);
    for (int i = 0; i < nssh; i++)
        diag("ssh: %s", calls[i]);

    ok(nvm == 4 && !strcmp(vm_calls[0], "open") && !strncmp(vm_calls[1], "put builds/memcached/plain ", 27) &&
           !strncmp(vm_calls[2], "exec run ", 9) && !strcmp(vm_calls[3], "close"),
       "vm: open, put the build, exec the far run, close");
    ok(nssh == nvm, "ssh: as many calls as the vm (%d, %d)", nssh, nvm);
    int same = nssh == nvm;
    for (int i = 0; same && i < nvm; i++)
        same = !strcmp(vm_calls[i], ssh_calls[i]);
    ok(same, "the same calls with the same arguments, but for those naming the far side");
    ok(strstr(calls[2], " --platform=emu --kernel=host") && strstr(calls[2], " --server-host=local"),
       "the server host's far run on its platform, here (emu), serving locally");
    ok(vs == MTB_RUN_OK && ss == MTB_RUN_OK, "both runs ok (%d, %d)", vs, ss);
    const char *keys[] = { "plan", "rep", "index", "total", "platform", NULL };
    for (const char **k = keys; *k; k++) {
        json_t *vc = json_object_get(json_object_get(vrec, "config"), *k);
        json_t *sc = json_object_get(json_object_get(srec, "config"), *k);
        char *vt = json_dumps(vc, JSON_ENCODE_ANY), *st = json_dumps(sc, JSON_ENCODE_ANY);
        diag("config.%s: vm %s, server host %s", *k, vt, st);
        free(vt);
        free(st);
    }
    ok(json_integer_value(json_object_get(json_object_get(vrec, "config"), "index")) == 7 &&
           json_integer_value(json_object_get(json_object_get(srec, "config"), "index")) == 7 &&
           !strcmp(json_string_value(json_object_get(json_object_get(srec, "config"), "plan")), "the-plan") &&
           !strcmp(json_string_value(json_object_get(json_object_get(vrec, "config"), "plan")), "the-plan"),
       "both records: the controller's place in the plan (run 7 of 12 of the-plan), not the far side's");
    ok(!strcmp(json_string_value(json_object_get(json_object_get(vrec, "config"), "platform")), "vm") &&
           !strcmp(json_string_value(json_object_get(json_object_get(srec, "config"), "platform")), "emu"),
       "platforms: vm; emu on the server host");
    ok(json_is_object(json_object_get(srec, "hosts")) &&
           !strcmp(json_string_value(json_object_get(json_object_get(srec, "hosts"), "server_host")), "far.example"),
       "the server host's record names it");
    json_decref(vrec);
    json_decref(srec);
    json_decref(b.info);
    mtb_rm_rf(dir);
    return done_testing();
}
