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
/* "GLIBC_TUNABLES=glibc.mem.tagging=N": the environment that puts glibc's
 * heap in mode m, the same on every platform. Heap. */
char *mtb_mode_env(const struct mtb_mode *m);

/* Whether this kernel/CPU can run mode m natively, decided from the CPU's
 * HWCAP2 bits and the CPU directory of sysfs (cpu_sysfs, e.g.
 * /sys/devices/system/cpu): tagged modes need MTE; a preferred mode (asymm)
 * needs MTE3 and a writable cpu*\/mte_tcf_preferred. Checked before any run.
 * @return 1, or 0 with the reason in why. */
int mtb_mode_host_check(const struct mtb_mode *m, int arm64, int mte, int mte3, const char *cpu_sysfs,
                        char *why, size_t n);

/* Host only: set every CPU's mte_tcf_preferred for a mode that needs it
 * (asymm), remembering the old values; restore puts them back.
 * @return 0, or -errno with a message in err. */
int mtb_mode_prefer(const struct mtb_mode *m, char *err, size_t errlen);
void mtb_mode_restore(void);
#endif
