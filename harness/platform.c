/* platform.c - see platform.h */
#include "platform.h"
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

#define HWCAP2_MTE_BIT (1UL << 18)
#define HWCAP2_MTE3_BIT (1UL << 22)

int mtb_host_is_arm64(void)
{
    struct utsname u;
    return uname(&u) == 0 && !strcmp(u.machine, "aarch64");
}

int mtb_host_has_mte(void)
{
    return mtb_host_is_arm64() && (getauxval(AT_HWCAP2) & HWCAP2_MTE_BIT);
}

int mtb_host_has_mte3(void)
{
    return mtb_host_is_arm64() && (getauxval(AT_HWCAP2) & HWCAP2_MTE3_BIT);
}

const char *mtb_tool_version(const char *prog)
{
    /* the first line of `prog --version`, asked once per program */
    static struct { char prog[64]; char line[256]; } seen[8];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (!strcmp(seen[i].prog, prog))
            return seen[i].line[0] ? seen[i].line : NULL;
    char line[256] = "";
    char *const argv[] = { (char *)prog, "--version", NULL };
    int st;
    char *out = mtb_capture(argv, 0, &st);
    if (out && st == 0) {
        out[strcspn(out, "\n")] = 0;
        snprintf(line, sizeof line, "%s", out);
    }
    free(out);
    if (nseen < 8) {
        snprintf(seen[nseen].prog, sizeof seen[nseen].prog, "%s", prog);
        snprintf(seen[nseen].line, sizeof seen[nseen].line, "%s", line);
        return seen[nseen++].line[0] ? seen[nseen - 1].line : NULL;
    }
    return NULL;
}

const char *mtb_qemu_user_version(void) { return mtb_tool_version("qemu-aarch64"); }

int mtb_qemu_major(const char *v)
{
    const char *p = v ? strstr(v, "version ") : NULL;
    return p ? atoi(p + 8) : 0;
}

/* --- host --------------------------------------------------------------- */
static const char *host_target(void) { return mtb_host_is_arm64() ? "aarch64" : "native"; }
static int host_usable(char *why, size_t n) { (void)why; (void)n; return 1; }
static int host_mode_ok(const struct mtb_mode *m, char *why, size_t n)
{
    return mtb_mode_host_check(m, mtb_host_is_arm64(), mtb_host_has_mte(), mtb_host_has_mte3(),
                               "/sys/devices/system/cpu", why, n);
}
static void host_wrap(struct mtb_argv *argv, struct mtb_argv *env_out, const char *prog,
                      char *const *env)
{
    mtb_argv_push(argv, prog);
    for (char *const *e = env; e && *e; e++)
        mtb_argv_push(env_out, *e);
}

/* --- emu: qemu-aarch64 -cpu max ------------------------------------------ */
static const char *emu_target(void) { return "aarch64"; }
static int emu_usable(char *why, size_t n)
{
    const char *v = mtb_qemu_user_version();
    if (!v) {
        snprintf(why, n, "qemu-aarch64 not found (make deps installs QEMU 10 from bookworm-backports)");
        return 0;
    }
    if (mtb_qemu_major(v) < 8) {
        snprintf(why, n, "%s is too old: QEMU before 8.0 mis-tags memory under MTE", v);
        return 0;
    }
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

/* --- vm: qemu-system-aarch64 -machine virt,mte=on, a named kernel ---------- */
static const char *vm_target(void) { return "aarch64"; }
static int vm_usable(char *why, size_t n)
{
    const char *v = mtb_qemu_system_version();
    if (!v) {
        snprintf(why, n, "qemu-system-aarch64 not found (make deps installs QEMU 10 from bookworm-backports)");
        return 0;
    }
    if (mtb_qemu_major(v) < 8) {
        snprintf(why, n, "%s is too old: QEMU before 8.0 mis-tags memory in full-system MTE", v);
        return 0;
    }
    return mtb_vm_guest_ready(why, n);
}
static int vm_mode_ok(const struct mtb_mode *m, char *why, size_t n)
{
    /* the guest kernel has MTE and a preferred mode; -cpu max has MTE3.
     * Whether a mode holds is proved inside the guest. */
    (void)m;
    (void)why;
    (void)n;
    return 1;
}
static int vm_emulated(void) { return !mtb_vm_kvm(); }

const struct mtb_platform mtb_platforms[] = {
    { "host", "this kernel, natively", 0, host_target, host_usable, host_mode_ok, host_wrap, 1, NULL, NULL, 0 },
    { "emu", "aarch64 user-mode emulation (qemu-aarch64 -cpu max)", 1, emu_target, emu_usable,
      emu_mode_ok, emu_wrap, 0, NULL, NULL, 0 },
    { "vm", "a VM booted from a named kernel (qemu-system-aarch64 -machine virt,mte=on; KVM on MTE hosts, else TCG)",
      1, vm_target, vm_usable, vm_mode_ok, host_wrap, 1, mtb_vm_run, vm_emulated, 1 },
    { NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0 },
};

int mtb_platform_emulated(const struct mtb_platform *p)
{
    return p->emulated_now ? p->emulated_now() : p->emulated;
}

const struct mtb_platform *mtb_platform_find(const char *name)
{
    mtb_for_each_platform(p) if (name && !strcmp(p->name, name)) return p;
    return NULL;
}

const char *mtb_platform_names(void)
{
    static char buf[128];
    if (!buf[0])
        mtb_for_each_platform(p)
        {
            if (buf[0])
                strcat(buf, ", ");
            strcat(buf, p->name);
        }
    return buf;
}

const struct mtb_platform *mtb_platform_default(const char **notice)
{
    if (mtb_host_has_mte()) {
        *notice = NULL;
        return mtb_platform_find("host");
    }
    *notice = "this CPU has no MTE: running under aarch64 emulation (PLATFORM=emu); "
              "figures are emulated, not hardware timings";
    return mtb_platform_find("emu");
}
