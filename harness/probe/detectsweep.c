/* detectsweep.c - the synthetic detection sweep (aarch64, run on the
 * measured platform under GLIBC_TUNABLES=glibc.mem.tagging=N; `mtebench
 * detect-sweep` runs it once per mode and compares its counts with the
 * arithmetic).
 *
 * Every trial makes one bad access to glibc malloc'd memory and notes whether
 * it was caught: a SIGSEGV whose handler records si_code and jumps back. The
 * accesses never change memory: a store writes back the byte that is there,
 * read through a pointer carrying the memory's own tag (ldg), so in async mode,
 * where the store happens and the fault comes at the next kernel entry (a
 * syscall right after the access), the heap stays intact.
 *
 * Cells (one line each, key=value):
 *   overflow n=N k=K   a store K bytes past an N-byte object (offset N+K-1),
 *                      its neighbour allocated right after it; K reaches
 *                      through the neighbour's chunk header
 *   far n=N j=J        a store into the J-th neighbour's first byte
 *   uaf_free n=N       a load through a freed object's pointer, not reused
 *   uaf_reuse n=N m=M  the object freed, M other allocations, the object's
 *                      chunk reused by malloc(N), a load through the stale
 *                      pointer; same= counts the reuses whose pointer
 *                      carried the stale pointer's tag (a load through it is
 *                      not a mismatch: never caught)
 *   sys_read n=N k=K   read() of N+K bytes from a pipe into an N-byte object:
 *                      the kernel writes K bytes past it (the bytes already
 *                      there, so nothing changes)
 *   sys_write_free n=N write() to a pipe from a freed N-byte object: the
 *                      kernel reads it through the stale pointer
 *                      For these two, kernel= counts the calls the kernel
 *                      refused (EFAULT) or cut short: its tag check on the
 *                      user memory it is handed (Linux: sync mode only;
 *                      qemu-user never checks)
 *   tags               the tags malloc gave: how many were 0, and the step
 *                      from one malloc's tag to the next one's counted among
 *                      the tags 1..15 (0..14; 0 = the same tag again)
 * Each line: trials, caught, sync (si_code 9), async (si_code 8), other
 * (another signal or si_code), kernel (a system call refused or cut short),
 * skipped (layout not as the cell needs).
 * Usage: detectsweep [TRIALS_RANDOM] (default 400; the deterministic cells
 * run 4 trials each). */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_GET_TAGGED_ADDR_CTRL
#define PR_GET_TAGGED_ADDR_CTRL 56
#endif

static sigjmp_buf jb;
static volatile sig_atomic_t got_code, got_sig;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    siglongjmp(jb, 1);
}

static inline unsigned tag_of(const void *p) { return (unsigned)((uintptr_t)p >> 56) & 0xf; }

/* the memory's tag at p (ldg), as a pointer that may access it */
static inline volatile unsigned char *mem_tagged(void *p)
{
    void *q = p;
    __asm__ volatile("ldg %0, [%0]" : "+r"(q));
    return (volatile unsigned char *)q;
}

struct cell { long trials, caught, sync, async, other, kernel, skipped, same; };

/* one bad access: a store through p of the byte already there (is_store),
 * else a load; 1 if a signal came */
static int attempt(volatile unsigned char *p, int is_store, struct cell *c)
{
    unsigned char v = is_store ? *mem_tagged((void *)p) : 0;
    got_sig = 0;
    got_code = 0;
    if (sigsetjmp(jb, 1) == 0) {
        if (is_store)
            *p = v;
        else
            v = *p;
        __asm__ volatile("" ::"r"(v));
        getppid(); /* a kernel entry: an async fault is delivered here */
    }
    c->trials++;
    if (!got_sig)
        return 0;
    c->caught++;
    if (got_sig == SIGSEGV && got_code == 9)
        c->sync++;
    else if (got_sig == SIGSEGV && got_code == 8)
        c->async++;
    else
        c->other++;
    return 1;
}

