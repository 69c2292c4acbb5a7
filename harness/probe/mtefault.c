/*
 * libmtefault.so - preloaded into a measured service (LD_PRELOAD) so that a
 * tag-check fault becomes a result instead of a bare crash. On SIGSEGV or
 * SIGBUS it appends one line
 *
 *     MTEBENCH-FAULT signo=11 code=9 addr=0x0000ffff... pid=1234
 *
 * to the file named by MTEBENCH_FAULT_FILE (opened at start-up, so the handler
 * only calls write), then re-raises the signal with the default action so the
 * process still dies the way it would have. The harness reads the line
 * (harness/run.c). Only async-signal-safe calls are made in the handler.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fault_fd = -1;
static char altstack[65536];

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
    (void)uc;
    char buf[160], *p = buf;
    p = put_str(p, "MTEBENCH-FAULT signo=");
    p = put_dec(p, sig);
    p = put_str(p, " code=");
    p = put_dec(p, si->si_code);
    p = put_str(p, " addr=");
    p = put_hex(p, (uintptr_t)si->si_addr);
    p = put_str(p, " pid=");
    p = put_dec(p, getpid());
    *p++ = '\n';
    if (write(fault_fd >= 0 ? fault_fd : 2, buf, (size_t)(p - buf)) < 0) { /* best effort */ }
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void mtefault_init(void)
{
    const char *path = getenv("MTEBENCH_FAULT_FILE");
    if (path && *path)
        fault_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}
