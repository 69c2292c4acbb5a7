/*
 * libmtealloc.so - the allocation record behind a fault report
 * (docs/DETECTION.md, "Fault reports"). Preloaded first, before any
 * allocator (detect's trials, `run --fault-report`), it interposes the malloc
 * family and keeps, for every object handed out, its tagged pointer, its size
 * and the return addresses of the allocating call (a frame-record walk, 10
 * frames); a free moves the object into a ring of the last 4096 freed ones
 * with the freeing call's addresses. A free of a pointer already freed (the
 * same tagged pointer found in the ring, not live) is marked a double free
 * with the second free's addresses, before the allocator gets it.
 *
 * A service's own allocator (the objtag patches: memcached's slab chunks)
 * reports its objects through mtb_alloc_note / mtb_free_note, which the
 * service calls through weak references: without this library nothing is
 * called.
 *
 * At a fault, libmtefault's handler calls mtb_alloc_report (found with dlsym
 * when it starts), which writes the objects near the faulting address as
 * MTEBENCH-ALLOC lines to the fault file. It only reads memory and calls
 * write(2): async-signal-safe, and it takes no lock (the faulting thread may
 * hold it).
 *
 * Not for timed runs: every allocation costs a lock and a stack walk.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FRAMES 10
#define LIVE_BITS 16
#define LIVE (1u << LIVE_BITS)
#define LIVE_MAX (LIVE / 4 * 3)
#define FREED 4096
#define NEAR (64 * 1024)   /* how far from the fault an object may lie */
#define SHOWN 24           /* objects written per fault, nearest first */

enum { K_HEAP = 0, K_SERVICE = 1 };
enum { S_LIVE = 0, S_FREED = 1, S_DOUBLE = 2 };

struct arec {
    uintptr_t ptr;                 /* as handed out, tag included; 0: an empty slot */
    size_t size;
    uintptr_t alloc[FRAMES], free1[FRAMES], free2[FRAMES];
    int tid_alloc, tid_free;
    unsigned char kind, state;
};

static struct arec live[LIVE];
static struct arec freed[FREED];
static unsigned nlive, freed_next, dropped;
static unsigned long nfreed;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void take(void) { while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire)) sched_yield(); }
static void give(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }
static void after_fork(void) { atomic_flag_clear(&lock); }

static uintptr_t untag(uintptr_t p) { return p & 0x00ffffffffffffffULL; }
static unsigned slot_of(uintptr_t p) { return (unsigned)((untag(p) >> 4) * 0x9E3779B97F4A7C15ULL >> (64 - LIVE_BITS)); }

/* the return addresses above the caller's frame, by the AArch64 frame
 * records (x29 -> {previous x29, x30}), pointer authentication stripped */
static __attribute__((noinline)) void walk(uintptr_t *out, uintptr_t fp)
{
    int n = 0;
    while (n < FRAMES && fp && !(fp & 7)) {
        const uintptr_t *rec = (const uintptr_t *)fp;
        uintptr_t next = rec[0], ret = rec[1] & 0x0000ffffffffffffULL;
        if (!ret)
            break;
        out[n++] = ret;
        if (next <= fp || next - fp > (1u << 20))
            break;
        fp = next;
    }
    while (n < FRAMES)
        out[n++] = 0;
}

static int tid(void) { return (int)syscall(SYS_gettid); }

static void note_alloc(void *p, size_t n, unsigned char kind, uintptr_t fp)
{
    if (!p)
        return;
    uintptr_t st[FRAMES];
    walk(st, fp);
    take();
    if (nlive >= LIVE_MAX) {
        dropped++;
        give();
        return;
    }
    unsigned i = slot_of((uintptr_t)p);
    while (live[i].ptr && untag(live[i].ptr) != untag((uintptr_t)p))
        i = (i + 1) & (LIVE - 1);
    if (!live[i].ptr)
        nlive++;
    struct arec *r = &live[i];
    memset(r, 0, sizeof *r);
    r->ptr = (uintptr_t)p;
    r->size = n;
    r->kind = kind;
    memcpy(r->alloc, st, sizeof st);
    r->tid_alloc = tid();
    give();
}

/* linear probing's delete: the entries after the hole moved back into it */
static void live_remove(unsigned i)
{
    unsigned j = i;
    live[i].ptr = 0;
    for (;;) {
        j = (j + 1) & (LIVE - 1);
        if (!live[j].ptr)
            break;
        unsigned home = slot_of(live[j].ptr);
        /* j's entry stays when its home lies cyclically in (i, j] */
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        live[i] = live[j];
        live[j].ptr = 0;
        i = j;
    }
    nlive--;
}

