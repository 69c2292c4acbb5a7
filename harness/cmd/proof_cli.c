/* proof_cli.c - `mtebench proof`: the mode proved on a platform, as every
 * run proves it (run/proof.c), and with --count the micro-programs of known
 * work counted on vm. */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "core/countmark.h"
#include "core/mode.h"
#include "core/platform.h"
#include "lib/files.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "plan/platforms.h"
#include "run/proof.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

/* The micro-programs of known work (build/aarch64/mtework), each in a
 * counting window of its own: its "case=... window=... n=... body=..."
 * lines as objects (with the vCPU it ran on), or {"error": why}. */
static json_t *work_cases(void)
{
    char *prog = mtb_asprintf("%s/build/aarch64/mtework", mtb_root());
    char tmpl[] = "/tmp/mtework.XXXXXX";
    int fd = mkstemp(tmpl);
    json_t *out = NULL;
    /* this process on CPU 0, mtework on the last: its vCPU runs nothing
     * else at EL0 while it counts */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    sched_setaffinity(0, sizeof set, &set);
    if (fd >= 0) {
        close(fd);
        char *const argv[] = { prog, NULL };
        struct mtb_spawn s = { .argv = argv, .log_path = tmpl };
        int st = mtb_proc_run(&s, 60);
        char *text = mtb_read_file(tmpl, NULL);
        if (st == 0 && text) {
            out = json_array();
            char *save = NULL;
            int vcpu = -1;
            for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char name[32];
                int w, body, cpu;
                long n;
                if (sscanf(l, "cpu=%d", &cpu) == 1)
                    vcpu = cpu;
                else if (sscanf(l, "case=%31s window=%d n=%ld body=%d", name, &w, &n, &body) == 4)
                    json_array_append_new(out, json_pack("{s:s,s:i,s:I,s:i,s:i}", "case", name, "window", w, "n",
                                                         (json_int_t)n, "body", body, "vcpu", vcpu));
            }
        } else {
            char d[64];
            out = json_pack("{s:s}", "error", text && *text ? text : mtb_proc_describe(st, d, sizeof d));
        }
        free(text);
        unlink(tmpl);
    } else {
        out = json_pack("{s:s}", "error", "cannot make a temporary file");
    }
    free(prog);
    return out;
}

static const struct mtb_opt own[] = {
    MTB_OPT("probe-output", "FILE", NULL, 1, NULL,
            "check a saved probe output (JSON; '-' standard input) instead of\n"
            "running the probe"),
    { 0 },
};

static void probe_output(void *ctx, int id, const char *val)
{
    (void)id;
    *(const char **)ctx = val;
}

int mtb_cmd_proof(int argc, char **argv)
{
    /* mtebench proof --mode M [--platform P] [--probe-output FILE]
     * Runs the mode probe (or checks a saved probe output) and prints the
     * proof as JSON. Exit 0 when the mode is proved, 1 when not. */
    const char *file = NULL;
    struct mtb_opts o;
    struct mtb_cli_own mine = { own, probe_output, &file };
    mtb_cli_parse_own(argc, argv, &o, "proof", &mine);
    if (!o.mode)
        mtb_die(2, "proof: no MODE given (accepted: %s)", mtb_mode_names());
    o.service = "memcached"; /* any recipe: only the platform and mode matter */
    o.quiet = 1;
    if (file) {
        const struct mtb_mode *m = mtb_mode_find(o.mode);
        if (!m)
            mtb_die(2, "invalid MODE '%s' (accepted: %s)", o.mode, mtb_mode_names());
        char *text = !strcmp(file, "-") ? mtb_read_file("/dev/stdin", NULL) : mtb_read_file(file, NULL);
        if (!text)
            mtb_die(2, "proof: cannot read %s", file);
        char why[MTB_ERRLEN];
        json_t *pr = mtb_proof_parse(text);
        int ok = mtb_proof_check(m, pr, why, sizeof why);
        json_t *out = json_pack("{s:s,s:b,s:s,s:o}", "mode", m->name, "ok", ok, "reason", why, "probe", pr);
        json_dumpf(out, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
        json_decref(out);
        free(text);
        return ok ? 0 : 1;
    }
    mtb_cli_resolve(&o);
    if (o.p->proof) /* vm: the probe runs inside a guest of the chosen kernel */
        return o.p->proof(o.kernel, o.m->name, 0, o.count);
    if (o.count && strcmp(o.p->name, "host") != 0)
        mtb_die(2, "proof: --count counts under the vm platform's plugin (--platform vm), not on %s", o.p->name);
    char why[MTB_ERRLEN];
    char *env[] = { mtb_mode_env(o.m), NULL };
    json_t *proof = NULL;
    if (o.count) /* the guest's side of `proof --platform vm --count`: the proof counted */
        mtb_count_mark(MTB_COUNT_OPEN);
    int ok = mtb_mode_prefer(o.m, why, sizeof why) == 0 && mtb_proof_run(o.p, o.m, env, &proof, why, sizeof why);
    if (o.count)
        mtb_count_mark(MTB_COUNT_CLOSE);
    mtb_mode_restore();
    if (!proof)
        proof = json_pack("{s:b,s:s}", "ok", 0, "reason", why);
    json_object_set_new(proof, "platform", json_string(o.p->name));
    if (o.count)
        json_object_set_new(proof, "work_cases", work_cases());
    json_dumpf(proof, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
    printf("\n");
    if (!ok)
        fprintf(stderr, "mtebench: mode %s not proved on %s: %s\n", o.m->name, o.p->name, why);
    json_decref(proof);
    free(env[0]);
    return ok ? 0 : 1;
}