static void put(const char *what, const struct cell *c)
{
    printf("%s trials=%ld caught=%ld sync=%ld async=%ld other=%ld kernel=%ld skipped=%ld", what, c->trials,
           c->caught, c->sync, c->async, c->other, c->kernel, c->skipped);
    if (!strncmp(what, "uaf_reuse ", 10))
        printf(" same=%ld", c->same);
    printf("\n");
}

#define ADDR ((1ull << 56) - 1)

static size_t chunk_step(size_t n) { return ((n + 15) & ~(size_t)15) + 16; }

static void cell_overflow(size_t n, size_t k, long trials)
{
    struct cell c = { 0 };
    for (long t = 0; t < trials; t++) {
        unsigned char *a = malloc(n), *b = malloc(n);
        if (((uintptr_t)b & ADDR) - ((uintptr_t)a & ADDR) != chunk_step(n))
            c.skipped++;
        else
            attempt(a + n + k - 1, 1, &c);
        free(b);
        free(a);
    }
    char what[64];
    snprintf(what, sizeof what, "overflow n=%zu k=%zu", n, k);
    put(what, &c);
}

static void cell_far(size_t n, int j, long trials)
{
    struct cell c = { 0 };
    unsigned char *o[8];
    for (long t = 0; t < trials; t++) {
        for (int i = 0; i <= j; i++)
            o[i] = malloc(n);
        uintptr_t want = ((uintptr_t)o[0] & ADDR) + (uintptr_t)j * chunk_step(n);
        if (((uintptr_t)o[j] & ADDR) != want)
            c.skipped++;
        else
            attempt(o[0] + j * chunk_step(n), 1, &c);
        for (int i = j; i >= 0; i--)
            free(o[i]);
    }
    char what[64];
    snprintf(what, sizeof what, "far n=%zu j=%d", n, j);
    put(what, &c);
}

static void cell_uaf(size_t n, int m, int reuse, long trials)
{
    struct cell c = { 0 };
    void *other[8];
    for (long t = 0; t < trials; t++) {
        unsigned char *p = malloc(n);
        p[0] = 1;
        free(p);
        unsigned char *q = NULL;
        if (reuse) {
            for (int i = 0; i < m; i++)
                other[i] = malloc(n + 64); /* another size: its own tcache bin */
            q = malloc(n);
            if (((uintptr_t)q ^ (uintptr_t)p) & ADDR) {
                c.skipped++;
                goto next;
            }
        }
        c.same += reuse && tag_of(q) == tag_of(p);
        attempt(p, 0, &c);
    next:
        if (reuse) {
            free(q);
            for (int i = m - 1; i >= 0; i--)
                free(other[i]);
        }
    }
    char what[64];
    if (reuse)
        snprintf(what, sizeof what, "uaf_reuse n=%zu m=%d", n, m);
    else
        snprintf(what, sizeof what, "uaf_free n=%zu", n);
    put(what, &c);
}

/* one system call on a bad buffer: want bytes asked; caught if the kernel
 * refused it or cut it short, or a signal came (async: at the call's return) */
static void sys_attempt(ssize_t got, size_t want, struct cell *c)
{
    c->trials++;
    if (got != (ssize_t)want) {
        c->caught++;
        c->kernel++;
    }
}

/* a pipe that takes a whole trial's bytes without blocking */
static int pipe_nb(int fd[2])
{
    if (pipe(fd) != 0)
        return -1;
    fcntl(fd[0], F_SETFL, O_NONBLOCK);
    fcntl(fd[1], F_SETFL, O_NONBLOCK);
    return 0;
}

static void drain(int fd)
{
    char junk[256];
    while (read(fd, junk, sizeof junk) > 0)
        ;
}

/* read() of n+k bytes into an n-byte object whose neighbour follows it: the
 * pipe holds the bytes the memory has (each read through its own tag), so
 * the kernel's writes change nothing */
