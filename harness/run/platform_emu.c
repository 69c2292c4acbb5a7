/* platform_emu.c - PLATFORM=emu: aarch64 user-mode emulation */
#include "core/platform.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <stdio.h>
#include <string.h>

/* --- emu: qemu-aarch64 -cpu max ------------------------------------------ */
static const char *emu_target(void) { return "aarch64"; }
static int emu_usable(char *why, size_t n)
{
    if (!mtb_qemu_usable("qemu-aarch64", mtb_qemu_user_version(), why, n))
        return 0;
    if (!mtb_host_is_arm64() && !mtb_file_exists("/lib/ld-linux-aarch64.so.1")) {
        snprintf(why, n, "no arm64 glibc (/lib/ld-linux-aarch64.so.1 from libc6:arm64; make deps)");
        return 0;
    }
    return 1;
}
static int emu_mode_ok(const struct mtb_mode *m, char *why, size_t n)
{
    if (m->preferred) {
        snprintf(why, n, "MODE=%s does not exist under qemu-user (no kernel preferred mode; "
                 "glibc.mem.tagging=5 gives sync there); it needs PLATFORM=host on an MTE3 CPU",
                 m->name);
        return 0;
    }
    return 1;
}
static void emu_wrap(struct mtb_argv *argv, struct mtb_argv *env_out, const char *prog,
                     char *const *env)
{
    (void)env_out;
    mtb_argv_push(argv, "qemu-aarch64");
    mtb_argv_push(argv, "-cpu");
    mtb_argv_push(argv, "max");
    /* -E sets the guest's environment only: LD_PRELOAD of an aarch64
     * library must not reach qemu itself */
    for (char *const *e = env; e && *e; e++) {
        mtb_argv_push(argv, "-E");
        mtb_argv_push(argv, *e);
    }
    mtb_argv_push(argv, prog);
}

const struct mtb_platform mtb_platform_emu = {
    .name = "emu",
    .summary = "aarch64 user-mode emulation (qemu-aarch64 -cpu max)",
    .emulated = 1,
    .target = emu_target,
    .usable = emu_usable,
    .mode_ok = emu_mode_ok,
    .wrap = emu_wrap,
    .smaps_proof = 0,
};
