/* proc.c - see proc.h */
#include "lib/proc.h"
#include "lib/cpus.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/procfs.h"

#include <dirent.h>
#include <poll.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int mtb_proc_wait(struct mtb_proc *p, double timeout);

#define MAX_CHILDREN 64
static volatile pid_t children[MAX_CHILDREN];
volatile int mtb_proc_interrupted;
static void (*exit_hooks[8])(void);

void mtb_proc_on_exit(void (*fn)(void))
{
    for (int i = 0; i < 8; i++)
        if (!exit_hooks[i] || exit_hooks[i] == fn) {
            exit_hooks[i] = fn;
            return;
        }
}

static void run_exit_hooks(void)
{
    for (int i = 0; i < 8; i++)
        if (exit_hooks[i])
            exit_hooks[i]();
}

static void kill_all(int sig)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0)
            kill(-children[i], sig);
}

static volatile int graceful;

void mtb_proc_graceful(int on)
{
    graceful = on;
}

static void on_signal(int sig)
{
    int first = !mtb_proc_interrupted;
    mtb_proc_interrupted = sig;
    kill_all(SIGCONT);
    kill_all(SIGKILL);
    if (graceful && sig == SIGINT && first) {
        /* REPS=auto: the loop ends after this run, and the report of the pairs done follows */
        static const char gmsg[] = "\nmtebench: interrupted: children killed; the report of the pairs done follows "
                                   "(Ctrl-C again to quit at once)\n";
        if (write(2, gmsg, sizeof gmsg - 1) < 0) { /* nothing */ }
        return;
    }
    /* only async-signal-safe calls here; records already written stay */
    static const char msg[] = "\nmtebench: interrupted: children killed; finished records are kept\n";
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing */ }
    run_exit_hooks(); /* settings the harness changed go back */
    _exit(130);
}

static void at_exit(void)
{
    kill_all(SIGKILL);
    run_exit_hooks();
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0)
            waitpid(children[i], NULL, WNOHANG);
}

void mtb_proc_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    atexit(at_exit);
}

/* The watchdog: a process of its own session, started with the first
 * child, that reads "+pgid"/"-pgid" (as ints) from a pipe whose only writer
 * is the harness. The harness killed in any way (SIGKILL included) closes
 * the pipe; the watchdog then kills every group still registered and ends.
 * The write end is close-on-exec, so no child keeps the pipe open. */
static int watch_fd = -1;

static void watchdog(int rfd)
{
    setsid();
    long maxfd = sysconf(_SC_OPEN_MAX);
    for (int fd = 0; fd < (maxfd > 0 && maxfd < 65536 ? maxfd : 65536); fd++)
        if (fd != rfd)
            close(fd);
    int dn = open("/dev/null", O_RDWR);
    if (dn >= 0) {
        dup2(dn, 0);
        dup2(dn, 1);
        dup2(dn, 2);
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    static pid_t groups[4 * MAX_CHILDREN];
    int g;
    ssize_t r;
    while ((r = read(rfd, &g, sizeof g)) == (ssize_t)sizeof g || (r < 0 && errno == EINTR)) {
        if (r < 0)
            continue;
        for (int i = 0; i < 4 * MAX_CHILDREN; i++)
            if (g > 0 ? groups[i] == 0 : groups[i] == -g) {
                groups[i] = g > 0 ? g : 0;
                break;
            }
    }
    for (int i = 0; i < 4 * MAX_CHILDREN; i++)
        if (groups[i] > 0) {
            kill(-groups[i], SIGCONT);
            kill(-groups[i], SIGKILL);
        }
    _exit(0);
}

static void watchdog_note(int g)
{
    if (watch_fd < 0 && g > 0) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0)
            return;
        pid_t w = fork();
        if (w == 0)
            watchdog(p[0]);
        close(p[0]);
        if (w < 0) {
            close(p[1]);
            return;
        }
        watch_fd = p[1];
    }
    if (watch_fd >= 0 && write(watch_fd, &g, sizeof g) < 0) { /* the watchdog is gone: nothing to do */ }
}

static void reg(pid_t pid, int add)
{
    watchdog_note(add ? (int)pid : -(int)pid);
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (add && children[i] == 0) {
            children[i] = pid;
            return;
        }
        if (!add && children[i] == pid) {
            children[i] = 0;
            return;
        }
    }
}

/* fork() for a child in a process group of its own, registered (the
 * watchdog, and the signal and exit handlers' kill_all) before the parent can
 * act on a termination signal: SIGINT, SIGTERM and SIGHUP are blocked across
 * the fork, so the child cannot be orphaned between fork and registration.
 * The child starts with the default dispositions (SIGPIPE's too) and the
 * caller's mask.
 * @return as fork (errno kept on failure). */
