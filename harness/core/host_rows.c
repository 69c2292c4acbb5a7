/* host_rows.c - a far host's facts read into a struct (host_rows.h) */
#include "core/host_rows.h"
#include "lib/jsonx.h"

#include <string.h>

static const char *str(json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
void mtb_host_view_read(json_t *info, struct mtb_host_view *h)
{
    memset(h, 0, sizeof *h);
    h->hostname = str(info, "hostname");
    h->machine = str(info, "machine");
    h->uname_r = str(info, "uname_r");
    h->root = str(info, "root");
    h->address = str(info, "address");
    h->cpus = json_integer_value(json_object_get(info, "cpus"));
    h->clock_offset_s = mtb_jnum0(info, "clock_offset_s");
    h->clock_rtt_s = mtb_jnum0(info, "clock_rtt_s");
    h->connect_seconds = mtb_jnum0(info, "connect_seconds");
}
