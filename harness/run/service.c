/* service.c - see service.h */
#include "run/service.h"
#include "core/record_outcome.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"
#include "lib/procfs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reserve a free port on 127.0.0.1: bound (port 0: the kernel's choice;
 * MTEBENCH_PORT, a test hook: that one) and held in *fd until just before
 * the service starts, so that no other program is given it meanwhile.
 * @return the port, or -errno. */
static int reserve_port(int *fd)
{
    *fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0)
        return -errno;
    const char *want = getenv("MTEBENCH_PORT");
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons((uint16_t)(want ? atoi(want) : 0)) };
    socklen_t len = sizeof a;
    if (bind(*fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(*fd, (struct sockaddr *)&a, &len) != 0) {
        int e = errno;
        close(*fd);
        *fd = -1;
        return -e;
    }
    return ntohs(a.sin_port);
}

/* One readiness attempt: connect, send, expect a substring within 1 s. */
static int ready_once(int port, const char *send_s, const char *expect)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    struct timeval tv = { 1, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        if (!send_s || !*send_s) {
            ok = 1;
        } else if (send(fd, send_s, strlen(send_s), MSG_NOSIGNAL) == (ssize_t)strlen(send_s)) {
            char buf[512];
            ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
            if (n > 0) {
                buf[n] = 0;
                ok = !expect || strstr(buf, expect) != NULL;
            }
        }
    }
    close(fd);
    return ok;
}

/* The platform's command prefix as one string, for setup scripts that run
 * the service's own tools, with the mode's environment where the platform puts
 * it: emu gives it to the guest alone ("qemu-aarch64 -cpu max -E
 * GLIBC_TUNABLES=..."), host and vm in the script's environment (pushed onto
 * senv). In qemu-aarch64's own environment on an arm64 MTE host the tunable
 * would reach Debian's static-pie qemu-user, whose glibc 2.36 crashes at
 * start-up with heap tagging asked for (prctl called before it relocates
 * itself). */
static char *wrap_prefix(const struct mtb_platform *p, char *const *env, struct mtb_argv *senv)
{
    struct mtb_argv a = { 0 }, e = { 0 };
    p->wrap(&a, &e, "PROG", env);
    char *out = mtb_strdup("");
    for (int i = 0; i < a.n - 1; i++) {
        char *n = mtb_asprintf("%s%s%s", out, i ? " " : "", a.v[i]);
        free(out);
        out = n;
    }
    for (int i = 0; i < e.n; i++)
        mtb_argv_push(senv, e.v[i]);
    mtb_argv_free(&a);
    mtb_argv_free(&e);
    return out;
}

void mtb_service_log_tail(const char *path, int lines)
{
    fprintf(stderr, "---- last lines of %s ----\n", path);
    char *text = mtb_read_file(path, NULL);
    if (!text)
        return;
    int seen = 0;
    char *p = text + strlen(text);
    while (p > text && seen <= lines)
        if (*--p == '\n')
            seen++;
    fputs(p == text ? p : p + 1, stderr);
    free(text);
}

int mtb_service_check_user(const struct mtb_service *s, char *why, size_t n)
{
    if (!s->user)
        return 0;
    struct passwd *pw = getpwnam(s->user);
    if (!pw || chown(s->dir, pw->pw_uid, pw->pw_gid) != 0) {
        snprintf(why, n, "%s runs as user '%s', which %s (make deps creates it)", s->recipe->name, s->user,
                 pw ? "cannot own the run directory" : "does not exist");
        return -1;
    }
    /* the user must be able to reach the run directory and the build */
    const char *need[] = { s->dir, s->build->dir, NULL };
    for (const char **p = need; *p; p++) {
        char *path = mtb_strdup(*p), *slash;
        while ((slash = strrchr(path, '/')) && slash != path) {
            *slash = 0;
            struct stat st;
            if (stat(path, &st) == 0 && !(st.st_mode & S_IXOTH)) {
                snprintf(why, n, "%s runs as user '%s', who cannot reach %s (%s is not searchable "
                         "by others: chmod o+x it, or use --results elsewhere)", s->recipe->name, s->user, *p, path);
                free(path);
                return -1;
            }
        }
        free(path);
    }
    return 0;
}

