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
 * What a fault report needs (docs/DETECTION.md, "Fault reports") follows
 * that line, where the process can still be asked (aarch64):
 *
 *     MTEBENCH-TAGS base=0x... tags=0123-...  the memory tags of the 33 granules
 *                                           around the address (LDG; '-': not
 *                                           mapped), the address's in the middle
 *     MTEBENCH-REGS x0=... pc=... insn=...  the registers, the instruction
 *     MTEBENCH-STACK pcs=0x...,0x...        pc, lr and the frame records' returns
 *     MTEBENCH-SYSCALL nr=N                 an asynchronous fault delivered at a
 *                                           system call's return: which one
 *     MTEBENCH-MAP 0xS-0xE OFF PERMS PATH   the executable mappings and the
 *                                           address's own (for symbols)
 *     MTEBENCH-ALLOC ...                    the objects near the address, from
 *                                           libmtealloc.so when it is preloaded
 *     MTEBENCH-END
 *
 * The pointer's tag is si_addr's top byte: the handler is installed with
 * SA_EXPOSE_TAGBITS (Linux 5.11), without which the kernel clears it.
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
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "vmflags.h"

#ifndef SA_EXPOSE_TAGBITS
#define SA_EXPOSE_TAGBITS 0x00000800
#endif
#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1 << 18)
#endif

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

static void (*alloc_report)(int fd, uintptr_t addr);

static void say(const char *buf, char *end)
{
    if (write(fault_fd >= 0 ? fault_fd : 2, buf, (size_t)(end - buf)) < 0) { /* best effort */ }
}

static void maps_each(void (*fn)(char *line, size_t len, uintptr_t s, uintptr_t e, const char *perms, void *arg),
                      void *arg);

#ifdef __aarch64__
static int has_mte;
/* the allocation tag of the granule at a (LDG); its page must be readable */
static unsigned ldg(uintptr_t a)
{
    /* LDG x0, [x0] as its encoding: the file is built for any AArch64 CPU */
    register uintptr_t r __asm__("x0") = a;
    __asm__ volatile(".inst 0xd9600000" : "+r"(r) : : "memory");
    return (unsigned)(r >> 56) & 0xf;
}

/* is the page of a mapped? (mincore fails with ENOMEM where nothing is) */
static int mapped(uintptr_t a)
{
    static unsigned char vec[1];
    long pg = 4096;
    return syscall(SYS_mincore, (void *)(a & ~(uintptr_t)(pg - 1)), (size_t)1, vec) == 0;
}

/* the granules of [lo, hi) that lie in readable mappings (an allocator's
 * guard pages are mapped PROT_NONE: LDG there faults) */
struct window { uintptr_t lo, hi; unsigned char ok[33]; };
static void readable_line(char *line, size_t len, uintptr_t s, uintptr_t e, const char *perms, void *arg)
{
    struct window *w = arg;
    (void)line, (void)len;
    if (perms[0] != 'r' || e <= w->lo || s >= w->hi)
        return;
    for (int i = 0; i < 33; i++) {
        uintptr_t a = w->lo + 16 * (uintptr_t)i;
        if (a >= s && a < e)
            w->ok[i] = 1;
    }
}

static void report_tags(uintptr_t addr)
{
    char buf[160], *p = buf;
    uintptr_t g = (addr & 0x00ffffffffffffffULL) & ~(uintptr_t)15, base = g - 16 * 16;
    p = put_str(p, "MTEBENCH-TAGS base=");
    p = put_hex(p, base);
    p = put_str(p, " tags=");
    struct window w = { base, base + 33 * 16, { 0 } };
    maps_each(readable_line, &w);
    for (int i = 0; i < 33; i++)
        *p++ = w.ok[i] ? "0123456789abcdef"[ldg(base + 16 * (uintptr_t)i)] : '-';
    *p++ = '\n';
    say(buf, p);
}

static void report_regs(const ucontext_t *u)
{
    char buf[1200], *p = buf;
    p = put_str(p, "MTEBENCH-REGS");
    for (int i = 0; i < 31; i++) {
        p = put_str(p, " x");
        p = put_dec(p, i);
        *p++ = '=';
        p = put_hex(p, (uintptr_t)u->uc_mcontext.regs[i]);
    }
    p = put_str(p, " sp=");
    p = put_hex(p, (uintptr_t)u->uc_mcontext.sp);
    p = put_str(p, " pc=");
    p = put_hex(p, (uintptr_t)u->uc_mcontext.pc);
    p = put_str(p, " pstate=");
    p = put_hex(p, (uintptr_t)u->uc_mcontext.pstate);
    uintptr_t pc = (uintptr_t)u->uc_mcontext.pc;
    if (!(pc & 3) && mapped(pc)) { /* the faulting instruction, for what it did */
        p = put_str(p, " insn=");
        p = put_hex(p, *(const uint32_t *)pc);
    }
    *p++ = '\n';
    say(buf, p);
}

/* pc, lr, then the returns of the frame records from x29 up, authentication
 * codes stripped; a record is followed only upwards and within 1 MiB */
