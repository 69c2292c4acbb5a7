/* proc.c - see proc.h */
#include "proc.h"
#include "machine.h"
#include "util.h"

#include <dirent.h>
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

static void on_signal(int sig)
{
    mtb_proc_interrupted = sig;
    kill_all(SIGCONT);
    kill_all(SIGKILL);
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

static void reg(pid_t pid, int add)
{
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
    /* block termination signals across fork so the child cannot be
     * orphaned between fork and registration */
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
        close(errpipe[0]);
        close(errpipe[1]);
        if (logfd >= 0)
            close(logfd);
        return -e;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
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
    setpgid(pid, pid);
    reg(pid, 1);
    sigprocmask(SIG_SETMASK, &old, NULL);
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

int mtb_proc_wait(struct mtb_proc *p, double timeout)
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

int mtb_proc_affinity(pid_t pid, char *buf, size_t len)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    static char seen[MTB_MAX_CPUS];
    memset(seen, 0, sizeof seen);
    struct dirent *e;
    int any = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[400];
        snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
        char *text = mtb_read_file(path, NULL);
        char *l = text ? strstr(text, "Cpus_allowed_list:") : NULL;
        if (l) {
            l += strlen("Cpus_allowed_list:");
            l[strcspn(l, "\n")] = 0;
            int c[MTB_MAX_CPUS];
            int n = mtb_cpulist_parse(l, c, MTB_MAX_CPUS);
            for (int i = 0; i < n; i++)
                seen[c[i]] = 1;
            any |= n > 0;
        }
        free(text);
    }
    closedir(d);
    int c[MTB_MAX_CPUS], n = 0;
    for (int i = 0; i < MTB_MAX_CPUS; i++)
        if (seen[i])
            c[n++] = i;
    mtb_cpulist_format(c, n, buf, len);
    return any ? 0 : -1;
}

/* Fold the CPUs pid may use now into the list in out. */
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

int mtb_proc_stat_read(const char *path, struct mtb_proc_stat *st)
{
    char buf[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t r = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[r] = 0;
    char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
    if (!open_p || !close_p || close_p < open_p || !close_p[1])
        return -1;
    memset(st, 0, sizeof *st);
    st->processor = -1;
    snprintf(st->comm, sizeof st->comm, "%.*s", (int)(close_p - open_p - 1), open_p + 1);
    /* after ") ": state is field 3, ppid 4, pgrp 5; utime 14, stime 15, processor 39 */
    int field = 3;
    char *save = NULL;
    for (char *tok = strtok_r(close_p + 2, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
        switch (field) {
        case 3: st->state = tok[0]; break;
        case 4: st->ppid = atoi(tok); break;
        case 5: st->pgrp = atoi(tok); break;
        case 14: st->utime = strtoull(tok, NULL, 10); break;
        case 15: st->stime = strtoull(tok, NULL, 10); break;
        case 39: st->processor = atoi(tok); return 0;
        }
    }
    return field > 5 ? 0 : -1;
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
