/* Unit tests of named kernels: the names known, what ensure refuses, the vm
 * platform's row. */
#include <stdlib.h>
#include <string.h>

#include "plan/platforms.h"
#include "core/kernel.h"
#include "core/platform.h"
#include "tap.h"
#include "lib/util.h"

static void test_kernels(void)
{
    setenv("MTEBENCH_ROOT", ".", 1);
    ok(mtb_kernel_known("stock") && mtb_kernel_known("tcma1"), "named kernels stock and tcma1 exist");
    ok(!mtb_kernel_known("nosuch") && !mtb_kernel_known("../etc") && !mtb_kernel_known(""), "unknown or odd names refused");
    ok(strstr(mtb_kernel_names(), "stock") && strstr(mtb_kernel_names(), "tcma1"), "accepted names listed: %s",
       mtb_kernel_names());
    struct mtb_kernel k;
    char err[MTB_ERRLEN];
    ok(mtb_kernel_ensure("nosuch", NULL, 0, 1, &k, err, sizeof err) != 0 && strstr(err, "accepted: stock"),
       "ensure of an unknown kernel names the accepted ones");
    ok(mtb_kernel_ensure("stock", "5.4", 0, 1, &k, err, sizeof err) != 0 && strstr(err, "6.12, 6.1"),
       "unknown kernel source refused");
    const struct mtb_platform *vm = mtb_platform_find("vm");
    ok(vm && vm->named_kernels && vm->run && !strcmp(vm->target(), "aarch64"), "vm platform row");
}

int main(void)
{
    test_kernels();
    return done_testing();
}
