/* transport_ssh.c - see transport_ssh.h */
#include "agent/transport_ssh.h"
#include "lib/proc.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- options ------------------------------------------------------------ */

static struct {
    char *config, *key, *known_hosts, *remote_dir;
    int trust_new;
    double alive; /* --ssh-alive: seconds of silence after which either side gives the other up; 0: default */
} opt;

/* How long a silent link is tolerated, either way (--ssh-alive, default
 * 15 s): our ssh gives the host up after it (ServerAliveInterval alive/3,
 * ServerAliveCountMax 3), and the far watchdog stops the far command when it
 * has heard nothing from us for as long (we send a byte every alive/5 s,
 * at most every second, on the far command's stdin). */
static double alive_s(void) { return opt.alive > 0 ? opt.alive : 15; }

void mtb_ssh_configure(const struct mtb_ssh_opts *o)
{
    free(opt.config);
    free(opt.key);
    free(opt.known_hosts);
    free(opt.remote_dir);
    opt.config = o->config ? mtb_strdup(o->config) : NULL;
    opt.key = o->key ? mtb_strdup(o->key) : NULL;
    opt.known_hosts = o->known_hosts ? mtb_strdup(o->known_hosts) : NULL;
    opt.remote_dir = o->remote_dir ? mtb_strdup(o->remote_dir) : NULL;
    opt.trust_new = o->trust_new;
    opt.alive = o->alive;
}

int mtb_ssh_option(const char *name, const char *value)
{
    char **slot = !strcmp(name, "ssh-config") ? &opt.config : !strcmp(name, "ssh-key") ? &opt.key
                : !strcmp(name, "known-hosts") ? &opt.known_hosts : !strcmp(name, "remote-dir") ? &opt.remote_dir : NULL;
    if (slot) {
        free(*slot);
        *slot = mtb_strdup(value);
        return 1;
    }
    if (!strcmp(name, "trust-new-hosts")) {
        opt.trust_new = 1;
        return 1;
    }
    if (!strcmp(name, "ssh-alive")) {
        double v;
        if (mtb_parse_duration(value, &v) != 0 || v < 3 || v > 3600)
            mtb_die(2, "--ssh-alive '%s': a duration from 3 s to 1 h (how long a silent link is tolerated)", value);
        opt.alive = v;
        return 1;
    }
    return 0;
}

/* ---- local ssh processes: own process groups, killed on exit and Ctrl-C --- */

#define MAX_LOCAL 64
#define MAX_MASTERS 32
static volatile pid_t live[MAX_LOCAL];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct master {
    char where[256];
    char ctl[108];           /* the control socket */
    volatile pid_t pid;
    char *log;               /* the master's stderr */
    json_t *hashes;          /* far root: remote path -> sha256 of what is there */
    json_t *info;
    char root[512];
    char machine[32], uname_r[128];
    int agent_ok;
};
static struct master masters[MAX_MASTERS];
static char ctl_dir[64];

