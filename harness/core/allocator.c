/* allocator.c - see allocator.h */
#include "core/allocator.h"
#include "core/hostfacts.h"
#include "lib/files.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct mtb_allocator mtb_allocators[] = {
    { "glibc", "glibc's malloc: a fresh chunk tagged at random, a freed one 0 (glibc.mem.tagging)", NULL, "libc.so" },
    { "scudo",
      "Scudo (LLVM 16, preloaded): a freed chunk retagged excluding its tag; neighbours odd and even; "
      "secondary (mmap'd) blocks untagged",
      MTB_SCUDO_LIB, "libclang_rt.scudo_standalone" },
    { NULL, NULL, NULL, NULL },
};

const struct mtb_allocator *mtb_allocator_default(void) { return &mtb_allocators[0]; }

static const char *mtb_allocator_names(void);

static const struct mtb_allocator *mtb_allocator_find(const char *name, char *why, size_t n)
{
    for (const struct mtb_allocator *a = mtb_allocators; a->name; a++)
        if (name && !strcmp(a->name, name))
            return a;
    if (name && (!strcmp(name, "hardened_malloc") || !strcmp(name, "hardened-malloc")))
        snprintf(why, n, "allocator %s: not available here: Debian 12 does not package GrapheneOS's hardened_malloc "
                 "and only Debian's archive is reachable (accepted: %s)", name, mtb_allocator_names());
    else
        snprintf(why, n, "unknown allocator '%s' (accepted: %s)", name ? name : "", mtb_allocator_names());
    return NULL;
}

static const char *mtb_allocator_names(void)
{
    static char buf[128];
    if (!buf[0])
        for (const struct mtb_allocator *a = mtb_allocators; a->name; a++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? ", " : "", a->name);
    return buf;
}

int mtb_allocator_usable(const struct mtb_allocator *a, const char *platform, const char *target, char *why, size_t n)
{
    if (!a->preload)
        return 1;
    if (strcmp(target, "aarch64") != 0) {
        snprintf(why, n, "allocator %s runs on arm64 only (its library is aarch64 code); this %s run is native on "
                 "a host that is not arm64", a->name, platform);
        return 0;
    }
    /* on vm the guest image carries this machine's copy, at the same path */
    if (!mtb_file_exists(a->preload)) {
        snprintf(why, n, "allocator %s: %s is missing (make deps installs libclang-rt-16-dev%s)", a->name, a->preload,
                 mtb_host_is_arm64() ? "" : ":arm64");
        return 0;
    }
    return 1;
}

size_t mtb_allocator_list(const char *list, const struct mtb_allocator **out, size_t max, char *why, size_t n)
{
    size_t k = 0;
    char *copy = mtb_strdup(list ? list : ""), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        const struct mtb_allocator *a = mtb_allocator_find(t, why, n);
        if (!a) {
            free(copy);
            return 0;
        }
        for (size_t i = 0; i < k; i++)
            if (out[i] == a) {
                snprintf(why, n, "allocator %s given twice", t);
                free(copy);
                return 0;
            }
        if (k == max) {
            snprintf(why, n, "at most %zu allocators", max);
            free(copy);
            return 0;
        }
        out[k++] = a;
    }
    free(copy);
    if (!k)
        snprintf(why, n, "no allocator in '%s' (accepted: %s)", list ? list : "", mtb_allocator_names());
    return k;
}

/* "variant", or "variant+allocator" for an allocator other than glibc's */
static const char *label(const char *variant, const char *alloc, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", variant ? variant : "", strcmp(alloc, "glibc") ? "+" : "",
             strcmp(alloc, "glibc") ? alloc : "");
    return buf;
}

const char *mtb_variant_label(const char *variant, const struct mtb_allocator *a, char *buf, size_t n)
{
    return label(variant, a ? a->name : "glibc", buf, n);
}

const char *mtb_label_of(const char *variant, const char *allocator, char *buf, size_t n)
{
    return label(variant, allocator && *allocator ? allocator : "glibc", buf, n);
}
