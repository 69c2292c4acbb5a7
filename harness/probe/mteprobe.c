/*
 * mteprobe - prove which MTE tag-check mode is really in effect.
 *
 * Runs on the measured platform (host, qemu-user or a VM guest) with the same
 * environment as the service (GLIBC_TUNABLES=glibc.mem.tagging=N), and prints
 * key=value lines that the harness parses (harness/run/proof.c):
 *
 *   hwcap2_mte      1 if the kernel (or qemu) reports HWCAP2_MTE
 *   prctl_ctrl      PR_GET_TAGGED_ADDR_CTRL as hex (-1 if the call failed)
 *   tcf             none | sync | async | sync+async (what the process asked for)
 *   tagged_ptrs     how many of 64 malloc'd pointers carry a non-zero tag
 *   write_fault     si_code of a deliberate tag-mismatched store (0 = no fault)
 *   read_fault      si_code of a deliberate tag-mismatched load  (0 = no fault)
 *   fault_addr      si_addr reported for the store (0 when async)
 *   mmap_mte        1 if an anonymous PROT_MTE mapping could be made
 *   malloc_recorded 1 when libmtealloc.so (a fault report's allocation record)
 *                   passes malloc on; malloc_from is then the one after it
 *   malloc_from     the library whose malloc serves the process (dladdr):
 *                   glibc's libc.so, or an allocator preloaded in its place
 *   tagged_large    how many of 8 large blocks (128 KiB to 2 MiB, beyond
 *                   glibc's mmap threshold and Scudo's primary) are tagged:
 *                   how much of the heap the allocator tags
 *
 * SEGV_MTESERR (9) means the check is synchronous, SEGV_MTEAERR (8)
 * asynchronous; asymmetric mode faults loads synchronously and stores
 * asynchronously. Exit status 0 when the probe ran (whatever it found).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_GET_TAGGED_ADDR_CTRL
#define PR_GET_TAGGED_ADDR_CTRL 56
#endif
#ifndef PR_TAGGED_ADDR_ENABLE
#define PR_TAGGED_ADDR_ENABLE (1UL << 0)
#endif
#ifndef PR_MTE_TCF_SYNC
#define PR_MTE_TCF_SYNC (1UL << 1)
#define PR_MTE_TCF_ASYNC (1UL << 2)
#endif
#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1UL << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif

static int report_fd = -1;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    long msg[2] = { si->si_code, (long)(uintptr_t)si->si_addr };
    if (write(report_fd, msg, sizeof msg) < 0) { /* nothing to do */ }
    _exit(3);
}

static unsigned ptr_tag(const void *p) { return (unsigned)(((uintptr_t)p >> 56) & 0xf); }

/* In a child: allocate, flip the pointer's tag, access through it, then
 * enter the kernel a few times so that an asynchronous fault is delivered. */
static long mismatch(int is_write, long *addr)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, NULL);
        report_fd = fds[1];
        volatile char *p = malloc(64);
        if (!p)
            _exit(4);
        p[0] = 1;
        volatile char *q = (volatile char *)((uintptr_t)p ^ (1ULL << 56));
        if (is_write)
            q[8] = 42;
        else {
            volatile char c = q[8];
            (void)c;
        }
        for (int i = 0; i < 4; i++)
            syscall(SYS_getpid);
        usleep(1000);
        _exit(0);
    }
    close(fds[1]);
    long msg[2] = { 0, 0 };
    ssize_t n = read(fds[0], msg, sizeof msg);
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    if (n == (ssize_t)sizeof msg) {
        *addr = msg[1];
        return msg[0];
    }
    if (WIFSIGNALED(st))
        return -WTERMSIG(st);
    return 0;
}

int main(void)
{
    unsigned long hw2 = getauxval(AT_HWCAP2);
    long ctrl = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0);
    const char *tcf = "none";
    if (ctrl >= 0) {
        int s = !!(ctrl & PR_MTE_TCF_SYNC), a = !!(ctrl & PR_MTE_TCF_ASYNC);
        tcf = s && a ? "sync+async" : s ? "sync" : a ? "async" : "none";
    }
    int tagged = 0;
    void *ps[64];
    for (int i = 0; i < 64; i++) {
        ps[i] = malloc(32 + (size_t)i * 16);
        if (ps[i] && ptr_tag(ps[i]))
            tagged++;
    }
    for (int i = 0; i < 64; i++)
        free(ps[i]);

    long waddr = 0, raddr = 0;
    long wcode = mismatch(1, &waddr);
    long rcode = mismatch(0, &raddr);

    void *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE | PROT_MTE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int mmap_mte = m != MAP_FAILED;
    if (mmap_mte)
        munmap(m, 65536);

    printf("hwcap2_mte=%d\n", !!(hw2 & HWCAP2_MTE));
    printf("prctl_ctrl=0x%lx\n", ctrl);
    printf("tcf=%s\n", tcf);
    printf("tagged_ptrs=%d/64\n", tagged);
    printf("write_fault=%ld\n", wcode);
    printf("read_fault=%ld\n", rcode);
    printf("fault_addr=0x%lx\n", (unsigned long)waddr);
    printf("mmap_mte=%d\n", mmap_mte);

    int large = 0;
    for (int i = 0; i < 8; i++) {
        void *b = malloc((size_t)128 << 10 << (i % 5));
        if (b && ptr_tag(b))
            large++;
        free(b);
    }
    printf("tagged_large=%d/8\n", large);
    /* the definition of malloc this process binds to (the first in the
     * global scope: a preloaded allocator's), and the object holding it */
    void *mf = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info di;
    const char *from = mf && dladdr(mf, &di) && di.dli_fname ? strrchr(di.dli_fname, '/') : NULL;
    /* a fault report's allocation record (libmtealloc.so) comes first and
     * passes malloc on: the allocator is the one after it */
    if (from && !strcmp(from + 1, "libmtealloc.so")) {
        const char *(*next)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "mtb_alloc_next_from");
        const char *nf = next ? next() : NULL;
        printf("malloc_recorded=1\n");
        from = nf ? strrchr(nf, '/') : NULL;
        if (!from && nf)
            from = nf - 1;
    }
    printf("malloc_from=%s\n", from ? from + 1 : "unknown");
    return 0;
}
