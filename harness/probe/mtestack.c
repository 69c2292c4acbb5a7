/*
 * libmtestack.so - the stack set-up of the `stacktag` variants, preloaded
 * into a service built with Clang's stack tagging (-fsanitize=memtag; the
 * recipe's `stack_tagging = yes`).
 *
 * Clang's instrumentation tags a frame's slots (irg, stg/st2g) and expects
 * the stack to be memory that holds tags. Neither the kernel nor glibc 2.36
 * maps a stack PROT_MTE, and on memory without PROT_MTE the tag stores are
 * no-ops and no access is checked. So, before main (this library's
 * constructor; no instrumented frame is live yet, and this file is built
 * by GCC, uninstrumented):
 *   - the main thread's stack, the exact [stack] range of /proc/self/maps
 *     (qemu-user refuses PROT_GROWSDOWN), is mprotect'ed PROT_MTE;
 *   - every thread made by pthread_create starts in a trampoline that does
 *     the same to its own stack (pthread_getattr_np's range) before the
 *     thread's function runs.
 * The tags already there read 0, as do the pointers to live frames, so the
 * frames below keep working. A stack that cannot be made PROT_MTE ends the
 * process (exit 71) with the reason on stderr: a run never measures or
 * tests an untagged stack as tagged. MTEBENCH_STACK_FILE, when set, gets a
 * line per stack made PROT_MTE ("main|thread START-END"), the run's proof.
 *
 * gettimeofday is called from a frame of its own here. glibc on aarch64
 * resolves it (IFUNC) straight to the vDSO's __kernel_gettimeofday, a leaf
 * that runs on its caller's SP, and Linux's vDSO orders its counter read
 * with a dummy load from [sp] through a general register (arm64
 * arch_counter_enforce_ordering: eor x4, x2, x2; add x4, sp, x4; ldr xzr,
 * [x4]): a tag-checked load with tag 0. A stack-tagged caller whose tagged
 * slot sits at [sp] (nginx's ngx_time_sigsafe_update: its timeval) then
 * faults in sync mode, on a real kernel only (qemu-user's vDSO makes the
 * system call). The frame below pushes the caller's SP down onto this
 * uninstrumented frame's own granule, which holds tag 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif

static int stack_fd = -1;
static int (*real_gettimeofday)(struct timeval *, void *); /* resolved before main: signal handlers call it */

static void note(const char *who, uintptr_t a, uintptr_t b)
{
    if (stack_fd < 0)
        return;
    char line[96];
    int n = snprintf(line, sizeof line, "%s %lx-%lx\n", who, (unsigned long)a, (unsigned long)b);
    if (write(stack_fd, line, (size_t)n) < 0) { /* the proof is lost; the run goes on */ }
}

/* [a, b) made PROT_MTE, or the process ends saying why */
static void tag_stack(const char *who, uintptr_t a, uintptr_t b)
{
    long pg = sysconf(_SC_PAGESIZE);
    a &= ~(uintptr_t)(pg - 1);
    if (mprotect((void *)a, b - a, PROT_READ | PROT_WRITE | PROT_MTE) == 0) {
        note(who, a, b);
        return;
    }
    char line[256];
    int n = snprintf(line, sizeof line, "mtestack: cannot make the %s stack %lx-%lx PROT_MTE (%s): stack tagging "
                     "would check nothing\n", who, (unsigned long)a, (unsigned long)b, strerror(errno));
    if (write(2, line, (size_t)n) < 0) { /* nothing to do */ }
    _exit(71);
}

__attribute__((constructor)) static void mtestack_init(void)
{
    const char *sf = getenv("MTEBENCH_STACK_FILE");
    if (sf && *sf)
        stack_fd = open(sf, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    uintptr_t a = 0, b = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", (unsigned long *)&a, (unsigned long *)&b) == 2)
            break;
    if (f)
        fclose(f);
    if (!b) {
        static const char msg[] = "mtestack: no [stack] in /proc/self/maps: stack tagging would check nothing\n";
        if (write(2, msg, sizeof msg - 1) < 0) { /* nothing to do */ }
        _exit(71);
    }
    tag_stack("main", a, b);
    real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
}

/* the vDSO's gettimeofday from this frame, not the caller's (above): never
 * a tail call, so the vDSO's SP is this frame's */
__attribute__((noinline)) int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    int (*fn)(struct timeval *, void *) = real_gettimeofday;
    if (!fn) /* called before this library's constructor ran */
        fn = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    volatile int rc = fn(tv, tz);
    return rc;
}

struct start {
    void *(*fn)(void *);
    void *arg;
};

/* a new thread's first frame: its stack made PROT_MTE, then its function */
static void *trampoline(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    pthread_attr_t at;
    void *addr = NULL;
    size_t size = 0;
    int bad = pthread_getattr_np(pthread_self(), &at) != 0;
    if (!bad) {
        bad = pthread_attr_getstack(&at, &addr, &size) != 0 || !size;
        pthread_attr_destroy(&at);
    }
    if (bad) {
        static const char msg[] = "mtestack: a new thread's stack is unknown (pthread_getattr_np): stack tagging "
                                  "would check nothing\n";
        if (write(2, msg, sizeof msg - 1) < 0) { /* nothing to do */ }
        _exit(71);
    }
    tag_stack("thread", (uintptr_t)addr, (uintptr_t)addr + size);
    return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real)
        real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT,
                                                                                                "pthread_create");
    struct start *s = malloc(sizeof *s);
    if (!s)
        return 11; /* EAGAIN */
    s->fn = fn;
    s->arg = arg;
    int rc = real(t, attr, trampoline, s);
    if (rc)
        free(s);
    return rc;
}
