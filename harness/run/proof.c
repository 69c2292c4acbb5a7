/* proof.c - see proof.h */
#include "run/proof.h"
#include "core/mode.h"
#include "core/proof_rows.h"
#include "probe/vmflags.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/argv.h"
#include "lib/files.h"
#include "lib/jsonx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

json_t *mtb_proof_parse(const char *text)
{
    json_t *o = json_object();
    char *copy = mtb_strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = 0;
        const char *v = eq + 1;
        char *end;
        long long num = strtoll(v, &end, 0);
        if (*v && !*end && strncmp(v, "0x", 2) != 0) /* addresses stay readable hex */
            json_object_set_new(o, line, json_integer(num));
        else
            json_object_set_new(o, line, json_string(v));
    }
    free(copy);
    return o;
}

int mtb_proof_check(const struct mtb_mode *m, json_t *probe, char *why, size_t n)
{
    struct mtb_probe_view pv;
    mtb_probe_view_read(probe, &pv);
    const char *tcf = pv.tcf, *tp = pv.tagged_ptrs;
    int tagged = tp ? atoi(tp) : -1;
    long long w = pv.has_write_fault ? pv.write_fault : -100, r = pv.has_read_fault ? pv.read_fault : -100;
    if (!tcf || !tp || w == -100 || r == -100) {
        snprintf(why, n, "probe output incomplete");
        return 0;
    }
    if (strcmp(tcf, m->tcf) != 0) {
        snprintf(why, n, "tag-check mode is '%s' (PR_GET_TAGGED_ADDR_CTRL), expected '%s'", tcf, m->tcf);
        return 0;
    }
    if (m->tagged ? tagged <= 0 : tagged != 0) {
        snprintf(why, n, "malloc returned %s tagged pointers, expected %s", tp, m->tagged ? "some" : "none");
        return 0;
    }
    if (w != m->write_code || r != m->read_code) {
        snprintf(why, n, "a tag mismatch raised si_code %lld on store and %lld on load; "
                 "mode %s expects %d and %d (9 = SEGV_MTESERR, 8 = SEGV_MTEAERR, 0 = none)",
                 w, r, m->name, m->write_code, m->read_code);
        return 0;
    }
    snprintf(why, n, "proved: tcf=%s, %s tagged pointers, store fault %lld, load fault %lld",
             tcf, tp, w, r);
    return 1;
}

int mtb_proof_run(const struct mtb_platform *p, const struct mtb_mode *m, char *const *env,
                  json_t **out, char *why, size_t n)
{
    json_t *o = json_object();
    *out = o;
    json_object_set_new(o, "mode", json_string(m->name));
    json_object_set_new(o, "tunable", json_integer(m->tunable));
    if (!strcmp(p->target(), "native") && !mtb_host_is_arm64()) {
        /* no MTE exists on this architecture: "off" holds by construction */
        int ok = !strcmp(m->name, "off");
        snprintf(why, n, ok ? "host is not arm64: no tag checks exist, mode off holds by construction"
                            : "host is not arm64: mode cannot hold");
        json_object_set_new(o, "ok", json_boolean(ok));
        json_object_set_new(o, "method", json_string("architecture"));
        json_object_set_new(o, "reason", json_string(why));
        return ok;
    }
    char *probe = mtb_asprintf("%s/build/aarch64/mteprobe", mtb_root());
    struct mtb_argv argv = { 0 }, envx = { 0 };
    p->wrap(&argv, &envx, probe, env);
    /* the probe runs with the service's environment (the host-side entries
     * added to its own), in a process group of its own and under a deadline
     * (lib/proc.c), as every child of the harness */
    int st = -1;
    char *text = mtb_proc_capture_env(argv.v, envx.v, 0, MTB_CAPTURE_LIMIT, &st); /* both NULL-terminated */
    json_object_set_new(o, "method", json_string("probe"));
    json_object_set_new(o, "command", json_string(argv.v[0]));
    int ok = 0;
    if (st != 0 || !text) {
        char d[64];
        snprintf(why, n, "mode probe %s failed (%s)", probe,
                 st == -ETIMEDOUT ? "no answer in its time"
                 : st < 0         ? "not started"
                                  : mtb_proc_describe(st, d, sizeof d));
    } else {
        json_t *pr = mtb_proof_parse(text);
        ok = mtb_proof_check(m, pr, why, n);
        json_object_set_new(o, "probe", pr);
    }
    json_object_set_new(o, "expected", json_pack("{s:s,s:b,s:i,s:i}", "tcf", m->tcf, "tagged", m->tagged,
                                                 "write_fault", m->write_code, "read_fault", m->read_code));
    json_object_set_new(o, "ok", json_boolean(ok));
    json_object_set_new(o, "reason", json_string(why));
    free(text);
    free(probe);
    mtb_argv_free(&argv);
    mtb_argv_free(&envx);
    return ok;
}

int mtb_proof_smaps_mt(pid_t pid, int *shared, json_t *shared_names)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024], name[512] = "";
    int count = 0, sh_count = 0;
    while (fgets(line, sizeof line, f)) {
        int mt, sh;
        if (!mtb_vmflags(line, &mt, &sh)) {
            /* a mapping's header: "start-end perms offset dev inode [name]" */
            unsigned long a, b;
            int off = 0;
            if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &a, &b, &off) == 2 && off > 0) {
                snprintf(name, sizeof name, "%s", line + off);
                name[strcspn(name, "\n")] = 0;
            }
            continue;
        }
        count += mt;
        sh_count += mt && sh;
        if (mt && sh && shared_names)
            json_array_append_new(shared_names, json_string(name[0] ? name : "[anonymous]"));
    }
    fclose(f);
    if (shared)
        *shared = sh_count;
    return count;
}

int mtb_proof_smaps_max(const char *path, int *shared)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    int max = -1, maxsh = -1, n, sh;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MTEBENCH-SMAPS mt=%d shared=%d", &n, &sh) == 2) {
            max = n > max ? n : max;
            maxsh = sh > maxsh ? sh : maxsh;
        }
    fclose(f);
    if (shared)
        *shared = maxsh;
    return max;
}

int mtb_proof_allocator(json_t *proof, const struct mtb_allocator *a, const struct mtb_mode *m, char *why, size_t n)
{
    if (strcmp(mtb_proof_method(proof), "probe") != 0)
        return 1; /* no probe ran (no MTE on this architecture): glibc's malloc, the only one allowed there */
    struct mtb_probe_view pv;
    mtb_probe_view_of_proof(proof, &pv);
    const char *from = pv.malloc_from, *small = pv.tagged_ptrs, *large = pv.tagged_large;
    json_object_set_new(proof, "allocator", json_pack("{s:s,s:s?,s:s?,s:s?}", "name", a->name, "malloc_from", from,
                                                      "tagged_small", small, "tagged_large", large));
    if (!from) {
        snprintf(why, n, "allocator %s not proved: the probe did not say whose malloc serves it", a->name);
        return 0;
    }
    if (!strstr(from, a->serves_as)) {
        snprintf(why, n, "allocator %s not in effect: malloc comes from %s, not %s", a->name, from, a->serves_as);
        return 0;
    }
    snprintf(why, n, "proved: tcf=%s, malloc from %s, %s small and %s large blocks tagged", m->tcf, from,
             small ? small : "?", large ? large : "?");
    json_object_set_new(proof, "reason", json_string(why));
    return 1;
}