static void note_free(void *p, uintptr_t fp)
{
    if (!p)
        return;
    uintptr_t st[FRAMES];
    walk(st, fp);
    take();
    unsigned i = slot_of((uintptr_t)p);
    while (live[i].ptr && untag(live[i].ptr) != untag((uintptr_t)p))
        i = (i + 1) & (LIVE - 1);
    if (live[i].ptr == (uintptr_t)p) {
        struct arec *f = &freed[freed_next++ % FREED];
        *f = live[i];
        f->state = S_FREED;
        memcpy(f->free1, st, sizeof st);
        f->tid_free = tid();
        nfreed++;
        live_remove(i);
    } else {
        /* not live as given: freed before? the newest such record */
        for (unsigned k = 1; k <= FREED && k <= freed_next; k++) {
            struct arec *f = &freed[(freed_next - k) % FREED];
            if (f->ptr == (uintptr_t)p) {
                f->state = S_DOUBLE;
                memcpy(f->free2, st, sizeof st);
                break;
            }
        }
    }
    give();
}

/* Scudo's hooks are being called (below): the malloc family records nothing */
static int scudo_hooks;

/* ---- the malloc family, passed on to the next allocator (glibc's, or a
 * preloaded one such as Scudo) ---- */
static void *(*r_malloc)(size_t);
static void *(*r_calloc)(size_t, size_t);
static void *(*r_realloc)(void *, size_t);
static void (*r_free)(void *);
static int (*r_posix_memalign)(void **, size_t, size_t);
static void *(*r_aligned_alloc)(size_t, size_t);
static void *(*r_memalign)(size_t, size_t);

/* what dlsym itself allocates before the real functions are known */
static _Alignas(16) char boot[8192];
static size_t boot_used;
static int in_boot(const void *p) { return (const char *)p >= boot && (const char *)p < boot + sizeof boot; }
static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (boot_used + n > sizeof boot)
        return NULL;
    void *p = boot + boot_used;
    boot_used += n;
    return p;
}

static void resolve(void)
{
    static int busy;
    if (busy || r_malloc)
        return;
    busy = 1;
    r_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    r_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    r_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    r_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    r_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    r_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    r_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    busy = 0;
}

#define FP ((uintptr_t)__builtin_frame_address(0))

void *malloc(size_t n)
{
    resolve();
    if (!r_malloc)
        return boot_alloc(n);
    void *p = r_malloc(n);
    if (!scudo_hooks)
        note_alloc(p, n, K_HEAP, FP);
    return p;
}

void *calloc(size_t k, size_t n)
{
    resolve();
    if (!r_calloc)
        return boot_alloc(k * n); /* static: zeroed */
    void *p = r_calloc(k, n);
    if (!scudo_hooks)
        note_alloc(p, k * n, K_HEAP, FP);
    return p;
}

void free(void *p)
{
    if (!p || in_boot(p))
        return;
    resolve();
    if (!scudo_hooks)
        note_free(p, FP);
    r_free(p);
}

void *realloc(void *p, size_t n)
{
    resolve();
    if (p && in_boot(p)) {
        void *q = malloc(n);
        if (q)
            memcpy(q, p, n < sizeof boot - (size_t)((char *)p - boot) ? n : sizeof boot - (size_t)((char *)p - boot));
        return q;
    }
    if (!r_realloc)
        return boot_alloc(n);
    uintptr_t fp = FP;
    void *q = r_realloc(p, n);
    if (!scudo_hooks && (q || n == 0)) {
        note_free(p, fp);
        note_alloc(q, n, K_HEAP, fp);
    }
    return q;
}

int posix_memalign(void **out, size_t al, size_t n)
{
    resolve();
    int e = r_posix_memalign(out, al, n);
    if (!e && !scudo_hooks)
        note_alloc(*out, n, K_HEAP, FP);
    return e;
}

void *aligned_alloc(size_t al, size_t n)
{
    resolve();
    void *p = r_aligned_alloc(al, n);
    if (!scudo_hooks)
        note_alloc(p, n, K_HEAP, FP);
    return p;
}

void *memalign(size_t al, size_t n)
{
    resolve();
    void *p = r_memalign(al, n);
    if (!scudo_hooks)
        note_alloc(p, n, K_HEAP, FP);
    return p;
}

/* the object whose malloc this one passes calls on to (mteprobe's
 * malloc_from, so that the mode proof names the allocator in effect) */
const char *mtb_alloc_next_from(void);
const char *mtb_alloc_next_from(void)
{
    Dl_info di;
    resolve();
    return r_malloc && dladdr((void *)r_malloc, &di) && di.dli_fname ? di.dli_fname : NULL;
}

/* ---- Scudo's hooks: Scudo (compiler-rt's scudo_standalone) calls these
 * for every allocation and free when a loaded object defines them, C++'s
 * operator new and delete included, which Scudo serves itself without
 * malloc. Once they are called, the malloc family above leaves the record
 * to them (an object noted twice would read as a double free). ---- */
void __scudo_allocate_hook(void *ptr, size_t size);
void __scudo_deallocate_hook(void *ptr);
void __scudo_allocate_hook(void *ptr, size_t size)
{
    scudo_hooks = 1;
    note_alloc(ptr, size, K_HEAP, FP);
}
void __scudo_deallocate_hook(void *ptr)
{
    scudo_hooks = 1;
    note_free(ptr, FP);
}

