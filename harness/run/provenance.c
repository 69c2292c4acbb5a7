/* provenance.c - see provenance.h */
#include "run/provenance.h"
#include "core/platform.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/proc.h"

#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *trimmed(char *s)
{
    if (!s)
        return NULL;
    s[strcspn(s, "\n")] = 0;
    return s;
}

/* The value of the first "key<tabs>: value" line of /proc/cpuinfo. */
static char *cpuinfo_field(const char *ci, const char *key)
{
    for (const char *p = ci; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t kl = strlen(key);
        if (strncmp(p, key, kl) || (p[kl] != '\t' && p[kl] != ' ' && p[kl] != ':'))
            continue;
        const char *c = strchr(p, ':');
        if (!c)
            continue;
        c++;
        while (*c == ' ')
            c++;
        return strndup(c, strcspn(c, "\n"));
    }
    return NULL;
}

static json_t *first_line_of(const char *prog, const char *arg)
{
    char *path = mtb_which(prog);
    if (!path)
        return json_null();
    char *const argv[] = { path, (char *)arg, NULL };
    int st;
    char *out = mtb_capture(argv, 1, &st);
    json_t *v = out && st == 0 ? json_string(trimmed(out)) : json_null();
    free(out);
    free(path);
    return v;
}

json_t *mtb_provenance(const struct mtb_machine *m)
{
    json_t *o = json_object();
    /* the machine the record was made on: a fleet's report names it per row */
    char hn[256] = "";
    gethostname(hn, sizeof hn - 1);
    json_object_set_new(o, "hostname", json_string(hn));
    char *ci = mtb_read_file("/proc/cpuinfo", NULL);
    char *model = ci ? cpuinfo_field(ci, "model name") : NULL;
    json_object_set_new(o, "cpu_model", model ? json_string(model) : json_null());
    free(model);
    /* MIDR: sysfs has the register; /proc/cpuinfo its fields */
    char *midr = trimmed(mtb_read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", NULL));
    if (!midr && ci) {
        char *im = cpuinfo_field(ci, "CPU implementer"), *var = cpuinfo_field(ci, "CPU variant"),
             *pa = cpuinfo_field(ci, "CPU part"), *rev = cpuinfo_field(ci, "CPU revision");
        if (im && pa) {
            unsigned long midr_v = (strtoul(im, NULL, 0) & 0xff) << 24 | (var ? strtoul(var, NULL, 0) & 0xf : 0) << 20 |
                                   0xfUL << 16 | (strtoul(pa, NULL, 0) & 0xfff) << 4 | (rev ? strtoul(rev, NULL, 0) & 0xf : 0);
            midr = mtb_asprintf("0x%016lx", midr_v);
        }
        free(im);
        free(var);
        free(pa);
        free(rev);
    }
    json_object_set_new(o, "midr", midr ? json_string(midr) : json_null());
    if (!midr)
        json_object_set_new(o, "midr_note", json_string("not an arm64 CPU (no MIDR)"));
    free(midr);
    char *mc = trimmed(mtb_read_file("/sys/devices/system/cpu/cpu0/microcode/version", NULL));
    if (!mc && ci)
        mc = cpuinfo_field(ci, "microcode");
    if (!mc)
        mc = trimmed(mtb_read_file("/sys/devices/system/cpu/cpu0/regs/identification/revidr_el1", NULL));
    json_object_set_new(o, "microcode", mc ? json_string(mc) : json_null());
    free(mc);
    char *cmd = trimmed(mtb_read_file("/proc/cmdline", NULL));
    json_object_set_new(o, "kernel_cmdline", cmd ? json_string(cmd) : json_null());
    int nomte = 0;
    for (char *t = cmd ? strstr(cmd, "arm64.nomte") : NULL; t; t = strstr(t + 1, "arm64.nomte"))
        nomte |= (t == cmd || t[-1] == ' ') && (t[11] == 0 || t[11] == ' ');
    free(cmd);
    json_object_set_new(o, "glibc", json_string(gnu_get_libc_version()));
    if (!mtb_host_is_arm64()) {
        /* the aarch64 glibc the emulated services load (arm64 multiarch) */
        char *const dq[] = { "dpkg-query", "-W", "-f=${Version}", "libc6:arm64", NULL };
        int st;
        char *v = mtb_which("dpkg-query") ? mtb_capture(dq, 0, &st) : NULL;
        json_object_set_new(o, "glibc_aarch64", v && st == 0 && *v ? json_string(v) : json_null());
        free(v);
    }
    json_t *cc = json_object();
    json_object_set_new(cc, "cc", first_line_of("cc", "--version"));
    if (!mtb_host_is_arm64())
        json_object_set_new(cc, "aarch64-linux-gnu-gcc", first_line_of("aarch64-linux-gnu-gcc", "--version"));
    json_object_set_new(o, "compilers", cc);
    int arm = mtb_host_is_arm64();
    json_t *mte = json_pack("{s:b,s:o}", "arm64_nomte", nomte, "hwcap2_mte",
                            arm ? json_boolean(mtb_host_has_mte()) : json_null());
    json_object_set_new(mte, "enabled", arm ? json_boolean(mtb_host_has_mte() && !nomte) : json_false());
    if (!arm)
        json_object_set_new(mte, "note", json_string("not an arm64 host: no MTE in this kernel (emu and vm bring their own)"));
    json_object_set_new(o, "mte", mte);
    /* mte_tcf_preferred of every CPU the profile uses */
    json_t *pref = json_object();
    char seen[MTB_MAX_CPUS] = { 0 };
    for (int s = 0; s < 3; s++) {
        const int *c = s == 0 ? m->svc_cpus : s == 1 ? m->cli_cpus : m->swp_cpus;
        int n = s == 0 ? m->nsvc : s == 1 ? m->ncli : m->nswp;
        for (int i = 0; i < n; i++) {
            if (c[i] >= 0 && c[i] < MTB_MAX_CPUS && seen[c[i]]++)
                continue;
            char key[16];
            snprintf(key, sizeof key, "%d", c[i]);
            char *path = mtb_asprintf("/sys/devices/system/cpu/cpu%d/mte_tcf_preferred", c[i]);
            char *v = trimmed(mtb_read_file(path, NULL));
            json_object_set_new(pref, key, v ? json_string(v) : json_null());
            free(v);
            free(path);
        }
    }
    json_object_set_new(o, "mte_tcf_preferred", pref);
    free(ci);
    return o;
}
