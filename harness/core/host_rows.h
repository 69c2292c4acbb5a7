/* host_rows.h - a far host's facts as its transport learnt them on
 * connecting (agent/ssh_host.c's info: the host's name, machine, kernel,
 * CPUs, the agent's root, the clock's offset and round trip, the address
 * ssh reached it at) read once into a struct. `hosts`, the ssh session's
 * line, the server host's address for the clients and the client hosts'
 * clock offsets read these fields, never the info by key.
 *
 * A string the info lacks reads as NULL; a number as 0. Strings are the
 * info's own, valid while it is.
 *
 *   struct mtb_host_view h;
 *   mtb_host_view_read(info, &h);
 */
#ifndef MTB_HOST_ROWS_H
#define MTB_HOST_ROWS_H
#include <jansson.h>

struct mtb_host_view {
    const char *hostname, *machine, *uname_r, *root, *address;
    long long cpus;
    double clock_offset_s, clock_rtt_s, connect_seconds;
};

void mtb_host_view_read(json_t *info, struct mtb_host_view *h);
#endif
