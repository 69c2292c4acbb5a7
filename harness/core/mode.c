/* mode.c - see mode.h */
#include "core/mode.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* si_codes: SEGV_MTEAERR 8 (asynchronous), SEGV_MTESERR 9 (synchronous) */
const struct mtb_mode mtb_modes[] = {
    { "off", "no tag checks (glibc.mem.tagging=0)", 0, "none", 0, 0, 0, NULL },
    { "sync", "synchronous: the faulting access traps (SEGV_MTESERR)", 3, "sync", 1, 9, 9, NULL },
    { "async", "asynchronous: reported at the next kernel entry (SEGV_MTEAERR)", 1, "async", 1, 8, 8, NULL },
    { "asymm", "asymmetric: loads sync, stores async (MTE3; kernel preferred mode)", 5, "sync+async", 1, 8, 9, "asymm" },
    { NULL, NULL, 0, NULL, 0, 0, 0, NULL },
};

const struct mtb_mode *mtb_mode_find(const char *name)
{
    mtb_for_each_mode(m) if (name && !strcmp(m->name, name)) return m;
    return NULL;
}

char *mtb_mode_env(const struct mtb_mode *m)
{
    return mtb_asprintf("GLIBC_TUNABLES=glibc.mem.tagging=%d", m->tunable);
}

const char *mtb_mode_names(void)
{
    static char buf[128];
    if (!buf[0])
        mtb_for_each_mode(m)
        {
            if (buf[0])
                strcat(buf, ", ");
            strcat(buf, m->name);
        }
    return buf;
}

int mtb_mode_host_check(const struct mtb_mode *m, int arm64, int mte, int mte3, const char *cpu_sysfs,
                        char *why, size_t n)
{
    if (!m->tagged)
        return 1;
    if (!mte) {
        snprintf(why, n, "MODE=%s needs MTE hardware and this CPU has none (%s); "
                 "use PLATFORM=emu to run under aarch64 emulation",
                 m->name, arm64 ? "no HWCAP2_MTE" : "not arm64");
        return 0;
    }
    if (!m->preferred)
        return 1;
    if (!mte3) {
        snprintf(why, n, "MODE=%s needs MTE3 (HWCAP2_MTE3); this CPU has MTE without it", m->name);
        return 0;
    }
    char *pat = mtb_asprintf("%s/cpu[0-9]*/mte_tcf_preferred", cpu_sysfs);
    glob_t g;
    int found = glob(pat, 0, NULL, &g) == 0;
    int ok = found;
    for (size_t i = 0; found && i < g.gl_pathc; i++)
        if (access(g.gl_pathv[i], W_OK) != 0) {
            snprintf(why, n, "MODE=%s sets the kernel's preferred mode in %s, which is not writable "
                     "(run as root)", m->name, g.gl_pathv[i]);
            ok = 0;
            break;
        }
    if (!found)
        snprintf(why, n, "MODE=%s needs the kernel's preferred tag-check mode (%s absent: "
                 "a kernel before 5.14 or without CONFIG_ARM64_MTE); use MODE=sync or async",
                 m->name, pat);
    if (found)
        globfree(&g);
    free(pat);
    return ok;
}

static glob_t saved_paths;
static char **saved_vals;

int mtb_mode_prefer(const struct mtb_mode *m, char *err, size_t errlen)
{
    if (!m->preferred)
        return 0;
    glob_t g;
    if (glob("/sys/devices/system/cpu/cpu[0-9]*/mte_tcf_preferred", 0, NULL, &g) != 0) {
        snprintf(err, errlen, "mode %s needs /sys/devices/system/cpu/cpu*/mte_tcf_preferred "
                 "(a kernel with MTE on an MTE CPU)", m->name);
        return -ENOENT;
    }
    saved_vals = mtb_calloc(g.gl_pathc, sizeof *saved_vals);
    saved_paths = g;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *old = mtb_read_file(g.gl_pathv[i], NULL);
        saved_vals[i] = old;
        FILE *f = fopen(g.gl_pathv[i], "w");
        if (!f || fputs(m->preferred, f) < 0 || fclose(f) != 0) {
            int e = errno;
            snprintf(err, errlen, "cannot write %s to %s: %s (needs root, and MTE3 for asymm)",
                     m->preferred, g.gl_pathv[i], strerror(e));
            mtb_mode_restore();
            return -e;
        }
    }
    return 0;
}

void mtb_mode_restore(void)
{
    if (!saved_vals)
        return;
    for (size_t i = 0; i < saved_paths.gl_pathc; i++) {
        if (!saved_vals[i])
            continue;
        FILE *f = fopen(saved_paths.gl_pathv[i], "w");
        if (f) {
            fputs(saved_vals[i], f);
            fclose(f);
        }
        free(saved_vals[i]);
    }
    free(saved_vals);
    saved_vals = NULL;
    globfree(&saved_paths);
}
