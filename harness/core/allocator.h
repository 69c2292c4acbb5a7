/* allocator.h - the allocator that serves a service's malloc: glibc's own
 * (the default, tagging under glibc.mem.tagging) or one preloaded in its
 * place (Scudo). Part of a run's identity (config.allocator; a record
 * without it is glibc's), chosen with ALLOCATOR= / --allocator / a plan's
 * `allocators`; each allocator's plain/off is its own baseline (summary.c).
 * hardened_malloc is named and refused: Debian 12 does not package it.
 * The vm guest image carries this machine's Scudo at the same path. */
#ifndef MTB_ALLOCATOR_H
#define MTB_ALLOCATOR_H
#include <jansson.h>
#include <stddef.h>

/* Scudo, Android's allocator, from libclang-rt-16-dev:arm64 (the same path
 * on arm64 Debian, where the package is native) */
#define MTB_SCUDO_LIB "/usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.scudo_standalone-aarch64.so"

struct mtb_allocator {
    const char *name;
    const char *summary;
    const char *preload;     /* aarch64 library preloaded before the service's own; NULL: glibc's malloc */
    const char *serves_as;   /* what the library serving malloc is called (the proof's malloc_from) */
};

#define MTB_MAX_ALLOCATORS 4
/* glibc's: the default, and what a record without config.allocator ran */
const struct mtb_allocator *mtb_allocator_default(void);
/* Whether allocator a can serve a run on platform (its name and the
 * target it runs, "aarch64" or "native"): 1, or 0 and why */
int mtb_allocator_usable(const struct mtb_allocator *a, const char *platform, const char *target, char *why, size_t n);
/* a comma list into out (at most max, duplicates refused): the count, or 0
 * and why (an unknown name: the accepted ones; hardened_malloc: why it is
 * not here) */
size_t mtb_allocator_list(const char *list, const struct mtb_allocator **out, size_t max, char *why, size_t n);
/* a variant as configurations are named: "tagged", or with an allocator
 * other than glibc's "tagged+scudo" (a NULL: glibc); into buf */
const char *mtb_variant_label(const char *variant, const struct mtb_allocator *a, char *buf, size_t n);
/* the same from a variant's and an allocator's names (a typed config's) */
const char *mtb_label_of(const char *variant, const char *allocator, char *buf, size_t n);
#endif
