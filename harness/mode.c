/* mode.c - see mode.h */
#include "mode.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
