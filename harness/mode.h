/* mode.h - MTE tag-check-fault modes: how each is requested and what its
 * proof must show. */
#ifndef MTB_MODE_H
#define MTB_MODE_H
#include <stddef.h>

struct mtb_mode {
    const char *name;
    const char *summary;
    int tunable;             /* glibc.mem.tagging=N */
    const char *tcf;         /* PR_GET_TAGGED_ADDR_CTRL as the probe prints it */
    int tagged;              /* malloc must hand out tagged pointers */
    int write_code;          /* si_code expected from a mismatched store (0 = none) */
    int read_code;           /* ... from a mismatched load */
    const char *preferred;   /* value for mte_tcf_preferred, or NULL */
};

extern const struct mtb_mode mtb_modes[];   /* ends with a NULL name */
#define mtb_for_each_mode(m) for (const struct mtb_mode *m = mtb_modes; m->name; m++)
const struct mtb_mode *mtb_mode_find(const char *name);
/* "off, sync, async, asymm" */
const char *mtb_mode_names(void);

/* Host only: set every CPU's mte_tcf_preferred for a mode that needs it
 * (asymm), remembering the old values; restore puts them back.
 * @return 0, or -errno with a message in err. */
int mtb_mode_prefer(const struct mtb_mode *m, char *err, size_t errlen);
void mtb_mode_restore(void);
#endif