/* The {placeholders} of [run] args and ready_cmd; strings live in bufs. */
static void template_pairs(const struct mtb_service *s, char bufs[2][16], const char *pairs[16])
{
    snprintf(bufs[0], 16, "%d", s->port);
    snprintf(bufs[1], 16, "%ld", s->wl->service_threads);
    struct passwd *pw = getpwuid(geteuid());
    const char *p[] = { "port", bufs[0], "threads", bufs[1], "user", s->user ? s->user : pw ? pw->pw_name : "root",
                        "rundir", s->dir, "build", s->build->dir, "recipe", s->recipe->dir,
                        "listen", s->listen ? s->listen : "127.0.0.1", NULL, NULL };
    memcpy(pairs, p, sizeof p);
}

/* nftw's callback of chown_tree: the owner in chown_uid/chown_gid */
static uid_t chown_uid;
static gid_t chown_gid;
static int chown_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return lchown(path, chown_uid, chown_gid) == 0 ? 0 : -1;
}

/* Give dir and everything in it to user (a copy seeded into a vm guest's
 * image belongs to root there). @return 0, or -1. */
static int chown_tree(const char *dir, const char *user)
{
    struct passwd *pw = getpwnam(user);
    if (!pw)
        return -1;
    chown_uid = pw->pw_uid;
    chown_gid = pw->pw_gid;
    return nftw(dir, chown_one, 16, FTW_PHYS);
}

/* [run] setup_reuse = DIR: what the setup makes in DIR depends only on the
 * build, the script, the workload's parameters and the mode it ran in
 * (PostgreSQL's initdb, ~13 s under emu, two minutes in a vm guest under
 * TCG), so a copy made by an earlier run is reused: from the cache, else
 * from the seed directory (MTEBENCH_SEED: a vm guest's, which the
 * controller put into its image), given to the run's user.
 * @return the cache directory of this key (*reused: copied; *from: the
 * copy's origin, heap). */
static char *reuse_lookup(const struct mtb_service *s, const char *reuse, const char *slog, int *reused,
                          char **from)
{
    /* the build's setup cache (its key: mtb_build_setup_dir) */
    char *keep = mtb_build_setup_dir(s->build, s->recipe, s->wl, s->user, s->env[0]);
    const char *seed = getenv("MTEBENCH_SEED");
    char *src = mtb_asprintf("%s/%s", keep, reuse);
    *from = mtb_strdup(keep);
    if (!mtb_file_exists(src) && seed && *seed) {
        char *sdir = mtb_asprintf("%s/setup/%s", seed, strrchr(keep, '/') + 1);
        char *ssrc = mtb_asprintf("%s/%s", sdir, reuse);
        if (mtb_file_exists(ssrc)) {
            free(*from);
            free(src);
            *from = sdir;
            src = ssrc;
        } else {
            free(sdir);
            free(ssrc);
        }
    }
    char *dst = mtb_asprintf("%s/%s", s->dir, reuse);
    *reused = 0;
    if (mtb_file_exists(src)) {
        char *const cp[] = { "cp", "-a", src, dst, NULL };
        struct mtb_spawn cs = { .argv = cp, .log_path = slog };
        *reused = mtb_proc_run(&cs, 120) == 0 && (!s->user || chown_tree(dst, s->user) == 0);
        if (!*reused)
            mtb_rm_rf(dst);
    }
    free(src);
    free(dst);
    return keep;
}

/* Keep a copy of what the setup made for later runs: copied, then renamed
 * into place (another run kept one first, or no room: not an error). */
static void reuse_keep(const struct mtb_service *s, const char *reuse, const char *keep)
{
    char *tmp = mtb_asprintf("%s.tmp.%d", keep, (int)getpid()), *src = mtb_asprintf("%s/%s", s->dir, reuse);
    mtb_rm_rf(tmp);
    char *const mk[] = { "mkdir", "-p", tmp, NULL }, *const cp[] = { "cp", "-a", src, tmp, NULL };
    struct mtb_spawn ms = { .argv = mk }, cs = { .argv = cp };
    if (mtb_proc_run(&ms, 30) != 0 || mtb_proc_run(&cs, 120) != 0 || rename(tmp, keep) != 0)
        mtb_rm_rf(tmp);
    free(tmp);
    free(src);
}

