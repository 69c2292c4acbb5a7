/* Unit tests of the allocator axis (harness/core/allocator.c): lists of
 * allocators parsed strictly, the ones not here named with why, labels,
 * records without the key read as glibc's, and where each can run. */
#include <stdio.h>
#include <string.h>

#include "core/allocator.h"
#include "core/record.h"
#include "lib/files.h"
#include "tap.h"

int main(void)
{
    const struct mtb_allocator *a[MTB_MAX_ALLOCATORS];
    char why[256] = "";
    ok(mtb_allocator_list("glibc,scudo", a, MTB_MAX_ALLOCATORS, why, sizeof why) == 2 && !strcmp(a[0]->name, "glibc") &&
           !strcmp(a[1]->name, "scudo") && a[0] == mtb_allocator_default(),
       "a list: glibc, scudo, in order; glibc's the default");
    ok(a[0]->preload == NULL && a[1]->preload && !strcmp(a[1]->preload, MTB_SCUDO_LIB), "glibc preloads nothing, Scudo its library");
    ok(mtb_allocator_list("scudo,scudo", a, MTB_MAX_ALLOCATORS, why, sizeof why) == 0 && strstr(why, "twice"),
       "one given twice refused: %s", why);
    ok(mtb_allocator_list("jemalloc", a, MTB_MAX_ALLOCATORS, why, sizeof why) == 0 &&
           strstr(why, "unknown allocator 'jemalloc'") && strstr(why, "glibc, scudo"),
       "an unknown one refused with the accepted: %s", why);
    ok(mtb_allocator_list("hardened_malloc", a, MTB_MAX_ALLOCATORS, why, sizeof why) == 0 && strstr(why, "Debian 12"),
       "hardened_malloc named, and why it is not here: %s", why);
    ok(mtb_allocator_list("", a, MTB_MAX_ALLOCATORS, why, sizeof why) == 0 && strstr(why, "no allocator"),
       "an empty list refused: %s", why);
    ok(mtb_allocator_list("glibc,scudo", a, 1, why, sizeof why) == 0 && strstr(why, "at most 1"), "more than the room refused: %s", why);

    char buf[64];
    ok(!strcmp(mtb_variant_label("tagged", NULL, buf, sizeof buf), "tagged") &&
           !strcmp(mtb_variant_label("tagged", mtb_allocator_default(), buf, sizeof buf), "tagged"),
       "a label: glibc's variant plain-named");
    mtb_allocator_list("scudo", a, 1, why, sizeof why);
    ok(!strcmp(mtb_variant_label("tagged", a[0], buf, sizeof buf), "tagged+scudo"), "... another allocator's: tagged+scudo");
    /* a record's config as core/record.h reads it: allocator "glibc" when it does not say (or says "") */
    json_t *old = json_pack("{s:{s:s}}", "config", "variant", "plain"),
           *empty = json_pack("{s:{s:s,s:s}}", "config", "variant", "plain", "allocator", ""),
           *sc = json_pack("{s:{s:s,s:s}}", "config", "variant", "plain", "allocator", "scudo");
    struct mtb_rec_config c;
    mtb_rec_config_view(old, &c);
    ok(!strcmp(c.allocator, "glibc") && !strcmp(mtb_label_of(c.variant, c.allocator, buf, sizeof buf), "plain"),
       "a record from before the axis: glibc's");
    mtb_rec_config_view(empty, &c);
    ok(!strcmp(c.allocator, "glibc"), "... an empty allocator: glibc's");
    mtb_rec_config_view(sc, &c);
    ok(!strcmp(mtb_label_of(c.variant, c.allocator, buf, sizeof buf), "plain+scudo"), "a record's label from its config");
    json_decref(old);
    json_decref(empty);
    json_decref(sc);

    ok(mtb_allocator_usable(mtb_allocator_default(), "host", "native", why, sizeof why),
       "glibc's runs anywhere, native builds too");
    ok(!mtb_allocator_usable(a[0], "host", "native", why, sizeof why) && strstr(why, "arm64 only"),
       "Scudo's aarch64 library refused for a native run: %s", why);
    int here = mtb_file_exists(MTB_SCUDO_LIB);
    why[0] = 0;
    ok(mtb_allocator_usable(a[0], "emu", "aarch64", why, sizeof why) == here && (here || strstr(why, "make deps")),
       "Scudo on emu: usable exactly when its library is installed (%s)", here ? "it is" : why);
    return done_testing();
}
