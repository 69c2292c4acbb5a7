/*
 * libmtefault.so - preloaded into a measured service (LD_PRELOAD) so that a
 * tag-check fault becomes a result instead of a bare crash. On SIGSEGV or
 * SIGBUS it appends one line
 *
 *     MTEBENCH-FAULT signo=11 code=9 addr=0x0000ffff... pid=1234 pc=0x... lr=0x...
 *
 * to the file named by MTEBENCH_FAULT_FILE (opened at start-up, so the handler
 * only calls write), then re-raises the signal with the default action so the
 * process still dies the way it would have. The harness reads the line
 * (harness/run/run.c). Only async-signal-safe calls are made in the handler.
 *
 * Services with crash handlers of their own (db_bench installs one that
 * prints a backtrace) would take SIGSEGV away from us: signal() and
 * sigaction() are interposed so that such a handler is kept as the next one
 * in the chain instead. The fault is recorded first, then the service's
 * handler runs; if it returns, the signal is re-raised with the default
 * action.
 *
 * With MTEBENCH_SMAPS_FILE set (embedded services such as db_bench, which
 * have no long-lived server process the harness could inspect), a sampler
 * thread counts the mappings with the `mt` (PROT_MTE) flag in the process's
 * own /proc/self/smaps every 0.2 s and appends "MTEBENCH-SMAPS mt=N
 * shared=S pid=P" whenever a count reaches a new maximum.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmflags.h"

static int fault_fd = -1;
static char altstack[65536];
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;
/* the service's own SIGSEGV / SIGBUS dispositions, run after ours */
static struct sigaction chained[2];
static int ours(int sig) { return sig == SIGSEGV || sig == SIGBUS; }
static struct sigaction *chain_of(int sig) { return &chained[sig == SIGBUS]; }

static int call_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    if (!real_sigaction)
        real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    return real_sigaction(sig, sa, old);
}

static char *put_str(char *p, const char *s) { while (*s) *p++ = *s++; return p; }
static char *put_dec(char *p, long v)
{
    char tmp[24]; int n = 0;
    unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
    if (v < 0) *p++ = '-';
    do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    while (n) *p++ = tmp[--n];
    return p;
}
static char *put_hex(char *p, uintptr_t v)
{
    p = put_str(p, "0x");
    for (int i = 60; i >= 0; i -= 4) *p++ = "0123456789abcdef"[(v >> i) & 0xf];
    return p;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    char buf[200], *p = buf;
    p = put_str(p, "MTEBENCH-FAULT signo=");
    p = put_dec(p, sig);
    p = put_str(p, " code=");
    p = put_dec(p, si->si_code);
    p = put_str(p, " addr=");
    p = put_hex(p, (uintptr_t)si->si_addr);
    p = put_str(p, " pid=");
    p = put_dec(p, getpid());
#ifdef __aarch64__
    /* where: the faulting instruction and the return address (a link map's
     * base subtracted by whoever reads it) */
    if (uc) {
        p = put_str(p, " pc=");
        p = put_hex(p, (uintptr_t)((ucontext_t *)uc)->uc_mcontext.pc);
        p = put_str(p, " lr=");
        p = put_hex(p, (uintptr_t)((ucontext_t *)uc)->uc_mcontext.regs[30]);
    }
#endif
    *p++ = '\n';
    if (write(fault_fd >= 0 ? fault_fd : 2, buf, (size_t)(p - buf)) < 0) { /* best effort */ }
    struct sigaction next = *chain_of(sig), dfl;
    if (next.sa_flags & SA_SIGINFO) {
        if (next.sa_sigaction)
            next.sa_sigaction(sig, si, uc);
    } else if (next.sa_handler != SIG_DFL && next.sa_handler != SIG_IGN && next.sa_handler) {
        next.sa_handler(sig);
    }
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    call_real_sigaction(sig, &dfl, NULL);
    raise(sig);
}

int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
    if (!ours(sig) || fault_fd < 0)
        return call_real_sigaction(sig, sa, old);
    if (old)
        *old = *chain_of(sig);
    if (sa)
        *chain_of(sig) = *sa;
    return 0;
}

sighandler_t signal(int sig, sighandler_t h)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* mappings with the mt flag, and how many of them are MAP_SHARED: glibc's
 * tagged heap is private, a service's own shared memory and mmap'd files are
 * shared */
static int count_mt(int *shared)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    *shared = 0;
    while (fgets(line, sizeof line, f)) {
        int mt, ms;
        if (!mtb_vmflags(line, &mt, &ms))
            continue;
        n += mt;
        *shared += mt && ms;
    }
    fclose(f);
    return n;
}

static void *smaps_sampler(void *arg)
{
    int fd = (int)(intptr_t)arg, max = -1, maxsh = -1;
    for (;;) {
        int sh = 0, n = count_mt(&sh);
        if (n > max || sh > maxsh) {
            max = n > max ? n : max;
            maxsh = sh > maxsh ? sh : maxsh;
            char buf[96];
            int len = snprintf(buf, sizeof buf, "MTEBENCH-SMAPS mt=%d shared=%d pid=%d\n", n, sh, (int)getpid());
            if (len > 0 && write(fd, buf, (size_t)len) < 0)
                break;
        }
        usleep(200000);
    }
    return NULL;
}

__attribute__((constructor)) static void mtefault_init(void)
{
    /* a preloaded allocator that tags on any MTE CPU (Scudo), in mode off:
     * its tagging off, so that heap pointers stay untagged as the mode says
     * (without the tagged-address ABI the kernel refuses tagged buffers) */
    const char *ut = getenv("MTEBENCH_ALLOCATOR_UNTAGGED");
    if (ut && *ut == '1') {
        void (*off)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "malloc_disable_memory_tagging");
        if (off)
            off();
    }
    const char *sm = getenv("MTEBENCH_SMAPS_FILE");
    if (sm && *sm) {
        int fd = open(sm, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (fd >= 0 && pthread_create(&t, &at, smaps_sampler, (void *)(intptr_t)fd) != 0)
            close(fd);
        pthread_attr_destroy(&at);
    }
    const char *path = getenv("MTEBENCH_FAULT_FILE");
    if (path && *path)
        fault_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    /* the service's later handlers for these are chained, not installed */
    call_real_sigaction(SIGSEGV, &sa, &chained[0]);
    call_real_sigaction(SIGBUS, &sa, &chained[1]);
}
