/* platform.h - where a service runs: this kernel natively (host), aarch64
 * user-mode emulation (emu), or a VM booted from a chosen kernel (vm).
 * A table; adding a platform is a row. */
#ifndef MTB_PLATFORM_H
#define MTB_PLATFORM_H
#include <jansson.h>
#include <stddef.h>
#include "mode.h"
#include "util.h"

struct mtb_run;

struct mtb_platform {
    const char *name;
    const char *summary;
    int emulated;            /* figures are not hardware timings */
    /* "aarch64" or "native": which build of a service it runs */
    const char *(*target)(void);
    /* 1 if usable here; else 0 and why */
    int (*usable)(char *why, size_t n);
    /* 1 if the mode exists on this platform; else 0 and why */
    int (*mode_ok)(const struct mtb_mode *m, char *why, size_t n);
    /* Push the command that runs prog on this platform with env (NAME=value,
     * NULL-terminated) into argv; entries that must go to the real
     * environment instead are pushed into env_out. */
    void (*wrap)(struct mtb_argv *argv, struct mtb_argv *env_out,
                 const char *prog, char *const *env);
    int smaps_proof;         /* /proc/PID/smaps of the service shows `mt` */
    /* NULL: runs go through run.c on this machine; else the platform runs
     * the whole run itself (vm: one guest boot per run) and returns an
     * enum mtb_run_status */
    int (*run)(const struct mtb_run *run, json_t **record);
    /* NULL: `emulated` holds; else decided on this machine (vm: TCG or KVM) */
    int (*emulated_now)(void);
    int named_kernels;       /* KERNEL=<name|path> instead of host */
};

/* The platform's figures are emulation timings, not hardware timings. */
int mtb_platform_emulated(const struct mtb_platform *p);

extern const struct mtb_platform mtb_platforms[];
#define mtb_for_each_platform(p) for (const struct mtb_platform *p = mtb_platforms; p->name; p++)
const struct mtb_platform *mtb_platform_find(const char *name);
const char *mtb_platform_names(void);
/* host on an MTE-capable arm64 machine, else emu; *notice explains. */
const struct mtb_platform *mtb_platform_default(const char **notice);

/* Facts about this machine used by platforms and doctor. */
int mtb_host_is_arm64(void);
int mtb_host_has_mte(void);      /* HWCAP2_MTE */
int mtb_host_has_mte3(void);     /* HWCAP2_MTE3 */
/* The first line of `prog --version` (asked once), or NULL. */
const char *mtb_tool_version(const char *prog);
/* "qemu-aarch64 version 10.0.2 ..." first line, or NULL */
const char *mtb_qemu_user_version(void);
int mtb_qemu_major(const char *version_line);
#endif
