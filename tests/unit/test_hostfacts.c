/* test_hostfacts.c - the QEMU check both emulated platforms make
 * (mtb_qemu_usable: emu's qemu-aarch64, vm's qemu-system-aarch64). */
#include "core/hostfacts.h"
#include "tap.h"

#include <string.h>

int main(void)
{
    char why[256] = "";
    ok(!mtb_qemu_usable("qemu-aarch64", NULL, why, sizeof why) &&
           !strcmp(why, "qemu-aarch64 not found (make deps installs QEMU 10 from bookworm-backports)"),
       "not found: refused, named, and how to get it (%s)", why);
    ok(!mtb_qemu_usable("qemu-system-aarch64", "QEMU emulator version 7.2.11 (Debian 1:7.2+dfsg-7)", why, sizeof why) &&
           strstr(why, "is too old: QEMU before 8.0 mis-tags memory under MTE"),
       "QEMU 7.2: refused as too old (%s)", why);
    ok(mtb_qemu_usable("qemu-aarch64", "qemu-aarch64 version 8.0.0", why, sizeof why) &&
           mtb_qemu_usable("qemu-system-aarch64", "QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2)", why, sizeof why),
       "QEMU 8.0 and 10.0.2: usable");
    ok(!mtb_qemu_usable("qemu-aarch64", "something else entirely", why, sizeof why),
       "a version line without a version: refused");
    return done_testing();
}
