/* Unit tests of a far host's facts read into a struct
 * (harness/core/host_rows.c): as agent/ssh_host.c's info holds them, and an
 * info that lacks them. */
#include <string.h>

#include "core/host_rows.h"
#include "tap.h"

int main(void)
{
    json_t *info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:s,s:f,s:f,s:f,s:s}", "transport", "ssh", "where", "h1",
                             "hostname", "arm1", "machine", "aarch64", "uname_r", "6.12.1", "cpus", 64, "root",
                             "/var/tmp/mtb", "clock_offset_s", 0.0015, "clock_rtt_s", 0.0004, "connect_seconds", 1.25,
                             "address", "10.0.0.2");
    struct mtb_host_view h;
    mtb_host_view_read(info, &h);
    ok(!strcmp(h.hostname, "arm1") && !strcmp(h.machine, "aarch64") && !strcmp(h.uname_r, "6.12.1") &&
           !strcmp(h.root, "/var/tmp/mtb") && !strcmp(h.address, "10.0.0.2") && h.cpus == 64,
       "the host: its name, machine, kernel, root, address, CPUs");
    ok(h.clock_offset_s == 0.0015 && h.clock_rtt_s == 0.0004 && h.connect_seconds == 1.25,
       "the clock's offset and round trip, the time to connect");
    json_decref(info);
    mtb_host_view_read(NULL, &h);
    ok(!h.hostname && !h.address && h.cpus == 0 && h.clock_offset_s == 0, "no info: NULL and 0");
    return done_testing();
}
