/* Unit tests of the platforms: which modes each has, and what a refusal
 * names. */
#include <string.h>

#include "plan/platforms.h"
#include "core/hostfacts.h"
#include "core/mode.h"
#include "core/platform.h"
#include "tap.h"

static void test_platforms(void)
{
    char why[512];
    const struct mtb_platform *emu = mtb_platform_find("emu");
    ok(emu && emu->emulated, "emu is labelled emulated");
    ok(!emu->mode_ok(mtb_mode_find("asymm"), why, sizeof why) && strstr(why, "PLATFORM=host"),
       "emu refuses asymm naming the platform that has it");
    ok(emu->mode_ok(mtb_mode_find("sync"), why, sizeof why), "emu has sync");
    const struct mtb_platform *host = mtb_platform_find("host");
    if (!mtb_host_has_mte())
        ok(!host->mode_ok(mtb_mode_find("async"), why, sizeof why) && strstr(why, "PLATFORM=emu"),
           "host without MTE refuses async naming PLATFORM=emu");
    else
        ok(host->mode_ok(mtb_mode_find("async"), why, sizeof why), "MTE host has async");
    ok(host->mode_ok(mtb_mode_find("off"), why, sizeof why), "host always has off");
    ok(mtb_platform_find("vmx") == NULL, "unknown platform not found");
}

int main(void)
{
    test_platforms();
    return done_testing();
}