/* The setup script's environment: MTB_* and the workload's MTB_P_<key>. */
static void setup_env(const struct mtb_service *s, json_t *params, struct mtb_argv *senv)
{
    char *const mode_env[] = { s->env[0], NULL };
    char *prefix = wrap_prefix(s->platform, mode_env, senv);
    mtb_argv_pushf(senv, "MTB_RUNDIR=%s", s->dir);
    mtb_argv_pushf(senv, "MTB_PORT=%d", s->port);
    mtb_argv_pushf(senv, "MTB_BUILD=%s", s->build->dir);
    mtb_argv_pushf(senv, "MTB_WRAP=%s", prefix);
    mtb_argv_pushf(senv, "MTB_THREADS=%ld", s->wl->service_threads);
    mtb_argv_pushf(senv, "MTB_LISTEN=%s", s->listen ? s->listen : "127.0.0.1");
    mtb_argv_pushf(senv, "MTB_WORKLOAD=%s", s->wl->name);
    const char *pk;
    json_t *pv;
    json_object_foreach(params, pk, pv) mtb_argv_pushf(senv, "MTB_P_%s=%s", pk, json_string_value(pv));
    free(prefix);
}

int mtb_service_setup(struct mtb_service *s, const struct mtb_drive *d, json_t *rec, char *why, size_t n)
{
    s->port = reserve_port(&s->port_fd);
    if (s->port <= 0) {
        snprintf(why, n, "no free TCP port on 127.0.0.1: %s", strerror(-s->port));
        return -1;
    }
    const char *setup = s->recipe->run.setup;
    if (!setup)
        return 0;
    /* prepare the run directory (configuration, data, files) */
    char *script = mtb_asprintf("%s/%s", s->recipe->dir, setup);
    char *slog = mtb_asprintf("%s/setup.log", s->dir);
    json_t *params = mtb_workload_params(s->wl);
    struct mtb_argv senv = { 0 }, sa = { 0 };
    setup_env(s, params, &senv);
    mtb_argv_push(&sa, "bash");
    mtb_argv_push(&sa, script);
    const char *reuse = s->recipe->run.setup_reuse;
    char *keep = NULL;
    int st = -1, reused = 0;
    if (reuse) {
        char *from = NULL;
        keep = reuse_lookup(s, reuse, slog, &reused, &from);
        json_object_set_new(rec, "setup", json_pack("{s:s,s:b,s:s}", "reuse", reuse, "reused", reused, "from", from));
        free(from);
        st = reused ? 0 : -1;
    }
    if (!reused)
        st = mtb_driver_exec(d, &sa, senv.v, slog, NULL, 0, s->user);
    if (reuse && !reused && st == 0)
        reuse_keep(s, reuse, keep);
    if (reuse && st == 0) { /* the data the setup made is working data, not a result */
        char *rd = mtb_asprintf("%s/%s", s->dir, reuse);
        mtb_mark_scratch(rd);
        free(rd);
    }
    if (st != 0) {
        char desc[64];
        snprintf(why, n, "setup of %s failed (%s); see %s", s->recipe->name,
                 st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), slog);
        mtb_service_log_tail(slog, 20);
    }
    free(keep);
    json_decref(params);
    mtb_argv_free(&sa);
    mtb_argv_free(&senv);
    free(script);
    free(slog);
    return st == 0 ? 0 : -1;
}

