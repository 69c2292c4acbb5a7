/*
 * mtework - micro-programs whose MTE work is known by construction, for the
 * counting plugin's test (docs/COUNTING.md, tests/integration/agent/
 * vm-count.t). Run in the vm guest by `mtebench proof --platform vm --count`
 * after the proof.
 *
 * Each case runs in a counting window of its own (core/countmark.h): the
 * window opens and closes inside one asm block, so everything the window
 * holds at EL0 is the block's body plus the closing marker's four
 * instructions (three MOVs and the HINT). Each case prints one line,
 *
 *   case=NAME window=W n=N body=B
 *
 * W the window's number (1-based, in the order the plugin saw them: the
 * proof's window is 1), N the iterations, B the body's instructions;
 * the test derives every expected count from N. First it prints cpu=C,
 * the CPU it keeps itself on (the plugin's vCPU C). Buffers are touched before
 * their window so that no page fault re-runs an instruction inside it.
 *
 * Cases (all under PR_SET_TAGGED_ADDR_CTRL with TCF sync unless named):
 *   stg      N x STG (16 bytes each) through a tag-5 pointer
 *   gzva     N x DC GZVA (one DCZID block each)
 *   checked  N x (LDR, STR) through a tag-5 pointer into PROT_MTE memory
 *   tco      the same with PSTATE.TCO set: no access Tag Checked
 *   sp       N x (LDR, STR) through SP with an immediate: not Tag Checked
 *   untagged N x (LDR, STR) through a tag-0 pointer to memory without PROT_MTE
 *   tcf_none the checked case with TCF = none: still Tag Checked (TCF only
 *            decides what a failed check does)
 *   kcopy    read(2) of 4096 bytes of /dev/zero into a tag-5 PROT_MTE buffer:
 *            the kernel's clear_user stores them with STTR, 8 bytes each
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* the markers of core/countmark.h, inside the asm: x0 = "MTBC" << 16 | cmd */
#define OPEN "movz x0, #1\n movk x0, #0x4243, lsl #16\n movk x0, #0x4d54, lsl #32\n hint #126\n"
#define CLOSE "movz x0, #2\n movk x0, #0x4243, lsl #16\n movk x0, #0x4d54, lsl #32\n hint #126\n"

static int window = 1; /* the proof's window came first */

static void report(const char *name, long n, int body)
{
    printf("case=%s window=%d n=%ld body=%d\n", name, ++window, n, body);
    fflush(stdout);
}

static void tcf(unsigned long mode)
{
    if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | mode | (0xfffeUL << PR_MTE_TAG_SHIFT), 0, 0, 0) != 0) {
        perror("mtework: prctl(PR_SET_TAGGED_ADDR_CTRL)");
        exit(1);
    }
}

static char *tagged(char *p, unsigned tag) { return (char *)(((uintptr_t)p & ~(0xfUL << 56)) | ((uintptr_t)tag << 56)); }

static void ldst_loop(char *p, long n, const char *name)
{
    register long x2 __asm__("x2") = n;
    register char *x1 __asm__("x1") = p;
    __asm__ volatile(OPEN "1: ldr x3, [x1]\n str x3, [x1, #8]\n subs x2, x2, #1\n b.ne 1b\n" CLOSE
                     : "+r"(x2), "+r"(x1)
                     :
                     : "x0", "x3", "memory", "cc");
    report(name, n, 4 * (int)n);
}

int main(void)
{
    const long N = 512, K = 1000;
    const size_t len = 64 * 1024;
    /* on the last CPU, where nothing else of the guest's runs at EL0 (the
     * caller keeps itself on CPU 0): the plugin counts per vCPU */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(ncpu > 1 ? (int)ncpu - 1 : 0, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        perror("mtework: sched_setaffinity");
    printf("cpu=%d\n", ncpu > 1 ? (int)ncpu - 1 : 0);
    tcf(PR_MTE_TCF_SYNC);
    char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_MTE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *plain = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED || plain == MAP_FAILED) {
        perror("mtework: mmap");
        return 1;
    }
    memset(buf, 1, len); /* every page present (tag 0 memory through a tag-0 pointer) */
    memset(plain, 1, len);
    char *t5 = tagged(buf, 5);

    { /* stg: N granules tagged 5 */
        register long x2 __asm__("x2") = N;
        register char *x1 __asm__("x1") = t5;
        __asm__ volatile(OPEN "1: stg x1, [x1], #16\n subs x2, x2, #1\n b.ne 1b\n" CLOSE
                         : "+r"(x2), "+r"(x1) : : "x0", "memory", "cc");
        report("stg", N, 3 * (int)N);
    }
    { /* gzva: N DCZID blocks from 32 KiB on, zeroed and tagged 5 */
        register long x2 __asm__("x2") = N;
        register char *x1 __asm__("x1") = t5 + 32 * 1024;
        __asm__ volatile(OPEN "1: dc gzva, x1\n add x1, x1, #64\n subs x2, x2, #1\n b.ne 1b\n" CLOSE
                         : "+r"(x2), "+r"(x1) : : "x0", "memory", "cc");
        report("gzva", N, 4 * (int)N);
    }
    ldst_loop(t5, K, "checked"); /* granules 0 and 1 are tag 5 since stg */
    { /* tco: the same loop with PSTATE.TCO set */
        register long x2 __asm__("x2") = K;
        register char *x1 __asm__("x1") = t5;
        __asm__ volatile(OPEN "msr tco, #1\n 1: ldr x3, [x1]\n str x3, [x1, #8]\n subs x2, x2, #1\n b.ne 1b\n"
                              "msr tco, #0\n" CLOSE
                         : "+r"(x2), "+r"(x1) : : "x0", "x3", "memory", "cc");
        report("tco", K, 4 * (int)K + 2);
    }
    { /* sp: through SP with an immediate offset */
        register long x2 __asm__("x2") = K;
        __asm__ volatile(OPEN "sub sp, sp, #32\n 1: ldr x3, [sp, #8]\n str x3, [sp, #16]\n subs x2, x2, #1\n b.ne 1b\n"
                              "add sp, sp, #32\n" CLOSE
                         : "+r"(x2) : : "x0", "x3", "memory", "cc");
        report("sp", K, 4 * (int)K + 2);
    }
    ldst_loop(plain, K, "untagged");
    tcf(0); /* TCF none: checks have no effect, accesses are still Tag Checked */
    ldst_loop(t5, K, "tcf_none");
    tcf(PR_MTE_TCF_SYNC);
    { /* kcopy: the kernel stores into a tagged user buffer */
        int fd = open("/dev/zero", O_RDONLY);
        if (fd < 0) {
            perror("mtework: /dev/zero");
            return 1;
        }
        long got;
        register long x8 __asm__("x8") = 63; /* __NR_read */
        register long a0 __asm__("x1") = fd;
        register char *a1 __asm__("x2") = t5;
        register long a2 __asm__("x3") = 4096;
        /* the syscall's arguments go to x0-x2 after the open marker has used x0 */
        __asm__ volatile(OPEN "mov x0, x1\n mov x1, x2\n mov x2, x3\n svc #0\n mov x4, x0\n" CLOSE "mov %0, x4\n"
                         : "=r"(got), "+r"(a0), "+r"(a1), "+r"(a2)
                         : "r"(x8)
                         : "x0", "x4", "memory", "cc");
        close(fd);
        if (got != 4096) {
            fprintf(stderr, "mtework: read of /dev/zero into a tagged buffer returned %ld\n", got);
            return 1;
        }
        printf("case=kcopy window=%d n=4096 body=5\n", ++window);
    }
    return 0;
}
