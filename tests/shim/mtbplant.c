/* mtbplant: a test-only aarch64 preload that proves a service's own shared
 * or huge-page mappings are tag-checked. It wraps mmap(): right after the
 * service maps an anonymous region that is MAP_SHARED or MAP_HUGETLB and at
 * least MTB_PLANT_MIN bytes (default 1 MiB), it stores one byte through a
 * pointer carrying logical tag 1 at the region's start. Fresh PROT_MTE memory
 * has allocation tag 0, so on a tag-checked region in sync mode the store is
 * a tag-check fault (SEGV_MTESERR at that address, which libmtefault.so
 * records); on a stock mapping (no PROT_MTE), or with tagging off, the store
 * lands and the service runs on. Private heap mappings (glibc's large mallocs)
 * are never touched: they are the allocator's, not the service's.
 *
 * Used by tests/integration/services/shm-regions-mte.t and nginx-zones-mte.t through `mtebench run --preload`.
 * Never part of a measured run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

static void note(void *p, size_t len, int prot, int flags)
{
    char line[200];
    int n = snprintf(line, sizeof line,
                     "mtbplant: storing through tag 1 into %p (%zu bytes, %s%s, %s)\n", p, len,
                     flags & MAP_SHARED ? "MAP_SHARED" : "MAP_PRIVATE", flags & MAP_HUGETLB ? "|MAP_HUGETLB" : "",
                     prot & PROT_MTE ? "PROT_MTE" : "no PROT_MTE");
    if (n > 0)
        (void)!write(2, line, (size_t)n);
}

static void *plant(void *p, size_t len, int prot, int flags, int fd)
{
    static size_t min;
    if (!min) {
        const char *e = getenv("MTB_PLANT_MIN");
        min = e && *e ? strtoull(e, NULL, 0) : (1u << 20);
        if (!min)
            min = 1;
    }
    if (p == MAP_FAILED || fd != -1 || !(flags & MAP_ANONYMOUS) || !(prot & PROT_WRITE) || len < min ||
        !(flags & (MAP_SHARED | MAP_HUGETLB)))
        return p;
    note(p, len, prot, flags);
    volatile unsigned char *t = (volatile unsigned char *)((uintptr_t)p | (1ull << 56));
    *t = 0x5a;
    return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static mmap_fn real;
    if (!real)
        real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
    return plant(real(addr, len, prot, flags, fd, off), len, prot, flags, fd);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap(addr, len, prot, flags, fd, off);
}