static void live_set(pid_t pid, int add)
{
    pthread_mutex_lock(&mu);
    for (int i = 0; i < MAX_LOCAL; i++)
        if (add ? live[i] == 0 : live[i] == pid) {
            live[i] = add ? pid : 0;
            break;
        }
    pthread_mutex_unlock(&mu);
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

enum { IN_NULL, IN_FILE, IN_HOLD };

/* Start argv in its own process group (PDEATHSIG: it ends with the thread
 * that started it, so masters are started by the main thread; a client
 * host's thread waits for its own ssh before it ends): stdin /dev/null, a file, or a pipe
 * held open by us (*holdfd) until the caller closes it; stdout to out_path
 * (or err_path); stderr appended to err_path. @return pid, or -1. */
static pid_t lspawn(char *const *argv, int in_mode, const char *in_path, const char *out_path, const char *err_path,
                    int *holdfd)
{
    int hp[2] = { -1, -1 };
    if (in_mode == IN_HOLD && pipe2(hp, O_CLOEXEC) != 0)
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
        int in = in_mode == IN_HOLD ? hp[0] : open(in_mode == IN_FILE ? in_path : "/dev/null", O_RDONLY);
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
    if (in_mode == IN_HOLD) {
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

/* ---- sessions ----------------------------------------------------------- */

struct mtb_session {
    struct master *m;
    char *where, *dest, *port, *workdir, *sshlog;
    double connect_timeout, connect_seconds;
    int quiet;
};

static char *shq(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *o = malloc(n), *q = o;
    *q++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(q, "'\\''", 4);
            q += 4;
        } else
            *q++ = *p;
    }
    *q++ = '\'';
    *q = 0;
    return o;
}

static void ssh_base(struct mtb_argv *a, const struct mtb_session *s, int master)
{
    mtb_argv_push(a, "ssh");
    if (opt.config) {
        mtb_argv_push(a, "-F");
        mtb_argv_push(a, opt.config);
    }
    mtb_argv_push(a, "-o");
    mtb_argv_push(a, "BatchMode=yes");
    mtb_argv_push(a, "-o");
    mtb_argv_push(a, opt.trust_new ? "StrictHostKeyChecking=accept-new" : "StrictHostKeyChecking=yes");
    if (opt.known_hosts) {
        mtb_argv_push(a, "-o");
        mtb_argv_pushf(a, "UserKnownHostsFile=%s", opt.known_hosts);
    }
    if (opt.key) {
        mtb_argv_push(a, "-i");
        mtb_argv_push(a, opt.key);
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "IdentitiesOnly=yes");
    }
    mtb_argv_push(a, "-o");
    mtb_argv_pushf(a, "ConnectTimeout=%d", (int)(s->connect_timeout + 0.5));
    int every = (int)(alive_s() / 3 + 0.5);
    mtb_argv_push(a, "-o");
    mtb_argv_pushf(a, "ServerAliveInterval=%d", every < 1 ? 1 : every);
    mtb_argv_push(a, "-o");
    mtb_argv_push(a, "ServerAliveCountMax=3");
    mtb_argv_push(a, "-o");
    mtb_argv_pushf(a, "ControlPath=%s", s->m->ctl);
    if (master) {
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "ControlMaster=yes");
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "ControlPersist=no");
        mtb_argv_push(a, "-N");
    } else {
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "ControlMaster=no");
        mtb_argv_push(a, "-T");
    }
    if (s->port) {
        mtb_argv_push(a, "-p");
        mtb_argv_push(a, s->port);
    }
    mtb_argv_push(a, s->dest);
}

/* One far command line over the master: stdin from in_path (or held open:
 * the far watchdog's lifeline), stdout into out_path (or the ssh log).
 * @return its exit status (255: ssh's own failure), or -1 when the
 * deadline passed (it was killed). */
