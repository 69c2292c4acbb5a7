/* Unit tests of a build's build.json read into its struct
 * (harness/core/build_rows.c): a service variant's key, a kernel's release
 * and patches; what a file lacks or holds as another type is NULL or 0. */
#include <string.h>

#include "core/build_rows.h"
#include "tap.h"

int main(void)
{
    json_t *svc = json_loads("{\"service\": \"memcached\", \"variant\": \"tagged\", \"key\": \"896212ac75d3\","
                             " \"patches\": [\"a.patch\"]}", 0, NULL),
           *kern = json_loads("{\"name\": \"stock\", \"uname_r\": \"6.1.0-mte\", \"patches\": []}", 0, NULL),
           *odd = json_loads("{\"key\": 7, \"uname_r\": null, \"patches\": \"none\"}", 0, NULL);
    struct mtb_build_view b;
    mtb_build_view_read(svc, &b);
    ok(!strcmp(b.key, "896212ac75d3") && !b.uname_r && b.has_patches, "a service build: its key, no release");
    mtb_build_view_read(kern, &b);
    ok(!b.key && !strcmp(b.uname_r, "6.1.0-mte") && b.has_patches, "a kernel: its release; patches [] is a list");
    mtb_build_view_read(odd, &b);
    ok(!b.key && !b.uname_r && !b.has_patches, "a key, release or patches of another type: not there");
    mtb_build_view_read(NULL, &b);
    ok(!b.key && !b.uname_r && !b.has_patches, "no file at all");
    json_decref(svc);
    json_decref(kern);
    json_decref(odd);
    return done_testing();
}
