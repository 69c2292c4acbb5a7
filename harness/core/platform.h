/* platform.h - where a service runs: this kernel natively (host), aarch64
 * user-mode emulation (emu), or a VM booted from a chosen kernel (vm).
 * The interface; one file per platform (run/platform_host.c,
 * run/platform_emu.c, agent/platform_vm.c) and their registry
 * (plan/platforms.c): adding a platform is a file and a row. */
#ifndef MTB_PLATFORM_H
#define MTB_PLATFORM_H
#include <jansson.h>
#include <stddef.h>
#include "core/hostfacts.h"
#include "core/mode.h"
#include "core/record.h" /* enum mtb_run_status */
#include "lib/util.h"
#include "lib/argv.h"

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
    /* NULL: runs go through run.c's steps on this machine; else the
     * platform has the whole run performed elsewhere, by the agent step
     * (agent.c): vm, one guest boot per run; a server host's placement of
     * host or emu (remote.c, mtb_remote_platform) */
    enum mtb_run_status (*run)(const struct mtb_run *run, json_t **record);
    /* NULL: under --resume a run whose earlier attempt did not end ok is
     * redone; else first asked for the record that attempt finished where it
     * ran but never brought back (a server host's run whose connection was
     * lost: remote.c). @return MTB_RUN_OK with *record (written to
     * run->dir/record.json), else nothing recovered (*record NULL) */
    enum mtb_run_status (*recover)(const struct mtb_run *run, json_t *earlier, json_t **record);
    /* NULL: `emulated` holds; else decided on this machine (vm: TCG or KVM) */
    int (*emulated_now)(void);
    int named_kernels;       /* KERNEL=<name|path> instead of host */
    /* NULL: `mtebench proof` runs the probe here through wrap; else the
     * platform proves the mode itself (vm: inside a guest of kernel) and
     * prints the proof JSON; count: with the counting plugin loaded, the
     * proof in a counting window and the micro-programs of known work
     * after it (--count). @return 0 proved, 1 not, 2 cannot tell */
    int (*proof)(const char *kernel, const char *mode, int quiet, int count);
};

/* The platform's figures are emulation timings, not hardware timings. */
int mtb_platform_emulated(const struct mtb_platform *p);

/* wrap of platforms that run a program as it is (host, vm's guest) */
void mtb_platform_wrap_native(struct mtb_argv *argv, struct mtb_argv *env_out, const char *prog,
                              char *const *env);
#endif
