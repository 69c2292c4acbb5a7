/* ssh_master.c - the ControlMaster connection per host, our ssh processes under it and their heartbeat */
#include "agent/ssh_int.h"
#include "agent/transport_ssh.h"
#include "core/host_rows.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- local ssh processes: own process groups, killed on exit and Ctrl-C --- */

#define MAX_LOCAL 64
#define MAX_MASTERS 32
static volatile pid_t live[MAX_LOCAL];
pthread_mutex_t mtb_ssh_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mtb_ssh_master masters[MAX_MASTERS];
static char ctl_dir[64];

static void live_set(pid_t pid, int add)
{
    pthread_mutex_lock(&mtb_ssh_mu);
    for (int i = 0; i < MAX_LOCAL; i++)
        if (add ? live[i] == 0 : live[i] == pid) {
            live[i] = add ? pid : 0;
            break;
        }
    pthread_mutex_unlock(&mtb_ssh_mu);
}

static void nap(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* exit and Ctrl-C: end every ssh of ours (the far watchdogs see their stdin
 * close and stop what they run), then the masters; async-signal-safe */
static void ssh_exit_hook(void)
{
    for (int i = 0; i < MAX_LOCAL; i++)
        if (live[i] > 0)
            kill(-live[i], SIGTERM);
    for (int i = 0; i < MAX_MASTERS; i++)
        if (masters[i].pid > 0)
            kill(masters[i].pid, SIGTERM);
    for (int k = 0; k < 50; k++) {
        int any = 0;
        for (int i = 0; i < MAX_MASTERS; i++)
            if (masters[i].pid > 0) {
                if (waitpid(masters[i].pid, NULL, WNOHANG) == 0)
                    any = 1;
                else
                    masters[i].pid = 0;
            }
        if (!any)
            break;
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < MAX_LOCAL; i++)
        if (live[i] > 0)
            kill(-live[i], SIGKILL);
    for (int i = 0; i < MAX_MASTERS; i++) {
        if (masters[i].pid > 0)
            kill(masters[i].pid, SIGKILL);
        if (masters[i].ctl[0])
            unlink(masters[i].ctl);
    }
    if (ctl_dir[0])
        rmdir(ctl_dir);
}


/* Start argv in its own process group (PDEATHSIG: it ends with the thread
 * that started it, so masters are started by the main thread; a client
 * host's thread waits for its own ssh before it ends): stdin /dev/null, a file, or a pipe
 * held open by us (*holdfd) until the caller closes it; stdout to out_path
 * (or err_path); stderr appended to err_path. @return pid, or -1. */
static pid_t lspawn(char *const *argv, int in_mode, const char *in_path, const char *out_path, const char *err_path,
                    int *holdfd)
{
    int hp[2] = { -1, -1 };
    if (in_mode == MTB_SSH_IN_HOLD && pipe2(hp, O_CLOEXEC) != 0)
        return -1;
    sigset_t all, old;
    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigaddset(&all, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive us, even after a SIGKILL */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        int in = in_mode == MTB_SSH_IN_HOLD ? hp[0]
                                            : open(in_mode == MTB_SSH_IN_FILE ? in_path : "/dev/null", O_RDONLY);
        int er = err_path ? open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
        int ou = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : er;
        if (in < 0 || (out_path && ou < 0))
            _exit(127);
        dup2(in, 0);
        if (ou >= 0)
            dup2(ou, 1);
        if (er >= 0)
            dup2(er, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid > 0) {
        setpgid(pid, pid);
        live_set(pid, 1);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (in_mode == MTB_SSH_IN_HOLD) {
        close(hp[0]);
        if (pid > 0) {
            *holdfd = hp[1];
            /* the heartbeat never blocks us: a link that takes nothing is the far side's to notice */
            fcntl(hp[1], F_SETFL, fcntl(hp[1], F_GETFL) | O_NONBLOCK);
        } else
            close(hp[1]);
    }
    return pid;
}

/* Wait up to timeout seconds; meanwhile a byte into beat_fd (>= 0) every
 * beat seconds, the far watchdog's heartbeat. @return 1 and *status when it
 * ended; 0 when the time ran out (then it is killed: its group, TERM then KILL). */
static int lwait(pid_t pid, double timeout, int *status, int beat_fd, double beat)
{
    double end = mtb_mono() + timeout, step = 0.002, next_beat = mtb_mono() + beat;
    for (;;) {
        if (beat_fd >= 0 && mtb_mono() >= next_beat) {
            if (write(beat_fd, "\n", 1) < 0) { /* full (the link takes nothing) or closed: the far side will know */ }
            next_beat = mtb_mono() + beat;
        }
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            live_set(pid, 0);
            if (r < 0)
                *status = -1;
            return 1;
        }
        if (mtb_mono() >= end || mtb_proc_interrupted)
            break;
        nap(step);
        if (step < 0.02)
            step *= 1.5;
    }
    kill(-pid, SIGTERM);
    for (int i = 0; i < 100 && waitpid(pid, status, WNOHANG) == 0; i++)
        nap(0.01);
    kill(-pid, SIGKILL);
    waitpid(pid, status, 0);
    live_set(pid, 0);
    return 0;
}

/* One far command line over the master: stdin from in_path (or held open:
 * the far watchdog's lifeline), stdout into out_path (or the ssh log).
 * @return its exit status (255: ssh's own failure), or -1 when the
 * deadline passed (it was killed). */
int mtb_ssh_run(struct mtb_session *s, const char *cmdline, int in_mode, const char *in_path,
                const char *out_path, double deadline)
{
    struct mtb_argv a = { 0 };
    mtb_ssh_base(&a, s, 0);
    mtb_argv_push(&a, cmdline);
    int hold = -1, st = -1;
    pid_t pid = lspawn(a.v, in_mode, in_path, out_path, s->sshlog, &hold);
    mtb_argv_free(&a);
    if (pid < 0)
        return -1;
    double beat = mtb_ssh_alive() / 5 < 1 ? mtb_ssh_alive() / 5 : 1;
    int ended = lwait(pid, deadline, &st, hold, beat);
    if (hold >= 0)
        close(hold);
    if (!ended)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

/* The far command's stdout as a string (NULL on failure). */
char *mtb_ssh_out(struct mtb_session *s, const char *cmdline, double deadline, int *status)
{
    char *tmp = mtb_asprintf("%s/.ssh-out.%d.%lx", s->workdir, (int)getpid(), (unsigned long)pthread_self());
    *status = mtb_ssh_run(s, cmdline, MTB_SSH_IN_NULL, NULL, tmp, deadline);
    char *o = mtb_read_file(tmp, NULL);
    unlink(tmp);
    free(tmp);
    return o;
}

int mtb_ssh_master_alive(struct mtb_ssh_master *m)
{
    if (m->pid <= 0)
        return 0;
    int st;
    if (waitpid(m->pid, &st, WNOHANG) != 0) {
        m->pid = 0;
        return 0;
    }
    return access(m->ctl, F_OK) == 0;
}

/* The one master connection to s's host (claimed for it when new), with
 * the exit hooks and the control directory made on first use. */
struct mtb_ssh_master *mtb_ssh_master_of(struct mtb_session *s, char *err, size_t errlen)
{
    pthread_mutex_lock(&mtb_ssh_mu);
    static int hooked;
    if (!hooked) {
        mtb_proc_on_exit(ssh_exit_hook);
        atexit(mtb_ssh_close_all);
        hooked = 1;
    }
    if (!ctl_dir[0]) {
        snprintf(ctl_dir, sizeof ctl_dir, "/tmp/mtb-ssh-XXXXXX");
        if (!mkdtemp(ctl_dir))
            ctl_dir[0] = 0;
    }
    struct mtb_ssh_master *m = NULL;
    for (int i = 0; i < MAX_MASTERS && !m; i++)
        if (!strcmp(masters[i].where, s->where))
            m = &masters[i];
    for (int i = 0; i < MAX_MASTERS && !m; i++)
        if (!masters[i].where[0]) {
            m = &masters[i];
            snprintf(m->where, sizeof m->where, "%s", s->where);
            snprintf(m->ctl, sizeof m->ctl, "%s/m%d", ctl_dir, i);
        }
    pthread_mutex_unlock(&mtb_ssh_mu);
    if (!m || !ctl_dir[0]) {
        snprintf(err, errlen, "ssh %s: no room for another connection (%d hosts at most) or no /tmp", s->where,
                 MAX_MASTERS);
        return NULL;
    }
    return m;
}

/* A fresh master connection: the one connection to this host, up within
 * the connect timeout, then the host's facts learnt. @return 0 or -1 with err */
int mtb_ssh_master_start(struct mtb_session *s, struct mtb_ssh_master *m, char *err, size_t errlen)
{
    unlink(m->ctl);
    json_decref(m->info);
    m->info = NULL;
    mtb_strmap_clear(&m->hashes);
    m->agent_ok = 0;
    free(m->log);
    m->log = mtb_asprintf("%s/ssh-master.log", s->workdir);
    unlink(m->log);
    struct mtb_argv a = { 0 };
    mtb_ssh_base(&a, s, 1);
    double t0 = mtb_mono();
    int hold = -1;
    pid_t pid = lspawn(a.v, MTB_SSH_IN_NULL, NULL, NULL, m->log, &hold);
    mtb_argv_free(&a);
    if (pid < 0) {
        snprintf(err, errlen, "ssh %s: cannot start ssh: %s (Debian: openssh-client)", s->where, strerror(errno));
        return -1;
    }
    live_set(pid, 0); /* a master is ended by the hook, after the sessions */
    m->pid = pid;
    for (;;) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            m->pid = 0;
            mtb_ssh_explain(s, m->log, err, errlen);
            return -1;
        }
        if (access(m->ctl, F_OK) == 0)
            break;
        if (mtb_mono() - t0 > s->connect_timeout + 2 || mtb_proc_interrupted) {
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            m->pid = 0;
            snprintf(err, errlen, "ssh %s: not connected within %.0f s", s->where, s->connect_timeout + 2);
            return -1;
        }
        nap(0.01);
    }
    s->connect_seconds = mtb_mono() - t0;
    if (mtb_ssh_learn_host(s, err, errlen) != 0)
        return -1;
    struct mtb_host_view hv;
    mtb_host_view_read(m->info, &hv);
    if (!s->quiet)
        fprintf(stderr, "mtebench: ssh %s: connected (%s, %s, clock offset %+.1f ms)\n", s->where, m->machine,
                hv.hostname, 1e3 * hv.clock_offset_s);
    return 0;
}

void mtb_ssh_close_all(void)
{
    for (int i = 0; i < MAX_MASTERS; i++) {
        struct mtb_ssh_master *m = &masters[i];
        if (m->pid > 0) {
            kill(m->pid, SIGTERM);
            for (int k = 0; k < 100 && waitpid(m->pid, NULL, WNOHANG) == 0; k++)
                nap(0.01);
            kill(m->pid, SIGKILL);
            waitpid(m->pid, NULL, WNOHANG);
            m->pid = 0;
        }
        if (m->ctl[0])
            unlink(m->ctl);
    }
    if (ctl_dir[0])
        rmdir(ctl_dir);
}