static void report_stack(const ucontext_t *u)
{
    char buf[600], *p = buf;
    const uintptr_t va = 0x0000ffffffffffffULL;
    p = put_str(p, "MTEBENCH-STACK pcs=");
    p = put_hex(p, (uintptr_t)u->uc_mcontext.pc);
    *p++ = ',';
    p = put_hex(p, (uintptr_t)u->uc_mcontext.regs[30] & va);
    uintptr_t fp = (uintptr_t)u->uc_mcontext.regs[29];
    for (int n = 0; n < 16 && fp && !(fp & 7) && mapped(fp); n++) {
        const uintptr_t *rec = (const uintptr_t *)fp;
        uintptr_t next = rec[0], ret = rec[1] & va;
        if (!ret)
            break;
        *p++ = ',';
        p = put_hex(p, ret);
        if (next <= fp || next - fp > (1u << 20))
            break;
        fp = next;
    }
    *p++ = '\n';
    say(buf, p);
}

/* an asynchronous fault is raised when the task next enters the kernel: at
 * a system call, the instruction before pc is SVC #0 and x8 its number */
static void report_syscall(const ucontext_t *u)
{
    uintptr_t pc = (uintptr_t)u->uc_mcontext.pc;
    if (pc < 4 || !mapped(pc - 4) || *(const uint32_t *)(pc - 4) != 0xd4000001u)
        return;
    char buf[64], *p = buf;
    p = put_str(p, "MTEBENCH-SYSCALL nr=");
    p = put_dec(p, (long)u->uc_mcontext.regs[8]);
    *p++ = '\n';
    say(buf, p);
}
#endif

/* each line of /proc/self/maps, read in pieces (open, read and write are
 * async-signal-safe), as fn(line, start, end, perms, arg) */
static void maps_each(void (*fn)(char *line, size_t len, uintptr_t s, uintptr_t e, const char *perms, void *arg),
                      void *arg)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096], line[600];
    size_t ll = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (ll < sizeof line - 1)
                    line[ll++] = buf[i];
                continue;
            }
            line[ll] = 0;
            /* "start-end perms offset dev inode path" */
            uintptr_t st = 0, e = 0;
            char *q = line;
            while (*q && *q != '-') { st = st * 16 + (uintptr_t)(*q <= '9' ? *q - '0' : (*q | 32) - 'a' + 10); q++; }
            if (*q) q++;
            while (*q && *q != ' ') { e = e * 16 + (uintptr_t)(*q <= '9' ? *q - '0' : (*q | 32) - 'a' + 10); q++; }
            if (*q == ' ' && q[1] && q[2] && q[3])
                fn(line, ll, st, e, q + 1, arg);
            ll = 0;
        }
    }
    close(fd);
}

struct near { uintptr_t addr; };
static void map_line(char *line, size_t len, uintptr_t s, uintptr_t e, const char *perms, void *arg)
{
    uintptr_t addr = ((struct near *)arg)->addr;
    int holds = addr >= s && addr < e;
    if (perms[2] != 'x' && !holds)
        return;
    char out[640], *p = out;
    p = put_str(p, holds ? "MTEBENCH-MAP fault " : "MTEBENCH-MAP code ");
    line[len] = '\n';
    for (size_t k = 0; k <= len; k++)
        *p++ = line[k];
    say(out, p);
}

/* the executable mappings, and the one holding addr */
static void report_maps(uintptr_t addr)
{
    struct near n = { addr & 0x00ffffffffffffffULL };
    maps_each(map_line, &n);
}

/* one fault's lines at a time: threads faulting together (a use after free
 * reached by two workers) wait here, so that each fault's block stays whole
 * up to its MTEBENCH-END; given back before a chained handler runs, which may
 * not return */
static int writer;
static void take_turn(void)
{
    int me = (int)syscall(SYS_gettid), none = 0;
    while (!__atomic_compare_exchange_n(&writer, &none, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        if (none == me)
            return;
        none = 0;
        sched_yield();
    }
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    take_turn();
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
    say(buf, p);
    uintptr_t addr = (uintptr_t)si->si_addr;
#ifdef __aarch64__
    if (uc) {
        if (has_mte && addr) /* where the window is readable (maps) */
            report_tags(addr);
        report_regs(uc);
        report_stack(uc);
        if (si->si_code == 8)
            report_syscall(uc);
    }
#endif
    report_maps(addr);
    if (alloc_report && addr)
        alloc_report(fault_fd >= 0 ? fault_fd : 2, addr);
    p = put_str(buf, "MTEBENCH-END\n");
    say(buf, p);
    __atomic_store_n(&writer, 0, __ATOMIC_RELEASE);
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
    /* a synchronous tag-check fault where a core will be written: return,
     * and the instruction faults again under the default action, so the
     * kernel's core carries the fault's own siginfo (its address and
     * SEGV_MTESERR) where a re-raised signal's would say SI_TKILL */
    struct rlimit rl;
    if (sig == SIGSEGV && si->si_code == 9 && getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur != 0)
        return;
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
#ifdef __aarch64__
    has_mte = (getauxval(AT_HWCAP2) & HWCAP2_MTE) != 0;
#endif
    /* libmtealloc.so, when preloaded: the objects near a fault */
    alloc_report = (void (*)(int, uintptr_t))dlsym(RTLD_DEFAULT, "mtb_alloc_report");
    const char *path = getenv("MTEBENCH_FAULT_FILE");
    if (path && *path)
        fault_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_EXPOSE_TAGBITS;
    /* the service's later handlers for these are chained, not installed */
    call_real_sigaction(SIGSEGV, &sa, &chained[0]);
    call_real_sigaction(SIGBUS, &sa, &chained[1]);
}
