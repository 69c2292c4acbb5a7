/* hostfacts.c - see hostfacts.h */
#include "core/hostfacts.h"
#include "lib/util.h"
#include "lib/proc.h"

#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

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

/* The first line of `prog --version` (asked once), or NULL. */
static const char *mtb_tool_version(const char *prog)
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

/* the major version of a "... version 10.0.2 ..." line; 0 when none */
static int qemu_major(const char *v)
{
    const char *p = v ? strstr(v, "version ") : NULL;
    return p ? atoi(p + 8) : 0;
}

int mtb_qemu_usable(const char *what, const char *v, char *why, size_t n)
{
    if (!v) {
        snprintf(why, n, "%s not found (make deps installs QEMU 10 from bookworm-backports)", what);
        return 0;
    }
    if (qemu_major(v) < 8) {
        snprintf(why, n, "%s is too old: QEMU before 8.0 mis-tags memory under MTE", v);
        return 0;
    }
    return 1;
}

const char *mtb_qemu_system_version(void) { return mtb_tool_version("qemu-system-aarch64"); }

int mtb_host_kvm_mte(void)
{
    /* /dev/kvm alone is not enough: a KVM without MTE (before Linux 5.13)
     * refuses -machine virt,mte=on, and under qemu-user (make
     * rehearse-arm64) /dev/kvm is the x86 host's and answers no arm64 ioctl */
    if (!mtb_host_has_mte())
        return 0;
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int r = ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_MTE);
    close(fd);
    return r > 0;
}