int mtb_service_start(struct mtb_service *s, json_t *rec, char *why, size_t n)
{
    char bufs[2][16];
    const char *pairs[16];
    template_pairs(s, bufs, pairs);
    if (!s->recipe->run.args) {
        snprintf(why, n, "%s: [run] has no 'args': the service's command line (see docs/RECIPES.md)", s->recipe->path);
        return -1;
    }
    char *args = mtb_template(s->recipe->run.args, pairs);
    struct mtb_argv argv = { 0 }, envx = { 0 };
    s->platform->wrap(&argv, &envx, s->build->binary, s->env); /* envx: what goes to the real environment */
    mtb_argv_split(&argv, args);
    json_object_set_new(rec, "service_command", json_string(args));
    free(args);
    char *svclog = mtb_asprintf("%s/service.log", s->dir);
    struct mtb_spawn sp = { .argv = argv.v, .env_add = envx.v, .log_path = svclog, .cpus = s->cpus,
                            .ncpus = s->ncpus, .user = s->user, .cwd = s->dir, .numa_bind = s->numa_node >= 0,
                            .numa_node = s->numa_node };
    if (s->port_fd >= 0) /* the service binds it now */
        close(s->port_fd);
    s->port_fd = -1;
    int src = mtb_proc_spawn(&s->proc, &sp);
    if (src != 0)
        snprintf(why, n, "cannot start %s: %s", s->build->binary, strerror(-src));
    s->started = src == 0;
    mtb_argv_free(&argv);
    mtb_argv_free(&envx);
    free(svclog);
    return src == 0 ? 0 : -1;
}

/* Readiness, polled with a bound: a command that must succeed
 * ([run] ready_cmd) or a send/expect exchange on the port. */
static int wait_ready(const struct mtb_service *s, struct mtb_proc *svc, int port, double limit, const char *const *pairs)
{
    const struct mtb_recipe *r = s->recipe;
    /* a workload may ask for a bare TCP connect (e.g. HTTPS, where the
     * recipe's plain-text exchange cannot work) */
    const char *how = mtb_workload_param(s->wl, "ready");
    int tcp = how && !strcmp(how, "tcp");
    const char *cmd = tcp ? NULL : r->run.ready_cmd;
    const char *send_s = tcp ? NULL : r->run.ready_send;
    char *rsend = mtb_unescape(send_s ? send_s : "");
    const char *rexpect = tcp ? NULL : r->run.ready_expect;
    char *cmdline = cmd ? mtb_template(cmd, pairs) : NULL;
    double t0 = mtb_mono();
    int ready = 0;
    while (!ready && mtb_mono() - t0 < limit) {
        if (mtb_proc_poll(svc))
            break;
        if (cmdline) {
            struct mtb_argv a = { 0 };
            mtb_argv_split(&a, cmdline);
            struct mtb_spawn sp = { .argv = a.v, .log_path = "/dev/null" };
            ready = mtb_proc_run(&sp, 10) == 0;
            mtb_argv_free(&a);
        } else {
            ready = ready_once(port, rsend, rexpect);
        }
        if (!ready)
            usleep(50 * 1000);
    }
    free(cmdline);
    free(rsend);
    return ready;
}

/* why: the program (pid other) that took the service's port between its
 * release and the service's bind */
static void taken_by(const struct mtb_service *s, pid_t other, char *why, size_t n)
{
    char comm[64] = "?", cp[64];
    snprintf(cp, sizeof cp, "/proc/%d/comm", (int)other);
    char *cm = mtb_read_file(cp, NULL);
    if (cm)
        snprintf(comm, sizeof comm, "%.*s", (int)strcspn(cm, "\n"), cm);
    free(cm);
    snprintf(why, n, "port %d was taken by another program (pid %d, %s) before %s could bind it: not measured",
             s->port, (int)other, comm, s->recipe->name);
}

int mtb_service_ready(struct mtb_service *s, json_t *rec, char *why, size_t n)
{
    char bufs[2][16];
    const char *pairs[16];
    template_pairs(s, bufs, pairs);
    double t0 = mtb_mono(), limit = mtb_platform_emulated(s->platform) ? 90 : 30;
    int ready = wait_ready(s, &s->proc, s->port, limit, pairs);
    json_object_set_new(rec, "ready_seconds", json_real(mtb_mono() - t0));
    /* what answered must be our service, never another program that took
     * the port between its release and the service's bind; a service that
     * died or never answered because another program holds its port is
     * refused for that too (its failed bind and the readiness check's
     * answer from the other program race) */
    pid_t other = 0;
    int owned = mtb_proc_port_owned(s->port, s->proc.pid, &other);
    if (!owned && other) {
        taken_by(s, other, why, n);
        return -1;
    }
    if (!ready) {
        char dsc[64];
        snprintf(why, n, "%s did not become ready within %.0f s (%s)", s->recipe->name, limit,
                 s->proc.exited ? mtb_proc_describe(s->proc.status, dsc, sizeof dsc) : "still running, not answering");
        return -1;
    }
    if (!owned) {
        snprintf(why, n, "the listener on port %d is not %s's (%s): not measured", s->port, s->recipe->name,
                 s->proc.exited ? "it exited" : "not found in its process group");
        return -1;
    }
    mtb_proc_affinity(s->proc.pid, s->seen, sizeof s->seen); /* every thread it started by now */
    return 0;
}