static int ssh_run(struct mtb_session *s, const char *cmdline, int in_mode, const char *in_path,
                   const char *out_path, double deadline)
{
    struct mtb_argv a = { 0 };
    ssh_base(&a, s, 0);
    mtb_argv_push(&a, cmdline);
    int hold = -1, st = -1;
    pid_t pid = lspawn(a.v, in_mode, in_path, out_path, s->sshlog, &hold);
    mtb_argv_free(&a);
    if (pid < 0)
        return -1;
    double beat = alive_s() / 5 < 1 ? alive_s() / 5 : 1;
    int ended = lwait(pid, deadline, &st, hold, beat);
    if (hold >= 0)
        close(hold);
    if (!ended)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

/* The far command's stdout as a string (NULL on failure). */
static char *ssh_out(struct mtb_session *s, const char *cmdline, double deadline, int *status)
{
    char *tmp = mtb_asprintf("%s/.ssh-out.%d.%lx", s->workdir, (int)getpid(), (unsigned long)pthread_self());
    *status = ssh_run(s, cmdline, IN_NULL, NULL, tmp, deadline);
    char *o = mtb_read_file(tmp, NULL);
    unlink(tmp);
    free(tmp);
    return o;
}

static int master_alive(struct master *m)
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

/* What ssh's own messages mean, said with what to do. */
static void explain(const struct mtb_session *s, const char *log, char *err, size_t errlen)
{
    char *text = log ? mtb_read_file(log, NULL) : NULL;
    int changed = text && strstr(text, "REMOTE HOST IDENTIFICATION HAS CHANGED");
    char last[256] = "";
    if (text) {
        char *save = NULL;
        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            if (*l && !strstr(l, "Warning: Permanently added"))
                snprintf(last, sizeof last, "%s", l);
    }
    if (changed)
        snprintf(err, errlen, "ssh %s: the host's key differs from the one in known_hosts (refused; if the host was "
                 "reinstalled, verify its new key and replace the old line: ssh-keygen -R HOST)", s->where);
    else if (text && (strstr(last, "Host key verification failed") || strstr(last, "host key is known")))
        snprintf(err, errlen, "ssh %s: host key not known (not in %s): refused. To trust it, check the key's "
                 "fingerprint with the host's owner and add it (ssh-keyscan HOST >> %s, or ssh once by hand), or pass "
                 "--trust-new-hosts to accept and record new hosts' keys on first use",
                 s->where, opt.known_hosts ? opt.known_hosts : "~/.ssh/known_hosts",
                 opt.known_hosts ? opt.known_hosts : "~/.ssh/known_hosts");
    else if (strstr(last, "Permission denied"))
        snprintf(err, errlen, "ssh %s: login refused (%s): no key the host accepts (keys come from your ssh-agent, "
                 "--ssh-key FILE or IdentityFile in your ssh config)", s->where, last);
    else
        snprintf(err, errlen, "ssh %s: %s", s->where, last[0] ? last : "cannot connect (no message from ssh)");
    free(text);
}

static const char *wall_now(double *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *t = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    return NULL;
}

/* identity, home, and the clock offset (min-RTT of 5 samples) */
static int learn_host(struct mtb_session *s, char *err, size_t errlen)
{
    struct master *m = s->m;
    int st;
    char *o = ssh_out(s, "uname -m; uname -r; uname -n; cat /etc/machine-id 2>/dev/null || echo -; echo \"$HOME\"; "
                         "nproc; command -v bash >/dev/null && echo bash || echo nobash; echo \"ssh $SSH_CONNECTION\"",
                      30, &st);
    if (st != 0 || !o) {
        explain(s, s->sshlog, err, errlen);
        free(o);
        return -1;
    }
    char *f[9] = { 0 }, *save = NULL;
    int n = 0;
    for (char *l = strtok_r(o, "\n", &save); l && n < 9; l = strtok_r(NULL, "\n", &save))
        f[n++] = l;
    if (n < 8) {
        snprintf(err, errlen, "ssh %s: unexpected answer to uname/nproc (a POSIX shell is needed there)", s->where);
        free(o);
        return -1;
    }
    if (strcmp(f[6], "bash")) {
        snprintf(err, errlen, "ssh %s: no bash on the host (Debian's bash package is needed there)", s->where);
        free(o);
        return -1;
    }
    snprintf(m->machine, sizeof m->machine, "%s", f[0]);
    snprintf(m->uname_r, sizeof m->uname_r, "%s", f[1]);
    const char *rd = opt.remote_dir ? opt.remote_dir : ".mtebench-agent";
    if (rd[0] == '/')
        snprintf(m->root, sizeof m->root, "%s", rd);
    else
        snprintf(m->root, sizeof m->root, "%s/%s", f[4], rd);
    double best_rtt = 1e9, best_off = 0;
    for (int i = 0; i < 5; i++) {
        double t0, t1;
        wall_now(&t0);
        char *d = ssh_out(s, "date +%s.%N", 10, &st);
        wall_now(&t1);
        if (st == 0 && d) {
            double far = atof(d);
            if (t1 - t0 < best_rtt) {
                best_rtt = t1 - t0;
                best_off = far - (t0 + t1) / 2;
            }
        }
        free(d);
    }
    m->info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:s,s:f,s:f,s:f}", "transport", "ssh", "where", s->where,
                        "hostname", f[2], "machine", f[0], "uname_r", f[1], "machine_id", f[3], "cpus", atoi(f[5]),
                        "root", m->root, "clock_offset_s", best_off, "clock_rtt_s", best_rtt, "connect_seconds",
                        s->connect_seconds);
    /* the address ssh reached it at (SSH_CONNECTION: client port server port) */
    char a1[64], a2[64], a3[64];
    if (sscanf(f[7], "ssh %63s %63s %63s", a1, a2, a3) == 3)
        json_object_set_new(m->info, "address", json_string(a3));
    free(o);
    /* what the far root already holds */
    char *cmd = mtb_asprintf("cat %s/.mtb-hashes 2>/dev/null; true", m->root);
    char *h = ssh_out(s, cmd, 30, &st);
    free(cmd);
    m->hashes = json_object();
    char *save2 = NULL;
    for (char *l = h ? strtok_r(h, "\n", &save2) : NULL; l; l = strtok_r(NULL, "\n", &save2)) {
        char *sp = strchr(l, ' ');
        if (sp) {
            *sp = 0;
            json_object_set_new(m->hashes, l, json_string(sp + 1));
        }
    }
    free(h);
    return 0;
}

static int put_ex(struct mtb_session *s, const char *local, const char *remote, const char *sha256,
                  const char *exclude, char *err, size_t errlen);

