/* run.c - see run.h */
#include "run.h"
#include "remote.h"
#include "driver.h"
#include "proc.h"
#include "proof.h"
#include "util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

double mtb_record_num(json_t *rec, const char *key)
{
    json_t *v = json_object_get(json_object_get(rec, "summary"), key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
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

static json_t *parse_fault(const char *path)
{
    char *text = mtb_read_file(path, NULL);
    if (!text)
        return NULL;
    char *line = strstr(text, "MTEBENCH-FAULT");
    json_t *f = NULL;
    int signo = 0, code = 0, pid = 0;
    char addr[40] = "";
    if (line && sscanf(line, "MTEBENCH-FAULT signo=%d code=%d addr=%39s pid=%d", &signo, &code, addr, &pid) == 4) {
        const char *kind = signo == 11 && code == 9   ? "tag-check fault, synchronous (SEGV_MTESERR)"
                           : signo == 11 && code == 8 ? "tag-check fault, asynchronous (SEGV_MTEAERR)"
                           : signo == 11             ? "segmentation fault (not a tag-check fault)"
                                                     : "bus error";
        f = json_pack("{s:i,s:i,s:s,s:i,s:s,s:b}", "signal", signo, "si_code", code, "addr", addr,
                      "pid", pid, "kind", kind, "tag_check", signo == 11 && (code == 8 || code == 9));
    }
    free(text);
    return f;
}


static json_t *kernel_info(const char *name)
{
    struct utsname u;
    uname(&u);
    return json_pack("{s:s,s:s,s:s,s:s}", "name", name, "uname_r", u.release, "uname_v", u.version,
                     "machine", u.machine);
}

static json_t *platform_info(const struct mtb_platform *p)
{
    char *cpuinfo = mtb_read_file("/proc/cpuinfo", NULL);
    char model[256] = "unknown";
    if (cpuinfo) {
        char *m = strstr(cpuinfo, "model name");
        if (!m)
            m = strstr(cpuinfo, "CPU part");
        if (m && (m = strchr(m, ':'))) {
            m += 2;
            size_t l = strcspn(m, "\n");
            snprintf(model, sizeof model, "%.*s", (int)l, m);
        }
    }
    free(cpuinfo);
    struct utsname u;
    uname(&u);
    json_t *o = json_pack("{s:s,s:b,s:s,s:s,s:i}", "name", p->name, "emulated", mtb_platform_emulated(p),
                          "host_arch", u.machine, "cpu_model", model, "cpus", mtb_ncpus());
    if (mtb_platform_emulated(p)) {
        const char *q = mtb_qemu_user_version();
        json_object_set_new(o, "qemu", json_string(q ? q : "unknown"));
        json_object_set_new(o, "label", json_string("emulated: not hardware timing"));
    }
    return o;
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    return json_load_file(path, 0, &je);
}

json_t *mtb_run_summary(json_t *load)
{
    json_t *tot = json_object_get(load, "totals");
    json_t *lat = json_object_get(json_object_get(load, "latency_us"), "corrected");
    json_t *cpu = json_object_get(load, "cpu");
    json_t *s = json_object();
    json_object_set(s, "ops_per_sec", json_object_get(tot, "ops_per_sec"));
    json_object_set(s, "requests", json_object_get(tot, "requests"));
    json_object_set(s, "p50_us", json_object_get(lat, "p50"));
    json_object_set(s, "p99_us", json_object_get(lat, "p99"));
    json_object_set(s, "p999_us", json_object_get(lat, "p99.9"));
    json_object_set(s, "client_bound", json_object_get(cpu, "client_bound"));
    json_t *errs = json_object_get(tot, "errors");
    long long e = 0;
    const char *k;
    json_t *v;
    json_object_foreach(errs, k, v) if (json_is_integer(v) && strcmp(k, "reconnects")) e += json_integer_value(v);
    json_object_set_new(s, "errors", json_integer(e));
    return s;
}

static void print_log_tail(const char *path, int lines)
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

/* Readiness, polled with a bound: a command that must succeed
 * ([run] ready_cmd) or a send/expect exchange on the port. */
static int wait_ready(const struct mtb_run *run, struct mtb_proc *svc, int port, double limit, const char *const *pairs)
{
    const struct mtb_recipe *r = run->recipe;
    /* a workload may ask for a bare TCP connect (e.g. HTTPS, where the
     * recipe's plain-text exchange cannot work) */
    const char *how = mtb_workload_param(run->wl, "ready");
    int tcp = how && !strcmp(how, "tcp");
    const char *cmd = tcp ? NULL : mtb_recipe_get(r, "run", "ready_cmd");
    const char *send_s = tcp ? NULL : mtb_recipe_get(r, "run", "ready_send");
    char *rsend = mtb_unescape(send_s ? send_s : "");
    const char *rexpect = tcp ? NULL : mtb_recipe_get(r, "run", "ready_expect");
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

/* The platform's command prefix as one string ("qemu-aarch64 -cpu max" or ""),
 * for setup scripts that run the service's own tools. */
static char *wrap_prefix(const struct mtb_platform *p)
{
    struct mtb_argv a = { 0 }, e = { 0 };
    p->wrap(&a, &e, "PROG", NULL);
    char *out = mtb_strdup("");
    for (int i = 0; i < a.n - 1; i++) {
        char *n = mtb_asprintf("%s%s%s", out, i ? " " : "", a.v[i]);
        free(out);
        out = n;
    }
    mtb_argv_free(&a);
    mtb_argv_free(&e);
    return out;
}

/* perf stat on the service's process for the measurement window only: it
 * starts with the driver and waits out the warm-up (--delay) before
 * counting; stopped (SIGINT) when the driver returns. */
/* pid and every process of its process group (nginx's workers, PostgreSQL's
 * backends, qemu-aarch64's forks), as perf's "-p 1,2,3" */
static char *group_pids(pid_t pid)
{
    char *out = mtb_asprintf("%d", (int)pid);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int p = atoi(e->d_name);
        if (p <= 0 || p == pid)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", p);
        struct mtb_proc_stat ps;
        if (mtb_proc_stat_read(path, &ps) == 0 && ps.pgrp == pid) {
            char *m = mtb_asprintf("%s,%d", out, p);
            free(out);
            out = m;
        }
    }
    if (d)
        closedir(d);
    return out;
}

static int start_perf(struct mtb_proc *perf, const struct mtb_run *run, pid_t pid, const char *events, double warmup)
{
    char *out = mtb_asprintf("%s/perf.csv", run->dir);
    char *log = mtb_asprintf("%s/perf.log", run->dir);
    char *pidarg = group_pids(pid);
    char *delay = mtb_asprintf("%ld", (long)(warmup * 1000 + 0.5));
    char *const argv[] = { "perf", "stat", "-x,", "-e", (char *)events, "-p", pidarg, "-o", out, "-D", delay, NULL };
    char *const nodelay[] = { "perf", "stat", "-x,", "-e", (char *)events, "-p", pidarg, "-o", out, NULL };
    struct mtb_spawn s = { .argv = warmup > 0 ? argv : nodelay, .log_path = log };
    int ok = mtb_proc_spawn(perf, &s) == 0;
    free(out);
    free(log);
    free(pidarg);
    free(delay);
    return ok;
}

static json_t *stop_perf(struct mtb_proc *perf, const struct mtb_run *run, const char *events, double requests)
{
    mtb_proc_stop(perf, SIGINT, 5);
    char *path = mtb_asprintf("%s/perf.csv", run->dir);
    char *text = mtb_read_file(path, NULL);
    json_t *o = json_object(), *ev = json_object(), *unsup = json_array(), *notc = json_array(), *rate = json_object();
    /* lines: value,unit,event,run-time,percent,... ; "<not supported>" and
     * "<not counted>" are null, and listed as unsupported */
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !strchr(line, ','))
            continue;
        char val[64] = "", unit[32] = "", name[128] = "";
        if (sscanf(line, "%63[^,],%31[^,],%127[^,]", val, unit, name) == 3 ||
            sscanf(line, "%63[^,],,%127[^,]", val, name) == 2) {
            char *end;
            double v = strtod(val, &end);
            int bad = *end || end == val;
            /* raw events are reported under their rHEX name: use the profile's label */
            const char *label = name;
            char lab[64] = "";
            const char *raw = run->machine->perf_raw;
            char needle[140];
            snprintf(needle, sizeof needle, "=%s", name);
            const char *hit = name[0] == 'r' ? strstr(raw, needle) : NULL;
            if (hit) {
                const char *b = hit;
                while (b > raw && b[-1] != ',' && b[-1] != ' ')
                    b--;
                snprintf(lab, sizeof lab, "%.*s", (int)(hit - b), b);
                label = lab;
            }
            json_object_set_new(ev, label, bad ? json_null() : json_real(v));
            if (bad)
                json_array_append_new(strstr(val, "not counted") ? notc : unsup, json_string(label));
            else if (requests > 0)
                json_object_set_new(rate, label, json_real(v / requests));
        }
    }
    int counted = json_object_size(ev) > json_array_size(unsup) + json_array_size(notc);
    json_object_set_new(o, "status", json_string(!text ? "unavailable" : counted ? "ok"
                                                 : json_array_size(notc) ? "not counted" : "unsupported"));
    json_object_set_new(o, "not_counted", notc);
    if (!text)
        json_object_set_new(o, "reason", json_string("perf stat wrote nothing; see perf.log"));
    json_object_set_new(o, "events", ev);
    json_object_set_new(o, "unsupported", unsup);
    json_object_set_new(o, "per_request", rate);
    json_object_set_new(o, "requested", json_string(events));
    json_object_set_new(o, "window", json_string(run->wl->warmup > 0 ? "measurement only (the warm-up is not counted)"
                                                                     : "measurement only (no warm-up)"));
    json_object_set_new(o, "file", json_string("perf.csv"));
    if (mtb_platform_emulated(run->platform))
        json_object_set_new(o, "note", json_string("under emu perf counts qemu-aarch64 running the service"));
    free(text);
    free(path);
    return o;
}