void mtb_service_seen_update(struct mtb_service *s)
{
    char now[256] = "";
    if (!s->started || mtb_proc_affinity(s->proc.pid, now, sizeof now) != 0 || !strcmp(now, s->seen))
        return;
    char *both = mtb_asprintf("%s,%s", s->seen, now);
    int c[MTB_MAX_CPUS], k = mtb_cpulist_parse(both, c, MTB_MAX_CPUS);
    /* sort and unique */
    char seen[MTB_MAX_CPUS] = { 0 };
    for (int i = 0; i < k; i++)
        seen[c[i]] = 1;
    k = 0;
    for (int i = 0; i < MTB_MAX_CPUS; i++)
        if (seen[i])
            c[k++] = i;
    mtb_cpulist_format(c, k, s->seen, sizeof s->seen);
    free(both);
}

/* The service's own counters ([run] counters: a command printing "name value"
 * lines), for cross-checking the driver; NULL when the recipe has none. */
json_t *mtb_service_counters(struct mtb_service *s)
{
    const char *tmpl = s->started ? s->recipe->run.counters : NULL;
    if (!tmpl)
        return NULL;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", s->port);
    const char *pairs[] = { "port", portbuf, "rundir", s->dir, NULL, NULL };
    char *cmd = mtb_template(tmpl, pairs);
    char *full = mtb_asprintf("cd '%s' && %s", s->recipe->dir, cmd);
    char *const argv[] = { "bash", "-c", full, NULL };
    int st;
    char *out = mtb_proc_capture(argv, 0, MTB_SERVICE_COUNTERS_LIMIT, &st);
    if (!out && st == -ETIMEDOUT) {
        s->counters_hung = 1;
        free(full);
        free(cmd);
        return NULL;
    }
    json_t *o = json_object();
    char *save = NULL;
    for (char *line = out && st == 0 ? strtok_r(out, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char key[128];
        long long v;
        if (sscanf(line, "%127s %lld", key, &v) == 2)
            json_object_set_new(o, key, json_integer(v));
    }
    free(out);
    free(full);
    free(cmd);
    return o;
}

json_t *mtb_service_counters_since(struct mtb_service *s, json_t *before)
{
    const char *settle = s->recipe->run.counters_settle;
    if (settle)
        usleep((useconds_t)(atof(settle) * 1e6));
    json_t *after = mtb_service_counters(s);
    json_t *delta = mtb_counters_delta(before, after);
    return json_pack("{s:o,s:o,s:o,s:s}", "before", before, "after", after ? after : json_object(), "delta", delta,
                     "note", "includes the counter queries themselves and any warm-up");
}

void mtb_service_stop(struct mtb_service *s, json_t *rec)
{
    if (s->port_fd >= 0) /* reserved, never started */
        close(s->port_fd);
    s->port_fd = -1;
    if (!s->started)
        return;
    const char *sig = s->recipe->run.stop_signal, *wake = s->recipe->run.stop_wake;
    int signo = sig && !strcmp(sig, "INT") ? SIGINT : sig && !strcmp(sig, "QUIT") ? SIGQUIT : SIGTERM;
    if (wake && !strcmp(wake, "connect") && s->proc.pid > 0 && !mtb_proc_poll(&s->proc)) {
        /* an event loop that looks at its stop flag between events (memcached's
         * main thread: its next event is otherwise its one-second clock tick)
         * is given one: a connection, once the signal is sent */
        kill(-s->proc.pid, SIGCONT);
        kill(-s->proc.pid, signo);
        ready_once(s->port, NULL, NULL);
    }
    mtb_proc_stop(&s->proc, signo, 10);
    char dsc[64];
    json_object_set_new(rec, "service_exit", json_string(mtb_proc_describe(s->proc.status, dsc, sizeof dsc)));
}