/* the agent for the host's architecture */
static int put_agent(struct mtb_session *s, char *err, size_t errlen)
{
    const char *R = mtb_root();
    int arm = !strcmp(s->m->machine, "aarch64") || !strcmp(s->m->machine, "arm64");
    if (!arm && strcmp(s->m->machine, "x86_64")) {
        snprintf(err, errlen, "ssh %s: host architecture %s: builds exist for x86_64 and aarch64 only", s->where,
                 s->m->machine);
        return -1;
    }
    const char *items[][2] = {
        { arm ? "build/aarch64/mtebench" : "build/mtebench", "build/mtebench" },
        { arm ? "build/aarch64/mtload" : "build/mtload", "build/mtload" },
        { "build/aarch64/mteprobe", "build/aarch64/mteprobe" },
        { "build/aarch64/libmtefault.so", "build/aarch64/libmtefault.so" },
        { arm ? "build/aarch64/libmtefault.so" : "build/native/libmtefault.so", "build/native/libmtefault.so" },
        { "services", "services" },
        { "configs/machines", "configs/machines" },
        { "loadgen/wrk-report.lua", "loadgen/wrk-report.lua" },
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        char *l = mtb_asprintf("%s/%s", R, items[i][0]);
        if (!mtb_file_exists(l)) {
            snprintf(err, errlen, "ssh %s: %s is missing here (make all builds it)", s->where, l);
            free(l);
            return -1;
        }
        int r = put_ex(s, l, items[i][1], NULL, !strcmp(items[i][0], "services") ? "build.sh" : NULL, err, errlen);
        free(l);
        if (r != 0)
            return -1;
    }
    s->m->agent_ok = 1;
    return 0;
}

/* The one master connection to s's host (claimed for it when new), with
 * the exit hooks and the control directory made on first use. */
static struct master *master_of(struct mtb_session *s, char *err, size_t errlen)
{
    pthread_mutex_lock(&mu);
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
    struct master *m = NULL;
    for (int i = 0; i < MAX_MASTERS && !m; i++)
        if (!strcmp(masters[i].where, s->where))
            m = &masters[i];
    for (int i = 0; i < MAX_MASTERS && !m; i++)
        if (!masters[i].where[0]) {
            m = &masters[i];
            snprintf(m->where, sizeof m->where, "%s", s->where);
            snprintf(m->ctl, sizeof m->ctl, "%s/m%d", ctl_dir, i);
        }
    pthread_mutex_unlock(&mu);
    if (!m || !ctl_dir[0]) {
        snprintf(err, errlen, "ssh %s: no room for another connection (%d hosts at most) or no /tmp", s->where,
                 MAX_MASTERS);
        return NULL;
    }
    return m;
}

/* A fresh master connection: the one connection to this host, up within
 * the connect timeout, then the host's facts learnt. @return 0 or -1 with err */
static int master_start(struct mtb_session *s, struct master *m, char *err, size_t errlen)
{
    unlink(m->ctl);
    json_decref(m->info);
    json_decref(m->hashes);
    m->info = m->hashes = NULL;
    m->agent_ok = 0;
    free(m->log);
    m->log = mtb_asprintf("%s/ssh-master.log", s->workdir);
    unlink(m->log);
    struct mtb_argv a = { 0 };
    ssh_base(&a, s, 1);
    double t0 = mtb_mono();
    int hold = -1;
    pid_t pid = lspawn(a.v, IN_NULL, NULL, NULL, m->log, &hold);
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
            explain(s, m->log, err, errlen);
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
    if (learn_host(s, err, errlen) != 0)
        return -1;
    if (!s->quiet)
        fprintf(stderr, "mtebench: ssh %s: connected (%s, %s, clock offset %+.1f ms)\n", s->where, m->machine,
                json_string_value(json_object_get(m->info, "hostname")),
                1e3 * json_real_value(json_object_get(m->info, "clock_offset_s")));
    return 0;
}

static struct mtb_session *ssh_open(const struct mtb_agent_target *t, char *err, size_t errlen)
{
    if (!t->where || !*t->where || strchr(t->where, ' ') || t->where[0] == '-') {
        snprintf(err, errlen, "ssh: bad host '%s' (accepted: [user@]host[:port])", t->where ? t->where : "");
        return NULL;
    }
    struct mtb_session *s = mtb_calloc(1, sizeof *s);
    s->where = mtb_strdup(t->where);
    s->dest = mtb_strdup(t->where);
    char *c = strrchr(s->dest, ':');
    if (c && !strchr(s->dest, '[') && strchr(s->dest, ':') == c) {
        *c = 0;
        s->port = mtb_strdup(c + 1);
    }
    s->workdir = mtb_strdup(t->workdir ? t->workdir : ".");
    mtb_mkdir_p(s->workdir);
    s->sshlog = mtb_asprintf("%s/ssh.log", s->workdir);
    s->connect_timeout = t->connect_timeout > 0 ? t->connect_timeout : 15;
    s->quiet = t->quiet;
    struct master *m = master_of(s, err, errlen);
    if (!m)
        goto fail;
    s->m = m;
    if (!master_alive(m) && master_start(s, m, err, errlen) != 0)
        goto fail;
    if (!m->agent_ok && put_agent(s, err, errlen) != 0)
        goto fail;
    return s;
fail:
    free(s->where);
    free(s->dest);
    free(s->port);
    free(s->workdir);
    free(s->sshlog);
    free(s);
    return NULL;
}
static int safe_path(const char *p)
{
    if (!*p || p[0] == '/' || strstr(p, ".."))
        return 0;
    for (const char *c = p; *c; c++)
        if (!(('a' <= *c && *c <= 'z') || ('A' <= *c && *c <= 'Z') || ('0' <= *c && *c <= '9') || strchr("._-/+", *c)))
            return 0;
    return 1;
}