static void cell_sys_read(size_t n, size_t k, long trials)
{
    struct cell c = { 0 };
    int fd[2];
    unsigned char buf[256];
    if (n + k > sizeof buf || pipe_nb(fd) != 0)
        return;
    for (long t = 0; t < trials; t++) {
        unsigned char *a = malloc(n), *b = malloc(n);
        if (((uintptr_t)b & ADDR) - ((uintptr_t)a & ADDR) != chunk_step(n))
            c.skipped++;
        else {
            for (size_t i = 0; i < n + k; i++)
                buf[i] = *mem_tagged(a + i);
            if (write(fd[1], buf, n + k) == (ssize_t)(n + k)) {
                got_sig = 0;
                if (sigsetjmp(jb, 1) == 0)
                    sys_attempt(read(fd[0], a, n + k), n + k, &c);
                else {
                    c.trials++;
                    c.caught++;
                    c.other++;
                }
            }
            drain(fd[0]);
        }
        free(b);
        free(a);
    }
    close(fd[0]);
    close(fd[1]);
    char what[64];
    snprintf(what, sizeof what, "sys_read n=%zu k=%zu", n, k);
    put(what, &c);
}

/* write() to a pipe from an object already freed (glibc retags it 0) */
static void cell_sys_write_free(size_t n, long trials)
{
    struct cell c = { 0 };
    int fd[2];
    if (pipe_nb(fd) != 0)
        return;
    for (long t = 0; t < trials; t++) {
        unsigned char *p = malloc(n);
        memset(p, 1, n);
        free(p);
        got_sig = 0;
        if (sigsetjmp(jb, 1) == 0)
            sys_attempt(write(fd[1], p, n), n, &c);
        else {
            c.trials++;
            c.caught++;
            c.other++;
        }
        drain(fd[0]);
    }
    close(fd[0]);
    close(fd[1]);
    char what[64];
    snprintf(what, sizeof what, "sys_write_free n=%zu", n);
    put(what, &c);
}

/* the step from one malloc's tag to the next one's, counted among the tags
 * 1..15 (mod 15): 0 = the same tag again */
static void tag_steps(long trials)
{
    long steps[15] = { 0 }, zero = 0;
    unsigned prev = 0;
    for (long t = 0; t <= trials; t++) {
        void *p = malloc(32);
        unsigned tg = tag_of(p);
        zero += tg == 0;
        if (t > 0 && tg && prev)
            steps[(tg + 15 - prev) % 15]++;
        prev = tg;
        free(p);
    }
    printf("tags trials=%ld zero=%ld steps=", trials, zero);
    for (int i = 0; i < 15; i++)
        printf("%s%ld", i ? "," : "", steps[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    long nr = argc > 1 ? atol(argv[1]) : 400;
    if (nr < 1)
        nr = 400;
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    printf("prctl_ctrl=0x%lx\n", (long)prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0));
    void *probe = malloc(16);
    printf("heap_tagged=%d\n", tag_of(probe) != 0);
    free(probe);
    /* object size mod 16 (sizes 16..31) x overflow length: past the object's
     * last granule lies the neighbour's chunk header (16 bytes) */
    for (size_t n = 16; n < 32; n++)
        for (size_t k = 1; k <= ((n + 15) & ~(size_t)15) + 16 - n; k++) /* through the neighbour's header */
            cell_overflow(n, k, 4);
    for (int j = 1; j <= 3; j++)
        cell_far(40, j, nr);
    cell_uaf(40, 0, 0, 4);
    for (int m = 0; m <= 2; m++)
        cell_uaf(40, m, 1, nr);
    /* the kernel's own accesses to user memory (system calls) */
    cell_sys_read(32, 16, 4);
    cell_sys_write_free(40, 4);
    tag_steps(nr);
    printf("done\n");
    return 0;
}
