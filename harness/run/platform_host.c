/* platform_host.c - PLATFORM=host: this kernel, natively */
#include "core/platform.h"

#include <stdio.h>
#include <string.h>

/* --- host --------------------------------------------------------------- */
static const char *host_target(void) { return mtb_host_is_arm64() ? "aarch64" : "native"; }
static int host_usable(char *why, size_t n) { (void)why; (void)n; return 1; }
static int host_mode_ok(const struct mtb_mode *m, char *why, size_t n)
{
    return mtb_mode_host_check(m, mtb_host_is_arm64(), mtb_host_has_mte(), mtb_host_has_mte3(),
                               "/sys/devices/system/cpu", why, n);
}

const struct mtb_platform mtb_platform_host = {
    .name = "host",
    .summary = "this kernel, natively",
    .emulated = 0,
    .target = host_target,
    .usable = host_usable,
    .mode_ok = host_mode_ok,
    .wrap = mtb_platform_wrap_native,
    .smaps_proof = 1,
};