/* ---- a service's own allocator (objtag patches; weak references there) ---- */
void mtb_alloc_note(void *p, size_t n);
void mtb_free_note(void *p);
void mtb_alloc_note(void *p, size_t n) { note_alloc(p, n, K_SERVICE, FP); }
void mtb_free_note(void *p) { note_free(p, FP); }

/* ---- the report, from libmtefault's handler ---- */
static char *put(char *o, const char *s) { while (*s) *o++ = *s++; return o; }
static char *hex(char *o, uintptr_t v)
{
    o = put(o, "0x");
    int i = 60;
    while (i > 0 && !((v >> i) & 0xf))
        i -= 4;
    for (; i >= 0; i -= 4)
        *o++ = "0123456789abcdef"[(v >> i) & 0xf];
    return o;
}
static char *dec(char *o, unsigned long v)
{
    char t[24];
    int n = 0;
    do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n)
        *o++ = t[--n];
    return o;
}
static char *frames(char *o, const char *key, const uintptr_t *st)
{
    if (!st[0])
        return o;
    o = put(o, key);
    for (int i = 0; i < FRAMES && st[i]; i++) {
        if (i)
            *o++ = ',';
        o = hex(o, st[i]);
    }
    return o;
}

static uintptr_t distance(const struct arec *r, uintptr_t a)
{
    uintptr_t s = untag(r->ptr), e = s + (r->size ? r->size : 1);
    return a < s ? s - a : a >= e ? a - e + 1 : 0;
}

static void write_rec(int fd, const struct arec *r)
{
    static const char *const states[] = { "live", "freed", "double-freed" };
    char buf[900], *o = buf;
    o = put(o, "MTEBENCH-ALLOC state=");
    o = put(o, states[r->state]);
    o = put(o, r->kind == K_SERVICE ? " kind=service ptr=" : " kind=heap ptr=");
    o = hex(o, r->ptr);
    o = put(o, " size=");
    o = dec(o, r->size);
    o = put(o, " tid=");
    o = dec(o, (unsigned long)r->tid_alloc);
    o = frames(o, " alloc=", r->alloc);
    if (r->state != S_LIVE) {
        o = put(o, " free_tid=");
        o = dec(o, (unsigned long)r->tid_free);
        o = frames(o, " free=", r->free1);
        o = frames(o, " free2=", r->free2);
    }
    *o++ = '\n';
    if (write(fd, buf, (size_t)(o - buf)) < 0) { /* best effort */ }
}

void mtb_alloc_report(int fd, uintptr_t addr);
void mtb_alloc_report(int fd, uintptr_t addr)
{
    const struct arec *pick[SHOWN];
    uintptr_t dist[SHOWN];
    int n = 0;
    uintptr_t a = untag(addr);
    /* the live objects, then the freed ones newest first, one per address
     * (an address freed again and again would fill the report) */
    for (int pass = 0; pass < 2; pass++) {
        unsigned len = pass ? (freed_next < FREED ? freed_next : FREED) : LIVE;
        for (unsigned i = 0; i < len; i++) {
            const struct arec *r = pass ? &freed[(freed_next - 1 - i) % FREED] : &live[i];
            if (!r->ptr)
                continue;
            int seen = 0;
            for (int k = 0; pass && k < n; k++)
                seen |= pick[k]->state != S_LIVE && untag(pick[k]->ptr) == untag(r->ptr);
            if (seen)
                continue;
            uintptr_t d = distance(r, a);
            if (d > NEAR)
                continue;
            /* kept nearest first: insert, dropping the farthest when full */
            int j;
            if (n < SHOWN)
                j = n++;
            else if (d >= dist[SHOWN - 1])
                continue;
            else
                j = SHOWN - 1;
            while (j > 0 && dist[j - 1] > d) {
                pick[j] = pick[j - 1];
                dist[j] = dist[j - 1];
                j--;
            }
            pick[j] = r;
            dist[j] = d;
        }
    }
    char buf[160], *o = buf;
    o = put(o, "MTEBENCH-ALLOC-INFO live=");
    o = dec(o, nlive);
    o = put(o, " freed=");
    o = dec(o, nfreed);
    o = put(o, " kept_freed=");
    o = dec(o, nfreed < FREED ? nfreed : FREED);
    o = put(o, " dropped=");
    o = dec(o, dropped);
    o = put(o, " near=");
    o = dec(o, (unsigned long)n);
    *o++ = '\n';
    if (write(fd, buf, (size_t)(o - buf)) < 0) { /* best effort */ }
    for (int i = 0; i < n; i++)
        write_rec(fd, pick[i]);
}

__attribute__((constructor)) static void mtealloc_init(void)
{
    pthread_atfork(NULL, NULL, after_fork);
    resolve();
}