static int hash_local(const char *local, const char *exclude, char hex[65])
{
    struct stat st;
    if (stat(local, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return mtb_sha256_file(local, hex);
    char *script = mtb_asprintf("cd \"$1\" && find . -type f ! -name '%s' | LC_ALL=C sort | xargs -r -d '\\n' sha256sum",
                                exclude ? exclude : "/");
    char *const argv[] = { "sh", "-c", script, "sh", (char *)local, NULL };
    int status;
    char *o = mtb_capture(argv, 0, &status);
    free(script);
    if (!o || status != 0) {
        free(o);
        return -1;
    }
    struct mtb_hash *h = mtb_hash_new();
    mtb_hash_str(h, "tree", o);
    mtb_hash_final(h, hex);
    free(o);
    return 0;
}

static int put_ex(struct mtb_session *s, const char *local, const char *remote, const char *sha256,
                  const char *exclude, char *err, size_t errlen)
{
    struct master *m = s->m;
    char hex[65];
    if (!safe_path(remote)) {
        snprintf(err, errlen, "ssh put: bad far path '%s' (relative, letters, digits, ._-/+)", remote);
        return -1;
    }
    if (sha256)
        snprintf(hex, sizeof hex, "%.64s", sha256);
    else if (hash_local(local, exclude, hex) != 0) {
        snprintf(err, errlen, "ssh put: cannot read %s: %s", local, strerror(errno));
        return -1;
    }
    const char *have = json_string_value(json_object_get(m->hashes, remote));
    if (have && !strcmp(have, hex))
        return 0;
    char *ldup = mtb_strdup(local), *ldup2 = mtb_strdup(local), *rdup = mtb_strdup(remote);
    const char *ldir = dirname(ldup), *lbase = basename(ldup2), *rdir = dirname(rdup);
    char *tar = mtb_asprintf("%s/.put.%d.%lx.tar", s->workdir, (int)getpid(), (unsigned long)pthread_self());
    struct mtb_argv ta = { 0 };
    mtb_argv_push(&ta, "tar");
    mtb_argv_push(&ta, "-cf");
    mtb_argv_push(&ta, tar);
    if (exclude)
        mtb_argv_pushf(&ta, "--exclude=%s", exclude);
    mtb_argv_push(&ta, "-C");
    mtb_argv_push(&ta, ldir);
    mtb_argv_push(&ta, lbase);
    struct mtb_spawn sp = { .argv = ta.v, .log_path = s->sshlog };
    int rc = mtb_proc_run(&sp, 120);
    mtb_argv_free(&ta);
    int ret = -1;
    if (rc != 0) {
        snprintf(err, errlen, "ssh put: cannot pack %s (see %s)", local, s->sshlog);
        goto out;
    }
    char *qb = shq(lbase);
    char *cmd = mtb_asprintf("set -e; mkdir -p %1$s && cd %1$s; rm -rf .mtb-put; mkdir .mtb-put; tar -xf - -C .mtb-put; "
                             "mkdir -p %2$s; rm -rf %3$s; mv .mtb-put/%4$s %3$s; rmdir .mtb-put; "
                             "{ grep -v '^%3$s ' .mtb-hashes 2>/dev/null || true; echo '%3$s %5$s'; } > .mtb-hashes.new; "
                             "mv .mtb-hashes.new .mtb-hashes",
                             m->root, rdir, remote, qb, hex);
    free(qb);
    double t0 = mtb_mono();
    rc = ssh_run(s, cmd, IN_FILE, tar, NULL, 600);
    free(cmd);
    if (rc != 0) {
        if (rc == -1)
            snprintf(err, errlen, "ssh %s: copying %s did not end within 600 s", s->where, remote);
        else
            explain(s, s->sshlog, err, errlen);
        goto out;
    }
    json_object_set_new(m->hashes, remote, json_string(hex));
    if (!s->quiet)
        fprintf(stderr, "mtebench: ssh %s: put %s (%.2f s)\n", s->where, remote, mtb_mono() - t0);
    ret = 0;
out:
    unlink(tar);
    free(tar);
    free(ldup);
    free(ldup2);
    free(rdup);
    return ret;
}

static int ssh_put(struct mtb_session *s, const char *local, const char *remote, const char *sha256, char *err,
                   size_t errlen)
{
    return put_ex(s, local, remote, sha256, NULL, err, errlen);
}

/* The far wrapper: the command in a session of its own; when the deadline
 * passes, our ssh goes away (its stdin closes) or nothing comes from us for
 * `alive` seconds (the heartbeat: a byte every second or so; a cut link
 * closes nothing, and sshd may not notice for hours), TERM to the command,
 * a grace, then KILL to everything left in its session. The exit status
 * goes to $out.rc (the command's own, or 124 deadline, 125 controller gone,
 * 126 controller silent), so that a later session can tell whether {out}
 * holds what the command finished. The command appends to $out.log as the
 * watchdog does (written at its own offset, its last words after the TERM
 * would overwrite the watchdog's reason). bash >= 5.1. */
static const char agent_sh[] =
    "d=$1 out=$2 root=$3 alive=$4; shift 5\n"
    "export MTEBENCH_ROOT=$root\n"
    "rm -rf \"$out\" \"$out.log\" \"$out.rc\"; mkdir -p \"$out\" || exit 125\n"
    "setsid \"$@\" </dev/null >>\"$out.log\" 2>&1 & p=$!\n"
    "echo $p > \"$out.pid\"\n"
    "exec 3<&0; ( while :; do IFS= read -r -t \"$alive\" -N 1 _ <&3 || exit $?; done ) >/dev/null 2>&1 & c=$!; exec 3<&-\n"
    "sleep \"$d\" & t=$!\n"
    "wait -n -p w $p $c $t; rc=$?\n"
    "g=\n"
    "if [ \"$w\" != \"$p\" ]; then\n"
    "  if [ \"$w\" = \"$t\" ]; then why=\"its deadline ($d s) passed\"; rc=124\n"
    "  elif [ $rc -gt 128 ]; then why=\"nothing heard from the controller for $alive s\"; rc=126\n"
    "  else why='the controller went away'; rc=125; fi\n"
    "  echo \"mtebench agent: $why: stopping it\" >>\"$out.log\"\n"
    "  kill -TERM -- -$p 2>/dev/null\n"
    "  sleep 5 & g=$!; wait -n $p $g\n"
    "fi\n"
    "pkill -KILL -s $p 2>/dev/null\n"
    "kill $c $t $g 2>/dev/null\n"
    "echo $rc > \"$out.rc\"\n"
    "exit $rc\n";

/* The far command line: the agent's watchdog script around the far
 * mtebench with argv, "{root}" and "{out}" replaced, each word quoted. */
static char *far_line(const struct master *m, const char *out, char *const *argv, double deadline_s)
{
    char *q = shq(agent_sh);
    char *line = mtb_asprintf("bash -c %s mtb-agent %d %s %s %d --", q, (int)(deadline_s + 0.999), out, m->root,
                              (int)(alive_s() + 0.5));
    free(q);
    char *mb = mtb_asprintf("%s/build/mtebench", m->root);
    q = shq(mb);
    char *l2 = mtb_asprintf("%s %s", line, q);
    free(q);
    free(line);
    free(mb);
    line = l2;
    for (char *const *a = argv; *a; a++) {
        char *v = mtb_strdup(*a), *r;
        while ((r = strstr(v, "{root}")) || (r = strstr(v, "{out}"))) {
            int isroot = !strncmp(r, "{root}", 6);
            *r = 0;
            char *nv = mtb_asprintf("%s%s%s", v, isroot ? m->root : out, r + (isroot ? 6 : 5));
            free(v);
            v = nv;
        }
        q = shq(v);
        l2 = mtb_asprintf("%s %s", line, q);
        free(q);
        free(v);
        free(line);
        line = l2;
    }
    return line;
}

/* The far {out} (a tar over the master) and the far log (as agent.log)
 * into local_dir. @return 0, or -1 when something did not come back */
static int bring_back(struct mtb_session *s, const char *out, int n, const char *local_dir)
{
    char *tar = mtb_asprintf("%s/.out.%d.tar", s->workdir, n);
    char *tc = mtb_asprintf("cd %s && tar -cf - .", out);
    int r1 = ssh_run(s, tc, IN_NULL, NULL, tar, 300);
    free(tc);
    char *logp = mtb_asprintf("%s/agent.log", local_dir);
    char *lc = mtb_asprintf("cat %s.log", out);
    int r2 = ssh_run(s, lc, IN_NULL, NULL, logp, 60);
    free(lc);
    free(logp);
    int r3 = -1;
    if (r1 == 0) {
        char *const xa[] = { "tar", "-xf", tar, "-C", (char *)local_dir, NULL };
        struct mtb_spawn sp = { .argv = xa, .log_path = s->sshlog };
        r3 = mtb_proc_run(&sp, 120);
    }
    unlink(tar);
    free(tar);
    return r1 == 0 && r2 == 0 && r3 == 0 ? 0 : -1;
}

static int ssh_exec(struct mtb_session *s, char *const *argv, double deadline_s, const char *local_dir,
                    struct mtb_agent_result *res, char *err, size_t errlen)
{
    struct master *m = s->m;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    double t0 = mtb_mono();
    static int seq;
    pthread_mutex_lock(&mu);
    int n = ++seq;
    pthread_mutex_unlock(&mu);
    if (!master_alive(m)) {
        snprintf(err, errlen, "ssh %s: the connection was lost", s->where);
        return -1;
    }
    res->connected = 1;
    res->connect_seconds = s->connect_seconds;
    snprintf(res->uname_r, sizeof res->uname_r, "%s", m->uname_r);
    res->info = json_deep_copy(m->info);
    char *out = mtb_asprintf("%s/out/%d-%d", m->root, (int)getpid(), n);
    char *line = far_line(m, out, argv, deadline_s);
    mtb_mkdir_p(local_dir);
    int rc = ssh_run(s, line, IN_HOLD, NULL, NULL, deadline_s + 20);
    free(line);
    int ret = -1, stopped = rc == 124 || rc == 125 || rc == 126;
    if (rc == -1) {
        /* ours gave up first: stop it over the master too */
        char *k = mtb_asprintf("p=$(cat %s.pid 2>/dev/null) && kill -TERM -- -$p; sleep 2; pkill -KILL -s $p; true", out);
        ssh_run(s, k, IN_NULL, NULL, NULL, 10);
        free(k);
        snprintf(err, errlen, "ssh %s: mtebench %s did not end within %.0f s (stopped)", s->where, argv[0], deadline_s);
    } else if (rc == 255 && !master_alive(m)) {
        /* the far command goes on, or is stopped by its watchdog within --ssh-alive: what it finishes stays there */
        snprintf(res->far_out, sizeof res->far_out, "%s", out);
        snprintf(err, errlen, "ssh %s: the connection was lost during mtebench %s (no answer for %.0f s; what it "
                 "finishes there stays in %s)", s->where, argv[0], alive_s(), out);
    } else {
        res->exit_status = stopped ? -1 : rc;
        if (rc == 124)
            snprintf(err, errlen, "ssh %s: mtebench %s did not end within %.0f s (stopped there)", s->where, argv[0],
                     deadline_s);
        else if (rc == 125)
            snprintf(err, errlen, "ssh %s: mtebench %s was stopped there: its ssh session ended early", s->where,
                     argv[0]);
        else if (rc == 126)
            snprintf(err, errlen, "ssh %s: mtebench %s was stopped there: it heard nothing from us for %.0f s",
                     s->where, argv[0], alive_s());
        /* bring {out} and the log back */
        int back = bring_back(s, out, n, local_dir) == 0;
        if (back) {
            res->finished = !stopped;
            ret = res->finished ? 0 : -1;
        } else if (rc != 124) {
            snprintf(err, errlen, "ssh %s: the results of mtebench %s could not be brought back (see %s)", s->where,
                     argv[0], s->sshlog);
        }
        if (back || stopped || master_alive(m)) {
            char *rm = mtb_asprintf("rm -rf %1$s %1$s.log %1$s.pid %1$s.rc", out);
            ssh_run(s, rm, IN_NULL, NULL, NULL, 30);
            free(rm);
        } else { /* lost while bringing it back: it stays there for a later fetch */
            snprintf(res->far_out, sizeof res->far_out, "%s", out);
        }
    }
    free(out);
    res->total_seconds = mtb_mono() - t0;
    return ret;
}

/* The {out} an earlier exec left on the far side when its connection was
 * lost (exec's res->far_out): brought back into local_dir when the far
 * command ended by itself (its watchdog wrote its own exit status to
 * $out.rc), then removed there; one that was stopped, or is still running
 * after --ssh-alive and the watchdog's grace, is removed (stopped) and not
 * brought back. @return 0 brought back (res->exit_status: the far
 * command's), 1 nothing to bring back (err says why), -1 with err. */
static int ssh_fetch(struct mtb_session *s, const char *far_out, const char *local_dir, struct mtb_agent_result *res,
                     char *err, size_t errlen)
{
    struct master *m = s->m;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    char *mine = mtb_asprintf("%s/out/", m->root);
    int ours = !strncmp(far_out, mine, strlen(mine)) && safe_path(far_out + strlen(mine));
    free(mine);
    if (!ours) { /* never touch what is not an output of ours */
        snprintf(err, errlen, "ssh %s: %s is not an output directory of the agent (%s/out/...)", s->where, far_out,
                 m->root);
        return -1;
    }
    res->connected = 1;
    res->info = json_deep_copy(m->info);
    /* the far command's end: its exit status, once its watchdog wrote it (it stops it within --ssh-alive) */
    char *q = mtb_asprintf("for i in $(seq %1$d); do [ -e %2$s.rc ] && break; sleep 0.2; done 2>/dev/null; "
                           "cat %2$s.rc 2>/dev/null || { [ -d %2$s ] && echo running || echo gone; }",
                           (int)(5 * (alive_s() + 10)), far_out);
    int st;
    char *o = ssh_out(s, q, alive_s() + 30, &st);
    free(q);
    if (st != 0 || !o) {
        explain(s, s->sshlog, err, errlen);
        free(o);
        return -1;
    }
    int rc = -1, ret = 1;
    if (!strncmp(o, "gone", 4))
        snprintf(err, errlen, "ssh %s: %s is gone there (brought back, or removed, already)", s->where, far_out);
    else if (!strncmp(o, "running", 7))
        snprintf(err, errlen, "ssh %s: the far command of %s has not ended (stopped now, not brought back)", s->where,
                 far_out);
    else if (sscanf(o, "%d", &rc) != 1 || rc == 124 || rc == 125 || rc == 126)
        snprintf(err, errlen, "ssh %s: the far command of %s was stopped there (exit %d): nothing finished to bring "
                 "back", s->where, far_out, rc);
    else {
        mtb_mkdir_p(local_dir);
        static int seq;
        if (bring_back(s, far_out, 1000000 + ++seq, local_dir) == 0) {
            res->exit_status = rc;
            res->finished = 1;
            ret = 0;
        } else {
            snprintf(err, errlen, "ssh %s: %s could not be brought back (see %s)", s->where, far_out, s->sshlog);
            free(o);
            return -1;
        }
    }
    free(o);
    char *rm = mtb_asprintf("p=$(cat %1$s.pid 2>/dev/null) && { kill -TERM -- -$p; pkill -KILL -s $p; }; "
                            "rm -rf %1$s %1$s.log %1$s.pid %1$s.rc; true", far_out);
    ssh_run(s, rm, IN_NULL, NULL, NULL, 30);
    free(rm);
    return ret;
}

static void ssh_close(struct mtb_session *s)
{
    if (!s)
        return;
    free(s->where);
    free(s->dest);
    free(s->port);
    free(s->workdir);
    free(s->sshlog);
    free(s);
}

static json_t *ssh_info(struct mtb_session *s)
{
    return s->m->info;
}

static int ssh_sh(struct mtb_session *s, const char *cmdline, double deadline_s, char **out, char *err, size_t errlen)
{
    char *full = mtb_asprintf("cd %s && %s", s->m->root, cmdline);
    int st;
    char *o = ssh_out(s, full, deadline_s, &st);
    free(full);
    if (out)
        *out = o;
    else
        free(o);
    if (st < 0)
        snprintf(err, errlen, "ssh %s: command did not end within %.0f s", s->where, deadline_s);
    else if (st == 255 && !master_alive(s->m))
        snprintf(err, errlen, "ssh %s: the connection was lost", s->where);
    return st == 255 && !master_alive(s->m) ? -1 : st;
}

void mtb_ssh_close_all(void)
{
    for (int i = 0; i < MAX_MASTERS; i++) {
        struct master *m = &masters[i];
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

const struct mtb_transport mtb_transport_ssh = {
    .name = "ssh",
    .summary = "OpenSSH to [user@]host[:port]: BatchMode, known_hosts checked, one multiplexed connection per host",
    .open = ssh_open,
    .put = ssh_put,
    .exec = ssh_exec,
    .close = ssh_close,
    .sh = ssh_sh,
    .info = ssh_info,
    .fetch = ssh_fetch,
};
