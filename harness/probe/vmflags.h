/* vmflags.h - parse the flags of one "VmFlags:" line of /proc/PID/smaps.
 * Shared by the harness (proof.c, a service's smaps) and libmtefault.so (an
 * embedded service's own smaps), which are built for different targets. */
#ifndef MTB_VMFLAGS_H
#define MTB_VMFLAGS_H
#include <string.h>

/* line: a whole "VmFlags: rd wr ... mt" line (modified: tokenized).
 * *mt: the mapping is PROT_MTE; *ms: it is MAP_SHARED (VM_MAYSHARE, which
 * unlike sh also marks read-only shared file mappings). Returns 0 when the
 * line is not a VmFlags line. */
static inline int mtb_vmflags(char *line, int *mt, int *ms)
{
    *mt = *ms = 0;
    if (strncmp(line, "VmFlags:", 8) != 0)
        return 0;
    /* flags are two-letter words separated by spaces */
    char *save = NULL;
    for (char *t = strtok_r(line + 8, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
        *mt |= !strcmp(t, "mt");
        *ms |= !strcmp(t, "ms");
    }
    return 1;
}
#endif