/* An embedded service (db_bench): perf attaches when its measured
 * invocation starts (its warm-up is a separate invocation). */
struct embedded_perf {
    const struct mtb_run *run;
    const char *events;
    struct mtb_proc proc;
    int on;
};

static void embedded_started(pid_t pid, void *arg)
{
    struct embedded_perf *ep = arg;
    ep->on = start_perf(&ep->proc, ep->run, pid, ep->events, 0);
}

/* The service's own counters ([run] counters: a command printing "name value"
 * lines), for cross-checking the driver; NULL when the recipe has none. */
static json_t *read_counters(const struct mtb_run *run, int port)
{
    const char *tmpl = mtb_recipe_get(run->recipe, "run", "counters");
    if (!tmpl)
        return NULL;
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    const char *pairs[] = { "port", portbuf, "rundir", run->dir, NULL, NULL };
    char *cmd = mtb_template(tmpl, pairs);
    char *full = mtb_asprintf("cd '%s' && %s", run->recipe->dir, cmd);
    char *const argv[] = { "bash", "-c", full, NULL };
    int st;
    char *out = mtb_capture(argv, 0, &st);
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

enum mtb_run_status mtb_run_one(const struct mtb_run *run, json_t **record)
{
    if (mtb_machine_remote(run->machine)) /* on the server host, through the agent step over ssh */
        return mtb_remote_run(run, record);
    if (run->platform->run) /* the platform runs it (vm: inside a guest) */
        return (enum mtb_run_status)run->platform->run(run, record);
    const struct mtb_recipe *r = run->recipe;
    const struct mtb_workload *w = run->wl;
    char started[32], finished[32], why[1024] = "";
    mtb_utc_iso(started, sizeof started);
    mtb_mkdir_p(run->dir);
    char *svclog = mtb_asprintf("%s/service.log", run->dir);
    char *faultp = mtb_asprintf("%s/fault.txt", run->dir);
    char *recp = mtb_asprintf("%s/record.json", run->dir);
    const char *target = run->platform->target();

    json_t *rec = json_object();
    json_object_set_new(rec, "schema", json_string(MTB_RECORD_SCHEMA));
    json_object_set_new(rec, "mtebench_version", json_string(MTEBENCH_VERSION));
    json_object_set_new(rec, "started", json_string(started));
    json_object_set_new(rec, "config",
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:o}",
                  "service", r->name, "variant", run->variant, "mode", run->mode->name,
                  "platform", run->platform->name, "kernel", run->kernel, "plan", run->plan ? run->plan : "",
                  "rep", run->rep, "index", run->index, "total", run->total, "workload", mtb_workload_json(w)));
    json_object_set(rec, "build", run->build->info);
    json_object_set_new(rec, "platform", platform_info(run->platform));
    json_object_set_new(rec, "kernel", kernel_info(run->kernel));
    json_object_set_new(rec, "machine", mtb_machine_json(run->machine));

    enum mtb_run_status status = MTB_RUN_ERROR;
    struct mtb_proc svc = { 0 };
    struct mtb_argv argv = { 0 }, envx = { 0 };
    json_t *proof = NULL, *load = NULL;
    int started_svc = 0;
    const char *drvname = mtb_workload_param(w, "driver");
    if (!drvname)
        drvname = mtb_recipe_get(r, "run", "driver");
    const struct mtb_driver *drv = mtb_driver_find(drvname ? drvname : "mtload");
    const char *user = geteuid() == 0 ? mtb_recipe_get(r, "run", "user") : NULL;
    const struct mtb_machine *mach = run->machine;
    /* the service's CPUs: a core sweep point's, else the profile's */
    int svc_cpus[MTB_MAX_CPUS];
    int nsvc = w->svc_cpus[0] ? mtb_cpulist_parse(w->svc_cpus, svc_cpus, MTB_MAX_CPUS) : -1;
    if (nsvc <= 0)
        nsvc = mtb_machine_svc_slice(mach, 0, svc_cpus);
    char svc_seen[256] = "", cli_seen[256] = "";
    if (run->environment)
        json_object_set(rec, "environment", run->environment);

    /* environment shared by the probe and the measured program */
    char *envv[5];
    envv[0] = mtb_asprintf("GLIBC_TUNABLES=glibc.mem.tagging=%d", run->mode->tunable);
    /* MTEBENCH_EXTRA_PRELOAD: a test hook (tests/shim/mtbplant.c) preloaded
     * after the fault reporter; the record names it, so such a run is never
     * mistaken for a measurement */
    const char *extra = getenv("MTEBENCH_EXTRA_PRELOAD");
    if (extra && *extra)
        json_object_set_new(rec, "extra_preload", json_string(extra));
    envv[1] = mtb_asprintf("LD_PRELOAD=%s/build/%s/libmtefault.so%s%s", mtb_root(), target,
                           extra && *extra ? ":" : "", extra && *extra ? extra : "");
    envv[2] = mtb_asprintf("MTEBENCH_FAULT_FILE=%s", faultp);
    envv[3] = NULL;
    /* an embedded service (db_bench) has no server process to inspect: it
     * samples its own smaps (libmtefault.so) where the kernel shows tags */
    int smaps_ok = run->platform->smaps_proof && mtb_host_is_arm64();
    char *smapsp = mtb_asprintf("%s/smaps-mt.txt", run->dir);
    if (drv && drv->embedded && smaps_ok)
        envv[3] = mtb_asprintf("MTEBENCH_SMAPS_FILE=%s", smapsp);
    envv[4] = NULL;
    run->platform->wrap(&argv, &envx, "PROG", envv); /* envx: what goes to the real environment */
    mtb_argv_free(&argv);

    if (!drv) {
        snprintf(why, sizeof why, "%s: unknown driver '%s'", r->path, drvname);
        goto out;
    }
    json_object_set_new(rec, "driver", json_string(drv->name));
    if (user) {
        struct passwd *pw = getpwnam(user);
        if (!pw || chown(run->dir, pw->pw_uid, pw->pw_gid) != 0) {
            snprintf(why, sizeof why, "%s runs as user '%s', which %s (make deps creates it)", r->name, user,
                     pw ? "cannot own the run directory" : "does not exist");
            goto out;
        }
        /* the user must be able to reach the run directory and the build */
        const char *need[] = { run->dir, run->build->dir, NULL };
        for (const char **p = need; *p; p++) {
            char *path = mtb_strdup(*p), *slash;
            while ((slash = strrchr(path, '/')) && slash != path) {
                *slash = 0;
                struct stat st;
                if (stat(path, &st) == 0 && !(st.st_mode & S_IXOTH)) {
                    snprintf(why, sizeof why, "%s runs as user '%s', who cannot reach %s (%s is not searchable "
                             "by others: chmod o+x it, or use --results elsewhere)", r->name, user, *p, path);
                    free(path);
                    goto out;
                }
            }
            free(path);
        }
    }
    if (mtb_mode_prefer(run->mode, why, sizeof why) != 0)
        goto out;
    int proved = mtb_proof_run(run->platform, run->mode, envv, &proof, why, sizeof why);
    json_object_set_new(rec, "proof", proof);
    if (!proved) {
        char *m = mtb_asprintf("mode %s not proved on %s: %s", run->mode->name, run->platform->name, why);
        snprintf(why, sizeof why, "%s", m);
        free(m);
        goto out;
    }
    /* the probe's deliberate faults are its own; start the fault file afresh */
    unlink(faultp);
    unlink(smapsp);

    struct mtb_drive d = { .recipe = run->recipe, .wl = run->wl, .build = run->build, .platform = run->platform, .rundir = run->dir, .svc_cpus = svc_cpus, .nsvc = nsvc,
                           .svc_env = envv, .user = user, .timeout = w->warmup + w->duration + 300,
                           .numa_node = mach->numa_node, .ncli = mach->ncli, .client_seen = cli_seen,
                           .service_seen = svc_seen };
    mtb_cpulist_format(mach->cli_cpus, mach->ncli, d.client_cpus, sizeof d.client_cpus);
    if (!drv->embedded) {
        int port = free_port();
        if (port <= 0) {
            snprintf(why, sizeof why, "no free TCP port on 127.0.0.1");
            goto out;
        }
        d.port = port;
        char portbuf[16], thrbuf[16];
        snprintf(portbuf, sizeof portbuf, "%d", port);
        snprintf(thrbuf, sizeof thrbuf, "%ld", w->service_threads);
        struct passwd *pw = getpwuid(geteuid());
        const char *pairs[] = { "port", portbuf, "threads", thrbuf, "user", user ? user : pw ? pw->pw_name : "root",
                                "rundir", run->dir, "build", run->build->dir, "recipe", r->dir,
                                "listen", run->external_load ? "0.0.0.0" : "127.0.0.1", NULL, NULL };
        if (run->external_load && !strstr(mtb_recipe_need(r, "run", "args"), "{listen}")) {
            snprintf(why, sizeof why, "%s cannot take load from client hosts: its recipe's [run] args have no "
                     "{listen} (it listens on 127.0.0.1 only)", r->name);
            goto out;
        }
        const char *setup = mtb_recipe_get(r, "run", "setup");
        if (setup) {
            /* prepare the run directory (configuration, data, files) */
            char *script = mtb_asprintf("%s/%s", r->dir, setup);
            char *prefix = wrap_prefix(run->platform);
            struct mtb_argv senv = { 0 };
            mtb_argv_pushf(&senv, "MTB_RUNDIR=%s", run->dir);
            mtb_argv_pushf(&senv, "MTB_PORT=%d", port);
            mtb_argv_pushf(&senv, "MTB_BUILD=%s", run->build->dir);
            mtb_argv_pushf(&senv, "MTB_WRAP=%s", prefix);
            mtb_argv_pushf(&senv, "MTB_THREADS=%ld", w->service_threads);
            mtb_argv_pushf(&senv, "MTB_WORKLOAD=%s", w->name);
            mtb_argv_push(&senv, envv[0]);
            /* the workload's parameters, as MTB_P_<key> */
            json_t *params = json_object_get(json_object_get(json_object_get(rec, "config"), "workload"), "params");
            const char *pk;
            json_t *pv;
            json_object_foreach(params, pk, pv) mtb_argv_pushf(&senv, "MTB_P_%s=%s", pk, json_string_value(pv));
            struct mtb_argv sa = { 0 };
            mtb_argv_push(&sa, "bash");
            mtb_argv_push(&sa, script);
            char *slog = mtb_asprintf("%s/setup.log", run->dir);
            /* [run] setup_reuse = DIR: what the setup makes in DIR depends
             * only on the build, the script, the workload's parameters and
             * the mode it ran in (PostgreSQL's initdb, ~13 s under emu), so
             * a copy made by an earlier run is reused */
            const char *reuse = mtb_recipe_get(r, "run", "setup_reuse");
            char *keep = NULL;
            int st = -1, reused = 0;
            if (reuse) {
                struct mtb_hash *h = mtb_hash_new();
                char hex[65];
                mtb_hash_str(h, "build", run->build->dir);
                mtb_hash_file(h, "script", script);
                mtb_hash_str(h, "user", user ? user : "");
                mtb_hash_str(h, "mode", envv[0]);
                json_object_foreach(params, pk, pv) mtb_hash_str(h, pk, json_string_value(pv));
                mtb_hash_final(h, hex);
                keep = mtb_asprintf("%s/setup/%s-%.16s", mtb_cache(), r->name, hex);
                char *src = mtb_asprintf("%s/%s", keep, reuse), *dst = mtb_asprintf("%s/%s", run->dir, reuse);
                if (mtb_file_exists(src)) {
                    char *const cp[] = { "cp", "-a", src, dst, NULL };
                    struct mtb_spawn cs = { .argv = cp, .log_path = slog };
                    st = mtb_proc_run(&cs, 120);
                    reused = st == 0;
                    if (!reused)
                        mtb_rm_rf(dst);
                }
                json_object_set_new(rec, "setup", json_pack("{s:s,s:b,s:s}", "reuse", reuse, "reused", reused,
                                                            "from", keep));
                free(src);
                free(dst);
            }
            if (!reused)
                st = mtb_driver_exec(&d, &sa, senv.v, slog, NULL, 0, user);
            if (reuse && !reused && st == 0) {
                /* keep a copy for later runs: copied, then renamed into place */
                char *tmp = mtb_asprintf("%s.tmp.%d", keep, (int)getpid()), *src = mtb_asprintf("%s/%s", run->dir, reuse);
                mtb_rm_rf(tmp);
                char *const mk[] = { "mkdir", "-p", tmp, NULL }, *const cp[] = { "cp", "-a", src, tmp, NULL };
                struct mtb_spawn ms = { .argv = mk }, cs = { .argv = cp };
                if (mtb_proc_run(&ms, 30) != 0 || mtb_proc_run(&cs, 120) != 0 || rename(tmp, keep) != 0)
                    mtb_rm_rf(tmp); /* another run kept one first, or no room: not an error */
                free(tmp);
                free(src);
            }
            free(keep);
            mtb_argv_free(&sa);
            mtb_argv_free(&senv);
            free(prefix);
            free(script);
            if (st != 0) {
                char desc[64];
                snprintf(why, sizeof why, "setup of %s failed (%s); see %s", r->name,
                         st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), slog);
                print_log_tail(slog, 20);
                free(slog);
                goto out;
            }
            free(slog);
        }
        char *args = mtb_template(mtb_recipe_need(r, "run", "args"), pairs);
        run->platform->wrap(&argv, &envx, run->build->binary, envv);
        mtb_argv_split(&argv, args);
        json_object_set_new(rec, "service_command", json_string(args));
        free(args);
        struct mtb_spawn sp = { .argv = argv.v, .env_add = envx.v, .log_path = svclog, .cpus = svc_cpus,
                                .ncpus = nsvc, .user = user, .cwd = run->dir, .numa_bind = mach->numa_node >= 0,
                                .numa_node = mach->numa_node };
        int src = mtb_proc_spawn(&svc, &sp);
        if (src != 0) {
            snprintf(why, sizeof why, "cannot start %s: %s", run->build->binary, strerror(-src));
            goto out;
        }
        started_svc = 1;
        double t0 = mtb_mono(), limit = mtb_platform_emulated(run->platform) ? 90 : 30;
        int ready = wait_ready(run, &svc, port, limit, pairs);
        json_object_set_new(rec, "ready_seconds", json_real(mtb_mono() - t0));
        if (!ready) {
            char dsc[64];
            snprintf(why, sizeof why, "%s did not become ready within %.0f s (%s)", r->name, limit,
                     svc.exited ? mtb_proc_describe(svc.status, dsc, sizeof dsc) : "still running, not answering");
            goto out;
        }
        mtb_proc_affinity(svc.pid, svc_seen, sizeof svc_seen); /* every thread it started by now */
        if (smaps_ok) {
            int sh = -1;
            json_t *names = json_array();
            json_object_set_new(proof, "smaps_mt", json_integer(mtb_proof_smaps_mt(svc.pid, &sh, names)));
            json_object_set_new(proof, "smaps_mt_shared", json_integer(sh));
            json_object_set_new(proof, "smaps_mt_shared_maps", names);
        }
    }
    if (!smaps_ok) {
        json_object_set_new(proof, "smaps_mt", json_null());
        json_object_set_new(proof, "smaps_note",
                            json_string(mtb_platform_emulated(run->platform)
                                            ? "not visible under qemu-user (tags live in qemu's own memory)"
                                            : "no MTE on this host"));
    }

    /* preload so that reads hit, then warm-up + measurement (with the
     * machine profile's perf events counted on the service, and the
     * service's own counters read before and after) */
    if (drv->preload(&d, why, sizeof why) == 0) {
        struct mtb_proc perf = { 0 };
        char *events = mtb_machine_perf_list(mach);
        char *perfbin = *events ? mtb_which("perf") : NULL;
        int perf_on = started_svc && perfbin && start_perf(&perf, run, svc.pid, events, w->warmup);
        struct embedded_perf ep = { .run = run, .events = events };
        if (drv->embedded && perfbin) {
            d.measured_start = embedded_started;
            d.measured_arg = &ep;
        }
        json_t *before = started_svc ? read_counters(run, d.port) : NULL;
        load = run->external_load ? mtb_remote_serve(&d, run->external_load, why, sizeof why)
                                  : drv->measure(&d, why, sizeof why);
        if (ep.on) {
            perf = ep.proc;
            perf_on = 1;
        }
        if (started_svc) { /* the threads it runs during the load */
            char now[256] = "";
            if (mtb_proc_affinity(svc.pid, now, sizeof now) == 0 && strcmp(now, svc_seen)) {
                char *both = mtb_asprintf("%s,%s", svc_seen, now);
                int c[MTB_MAX_CPUS], k = mtb_cpulist_parse(both, c, MTB_MAX_CPUS);
                /* sort and unique */
                char seen[MTB_MAX_CPUS] = { 0 };
                for (int i = 0; i < k; i++)
                    seen[c[i]] = 1;
                k = 0;
                for (int i = 0; i < MTB_MAX_CPUS; i++)
                    if (seen[i])
                        c[k++] = i;
                mtb_cpulist_format(c, k, svc_seen, sizeof svc_seen);
                free(both);
            }
        }
        if (perf_on) {
            json_t *tot = json_object_get(load, "totals");
            json_object_set_new(rec, "perf", stop_perf(&perf, run, events,
                                                       json_is_number(json_object_get(tot, "requests"))
                                                           ? json_number_value(json_object_get(tot, "requests")) : 0));
        } else if (*events) {
            json_object_set_new(rec, "perf", json_pack("{s:s,s:s,s:s}", "status", "unavailable", "requested", events,
                                                       "reason", !perfbin ? "perf is not installed (Debian: linux-perf)"
                                                                 : drv->embedded ? "perf stat could not be attached to the embedded service"
                                                                                : "perf stat could not be started"));
        }
        free(perfbin);
        free(events);
        if (before) {
            const char *settle = mtb_recipe_get(r, "run", "counters_settle");
            if (settle)
                usleep((useconds_t)(atof(settle) * 1e6));
            json_t *after = read_counters(run, d.port);
            json_t *delta = json_object();
            const char *k;
            json_t *v;
            json_object_foreach(after, k, v) if (json_is_integer(json_object_get(before, k)))
                json_object_set_new(delta, k, json_integer(json_integer_value(v) - json_integer_value(json_object_get(before, k))));
            json_object_set_new(rec, "service_counters",
                                json_pack("{s:o,s:o,s:o,s:s}", "before", before, "after", after ? after : json_object(),
                                          "delta", delta, "note", "includes the counter queries themselves and any warm-up"));
        }
    }
    if (drv->embedded && smaps_ok) {
        int sh = -1;
        json_object_set_new(proof, "smaps_mt", json_integer(mtb_proof_smaps_max(smapsp, &sh)));
        json_object_set_new(proof, "smaps_mt_shared", json_integer(sh));
        json_object_set_new(proof, "smaps_scope", json_string("the embedded program's own /proc/self/smaps, "
                                                              "largest count sampled every 0.2 s"));
    }
    int died = started_svc && mtb_proc_poll(&svc);
    {
        char req_s[256], req_c[256];
        mtb_cpulist_format(svc_cpus, nsvc, req_s, sizeof req_s);
        mtb_cpulist_format(mach->cli_cpus, mach->ncli, req_c, sizeof req_c);
        int shared = 0;
        for (int i = 0; i < nsvc; i++)
            for (int j = 0; j < mach->ncli; j++)
                shared |= svc_cpus[i] == mach->cli_cpus[j];
        json_object_set_new(rec, "affinity",
                            json_pack("{s:b,s:s,s:o,s:s,s:o,s:o,s:s}", "shares_cpus_with_client", shared && !drv->embedded,
                                      "service_requested", req_s, "service",
                                      svc_seen[0] ? json_string(svc_seen) : json_null(), "client_requested", req_c,
                                      "client", cli_seen[0] ? json_string(cli_seen) : json_null(), "numa_node",
                                      mach->numa_node >= 0 ? json_integer(mach->numa_node) : json_null(), "source",
                                      "Cpus_allowed_list of every task in /proc/PID/task/*/status, read while running"));
    }
    if (load) {
        json_object_set_new(rec, "summary", mtb_run_summary(load));
        json_object_set_new(rec, "load", load);
    }
    char *prep = mtb_asprintf("%s/preload.json", run->dir);
    json_t *pre = load_json(prep);
    if (pre)
        json_object_set_new(rec, "preload", json_pack("{s:O}", "totals", json_object_get(pre, "totals")));
    json_decref(pre);
    free(prep);
    if (died) {
        char dsc[64];
        snprintf(why, sizeof why, "%s died during the run (%s)", r->name, mtb_proc_describe(svc.status, dsc, sizeof dsc));
        goto out;
    }
    status = load ? MTB_RUN_OK : MTB_RUN_ERROR;