static pid_t fork_registered(void)
{
    sigset_t all, old;
    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigaddset(&all, SIGHUP);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        errno = e;
        return pid;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    setpgid(pid, pid);
    reg(pid, 1);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid;
}

int mtb_proc_spawn(struct mtb_proc *p, const struct mtb_spawn *s)
{
    memset(p, 0, sizeof *p);
    int logfd = -1;
    if (s->log_path) {
        logfd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (logfd < 0)
            return -errno;
    }
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        int e = errno;
        if (logfd >= 0)
            close(logfd);
        return -e;
    }
    pid_t pid = fork_registered();
    if (pid < 0) {
        int e = errno;
        close(errpipe[0]);
        close(errpipe[1]);
        if (logfd >= 0)
            close(logfd);
        return -e;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0)
            dup2(dn, 0);
        if (logfd >= 0) {
            dup2(logfd, 1);
            dup2(logfd, 2);
        }
        if (s->cwd && chdir(s->cwd) != 0)
            goto fail;
        if (s->cpus && s->ncpus > 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (int i = 0; i < s->ncpus; i++)
                CPU_SET(s->cpus[i], &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        if (s->numa_bind && s->numa_node >= 0 && s->numa_node < 1024) {
            /* memory on the profile's node, as numactl --membind does */
            unsigned long mask[1024 / (8 * sizeof(unsigned long))] = { 0 };
            mask[s->numa_node / (8 * sizeof(unsigned long))] |= 1UL << (s->numa_node % (8 * sizeof(unsigned long)));
            if (syscall(SYS_set_mempolicy, 2 /* MPOL_BIND */, mask, (unsigned long)1024) != 0)
                goto fail;
        }
        for (char *const *e = s->env_add; e && *e; e++)
            putenv(*e);
        if (s->user && geteuid() == 0) {
            struct passwd *pw = getpwnam(s->user);
            if (!pw) {
                errno = ESRCH;
                goto fail;
            }
            if (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
                goto fail;
            setenv("HOME", "/tmp", 1);
            setenv("USER", s->user, 1);
        }
        execvp(s->argv[0], s->argv);
    fail:;
        int e = errno;
        if (write(errpipe[1], &e, sizeof e) < 0) { /* parent sees EOF */ }
        _exit(127);
    }
    close(errpipe[1]);
    if (logfd >= 0)
        close(logfd);
    int childerr = 0;
    ssize_t r;
    while ((r = read(errpipe[0], &childerr, sizeof childerr)) < 0 && errno == EINTR)
        ;
    close(errpipe[0]);
    p->pid = pid;
    if (r == (ssize_t)sizeof childerr) {
        mtb_proc_wait(p, -1);
        return -childerr;
    }
    return 0;
}

int mtb_proc_poll(struct mtb_proc *p)
{
    if (p->exited)
        return 1;
    if (p->pid <= 0)
        return 1;
    int st;
    pid_t r = wait4(p->pid, &st, WNOHANG, &p->ru);
    if (r == p->pid) {
        p->exited = 1;
        p->status = st;
        reg(p->pid, 0);
        /* the leader is gone; take any stragglers of its group with it */
        kill(-p->pid, SIGKILL);
        return 1;
    }
    return 0;
}

/* Wait up to timeout seconds (<0: forever). @return 1 exited, 0 timed out. */
static int mtb_proc_wait(struct mtb_proc *p, double timeout)
{
    double end = mtb_mono() + timeout;
    while (!mtb_proc_poll(p)) {
        if (timeout >= 0 && mtb_mono() >= end)
            return 0;
        struct timespec ts = { 0, 5 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return 1;
}

void mtb_proc_stop(struct mtb_proc *p, int sig, double grace)
{
    if (p->pid <= 0 || mtb_proc_poll(p))
        return;
    kill(-p->pid, SIGCONT);
    kill(-p->pid, sig);
    if (!mtb_proc_wait(p, grace)) {
        kill(-p->pid, SIGKILL);
        mtb_proc_wait(p, -1);
    }
}

const char *mtb_proc_describe(int status, char *buf, size_t n)
{
    if (status < 0) /* mtb_proc_run's -errno: the program never started */
        snprintf(buf, n, "could not start: %s", strerror(-status));
    else if (WIFEXITED(status))
        snprintf(buf, n, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, n, "status 0x%x", status);
    return buf;
}

static void affinity_merge(pid_t pid, char *out, size_t len)
{
    char now[1024];
    if (mtb_proc_affinity(pid, now, sizeof now) != 0)
        return;
    int a[MTB_MAX_CPUS], b[MTB_MAX_CPUS];
    int na = *out ? mtb_cpulist_parse(out, a, MTB_MAX_CPUS) : 0, nb = mtb_cpulist_parse(now, b, MTB_MAX_CPUS);
    static char seen[MTB_MAX_CPUS];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < na; i++)
        seen[a[i]] = 1;
    for (int i = 0; i < nb; i++)
        seen[b[i]] = 1;
    int n = 0;
    for (int i = 0; i < MTB_MAX_CPUS; i++)
        if (seen[i])
            a[n++] = i;
    mtb_cpulist_format(a, n, out, len);
}

int mtb_proc_run_ru(const struct mtb_spawn *s, double timeout, struct rusage *ru)
{
    struct mtb_proc p;
    if (s->affinity_out && s->affinity_len)
        s->affinity_out[0] = 0;
    int rc = mtb_proc_spawn(&p, s);
    if (rc < 0)
        return rc;
    if (s->on_start)
        s->on_start(p.pid, s->on_start_arg);
    double t0 = mtb_mono(), next = t0 + 0.1;
    int done = 0;
    while (!(done = mtb_proc_poll(&p))) {
        double now = mtb_mono();
        if (timeout >= 0 && now - t0 >= timeout)
            break;
        if (s->affinity_out && now >= next) {
            /* sampled from 0.1 s on, long after the child pinned itself */
            affinity_merge(p.pid, s->affinity_out, s->affinity_len);
            next = now + 0.25;
        }
        struct timespec ts = { 0, 5 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (!done) {
        mtb_proc_stop(&p, SIGKILL, 1);
        return -ETIMEDOUT;
    }
    if (ru)
        *ru = p.ru;
    return p.status;
}

int mtb_proc_run(const struct mtb_spawn *s, double timeout)
{
    return mtb_proc_run_ru(s, timeout, NULL);
}

char *mtb_capture(char *const argv[], int with_stderr, int *status)
{
    return mtb_proc_capture(argv, with_stderr, MTB_CAPTURE_LIMIT, status);
}

char *mtb_proc_capture(char *const argv[], int with_stderr, double timeout, int *status)
{
    return mtb_proc_capture_env(argv, NULL, with_stderr, timeout, status);
}

char *mtb_proc_capture_env(char *const argv[], char *const *env_add, int with_stderr, double timeout, int *status)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return NULL;
    pid_t pid = fork_registered(); /* its own group: a timeout kills the command and what it started */
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        int dn = open("/dev/null", O_RDWR);
        if (dn >= 0) {
            dup2(dn, 0);
            if (!with_stderr)
                dup2(dn, 2);
        }
        dup2(fds[1], 1);
        if (with_stderr)
            dup2(fds[1], 2);
        for (int i = 0; env_add && env_add[i]; i++)
            putenv(env_add[i]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    double end = mtb_mono() + timeout;
    size_t cap = 4096, n = 0;
    char *buf = mtb_calloc(1, cap);
    int timed_out = 0;
    for (;;) {
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf)
                mtb_oom(NULL);
        }
        double left = end - mtb_mono();
        if (timeout >= 0 && left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = { .fd = fds[0], .events = POLLIN };
        int pr = poll(&pf, 1, timeout >= 0 ? (int)(left * 1000) + 1 : -1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue; /* the deadline is checked above */
        ssize_t r = read(fds[0], buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    close(fds[0]);
    struct mtb_proc p = { .pid = pid };
    /* output closed: the command should be ending; it gets what is left of the deadline */
    if (timed_out || !mtb_proc_wait(&p, timeout >= 0 ? end - mtb_mono() : -1)) {
        timed_out = 1;
        kill(-pid, SIGCONT);
        kill(-pid, SIGKILL);
        mtb_proc_wait(&p, -1);
    }
    kill(-pid, SIGKILL); /* anything of its group still holding on */
    if (timed_out) {
        free(buf);
        if (status)
            *status = -ETIMEDOUT;
        return NULL;
    }
    if (status)
        *status = p.status;
    return buf;
}

char *mtb_proc_keep_failed_log(const char *logp, const char *dir)
{
    fprintf(stderr, "---- last lines of %s ----\n", logp);
    char *const tail[] = { "tail", "-n", "30", (char *)logp, NULL };
    struct mtb_spawn ts = { .argv = tail };
    mtb_proc_run(&ts, 10);
    char *kept = mtb_asprintf("%s.failed.log", dir);
    rename(logp, kept);
    return kept;
}