out:
    if (started_svc) {
        const char *sig = mtb_recipe_get(r, "run", "stop_signal");
        mtb_proc_stop(&svc, sig && !strcmp(sig, "INT") ? SIGINT : sig && !strcmp(sig, "QUIT") ? SIGQUIT : SIGTERM, 10);
        char dsc[64];
        json_object_set_new(rec, "service_exit", json_string(mtb_proc_describe(svc.status, dsc, sizeof dsc)));
    }
    mtb_argv_free(&argv);
    mtb_argv_free(&envx);
    mtb_mode_restore();
    json_t *fault = parse_fault(faultp);
    if (fault) {
        status = MTB_RUN_FAULT;
        json_object_set_new(rec, "fault", fault);
        snprintf(why, sizeof why, "%s: %s at %s (signal %d, si_code %d)", r->name,
                 json_string_value(json_object_get(fault, "kind")),
                 json_string_value(json_object_get(fault, "addr")),
                 (int)json_integer_value(json_object_get(fault, "signal")),
                 (int)json_integer_value(json_object_get(fault, "si_code")));
    }
    mtb_utc_iso(finished, sizeof finished);
    json_object_set_new(rec, "finished", json_string(finished));
    json_object_set_new(rec, "status", json_string(status == MTB_RUN_OK ? "ok" : status == MTB_RUN_FAULT ? "fault" : "error"));
    if (status != MTB_RUN_OK)
        json_object_set_new(rec, "error", json_string(why));
    json_object_set_new(rec, "logs", json_pack("{s:s,s:s}", "service", "service.log", "driver", "mtload.log"));
    if (mtb_record_write(recp, rec) != 0)
        mtb_warn("cannot write %s", recp);
    if (status != MTB_RUN_OK && !run->quiet) {
        mtb_warn("run %d/%d (%s %s/%s): %s", run->index, run->total, r->name, run->variant, run->mode->name, why);
        if (status == MTB_RUN_ERROR && started_svc)
            print_log_tail(svclog, 20);
    }
    for (char **e = envv; *e; e++)
        free(*e);
    free(svclog);
    free(faultp);
    free(smapsp);
    free(recp);
    *record = rec;
    return status;
}
