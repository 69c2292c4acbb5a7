/* run.c - see run.h */
#include "run.h"
#include "proc.h"
#include "proof.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

void mtb_workload_defaults(const struct mtb_recipe *r, struct mtb_workload *w)
{
    memset(w, 0, sizeof *w);
    const char *v;
    snprintf(w->mix, sizeof w->mix, "%s", (v = mtb_recipe_get(r, "workload", "mix")) ? v : "1:10");
    w->keys = (v = mtb_recipe_get(r, "workload", "keys")) ? atol(v) : 10000;
    snprintf(w->value_size, sizeof w->value_size, "%s",
             (v = mtb_recipe_get(r, "workload", "value_size")) ? v : "100");
    w->pipeline = (v = mtb_recipe_get(r, "workload", "pipeline")) ? atol(v) : 1;
    w->conns = (v = mtb_recipe_get(r, "workload", "conns")) ? atol(v) : 16;
    w->threads = 1;
    w->duration = 30;
    w->warmup = 3;
    w->service_threads = (v = mtb_recipe_get(r, "run", "threads")) ? atol(v) : 1;
}

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

static void cpu_split(int *svc_lo, int *svc_hi, int *cli_lo, int *cli_hi)
{
    int n = mtb_ncpus();
    if (n < 2) {
        *svc_lo = *cli_lo = 0;
        *svc_hi = *cli_hi = 0;
        return;
    }
    *svc_lo = 0;
    *svc_hi = n / 2 - 1;
    *cli_lo = n / 2;
    *cli_hi = n - 1;
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

static json_t *summary_of(json_t *load)
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

/* Run mtload with the common options plus extra ones; output in logp. */
static int run_mtload(const struct mtb_run *run, int port, const char *json_path, const char *logp,
                      int preload, double timeout)
{
    const struct mtb_workload *w = run->wl;
    int slo, shi, clo, chi;
    cpu_split(&slo, &shi, &clo, &chi);
    struct mtb_argv a = { 0 };
    mtb_argv_pushf(&a, "%s/build/mtload", mtb_root());
    mtb_argv_pushf(&a, "--server=127.0.0.1:%d", port);
    mtb_argv_pushf(&a, "--protocol=%s", mtb_recipe_need(run->recipe, "run", "protocol"));
    mtb_argv_pushf(&a, "--threads=%ld", w->threads);
    mtb_argv_pushf(&a, "--conns=%ld", w->conns);
    mtb_argv_pushf(&a, "--keys=%ld", w->keys);
    mtb_argv_pushf(&a, "--value-size=%s", w->value_size);
    mtb_argv_pushf(&a, "--cpus=%d-%d", clo, chi);
    mtb_argv_pushf(&a, "--json=%s", json_path);
    if (preload) {
        mtb_argv_push(&a, "--preload");
    } else {
        mtb_argv_pushf(&a, "--ratio=%s", w->mix);
        mtb_argv_pushf(&a, "--pipeline=%ld", w->pipeline);
        mtb_argv_pushf(&a, "--duration=%gs", w->duration);
        mtb_argv_pushf(&a, "--warmup=%gs", w->warmup);
        if (w->rate > 0)
            mtb_argv_pushf(&a, "--rate=%g", w->rate);
    }
    FILE *lf = fopen(logp, "a");
    if (lf) {
        fputs("$", lf);
        for (int i = 0; i < a.n; i++)
            fprintf(lf, " %s", a.v[i]);
        fputs("\n", lf);
        fclose(lf);
    }
    struct mtb_spawn s = { .argv = a.v, .log_path = logp };
    int st = mtb_proc_run(&s, timeout);
    mtb_argv_free(&a);
    return st;
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

enum mtb_run_status mtb_run_one(const struct mtb_run *run, json_t **record)
{
    if (run->platform->run) /* the platform runs it (vm: inside a guest) */
        return (enum mtb_run_status)run->platform->run(run, record);
    const struct mtb_recipe *r = run->recipe;
    const struct mtb_workload *w = run->wl;
    char started[32], finished[32], why[512] = "";
    mtb_utc_iso(started, sizeof started);
    mtb_mkdir_p(run->dir);
    char *svclog = mtb_asprintf("%s/service.log", run->dir);
    char *faultp = mtb_asprintf("%s/fault.txt", run->dir);
    char *loadp = mtb_asprintf("%s/mtload.json", run->dir);
    char *preloadp = mtb_asprintf("%s/preload.json", run->dir);
    char *loadlog = mtb_asprintf("%s/mtload.log", run->dir);
    char *recp = mtb_asprintf("%s/record.json", run->dir);
    const char *target = run->platform->target();

    json_t *rec = json_object();
    json_object_set_new(rec, "schema", json_string(MTB_RECORD_SCHEMA));
    json_object_set_new(rec, "mtebench_version", json_string(MTEBENCH_VERSION));
    json_object_set_new(rec, "started", json_string(started));
    json_object_set_new(rec, "config",
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:{s:s,s:I,s:s,s:I,s:I,s:I,s:f,s:f,s:f,s:I}}",
                  "service", r->name, "variant", run->variant, "mode", run->mode->name,
                  "platform", run->platform->name, "kernel", run->kernel, "plan", run->plan ? run->plan : "",
                  "rep", run->rep, "index", run->index, "total", run->total,
                  "workload", "mix", w->mix, "keys", (json_int_t)w->keys, "value_size", w->value_size,
                  "threads", (json_int_t)w->threads, "conns", (json_int_t)w->conns,
                  "pipeline", (json_int_t)w->pipeline, "duration_s", w->duration,
                  "warmup_s", w->warmup, "rate", w->rate, "service_threads", (json_int_t)w->service_threads));
    json_object_set(rec, "build", run->build->info);
    json_object_set_new(rec, "platform", platform_info(run->platform));
    json_object_set_new(rec, "kernel", kernel_info(run->kernel));

    enum mtb_run_status status = MTB_RUN_ERROR;
    struct mtb_proc svc = { 0 };
    struct mtb_argv argv = { 0 }, envx = { 0 };
    json_t *proof = NULL;
    int started_svc = 0;

    /* environment shared by the probe and the service */
    char *envv[4];
    envv[0] = mtb_asprintf("GLIBC_TUNABLES=glibc.mem.tagging=%d", run->mode->tunable);
    envv[1] = mtb_asprintf("LD_PRELOAD=%s/build/%s/libmtefault.so", mtb_root(), target);
    envv[2] = mtb_asprintf("MTEBENCH_FAULT_FILE=%s", faultp);
    envv[3] = NULL;

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

    /* the probe's deliberate faults are its own; start the service's file afresh */
    unlink(faultp);

    int port = free_port();
    if (port <= 0) {
        snprintf(why, sizeof why, "no free TCP port on 127.0.0.1");
        goto out;
    }
    struct passwd *pw = getpwuid(geteuid());
    char portbuf[16], thrbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    snprintf(thrbuf, sizeof thrbuf, "%ld", w->service_threads);
    const char *pairs[] = { "port", portbuf, "threads", thrbuf, "user", pw ? pw->pw_name : "root",
                            "rundir", run->dir, NULL, NULL };
    char *args = mtb_template(mtb_recipe_need(r, "run", "args"), pairs);
    run->platform->wrap(&argv, &envx, run->build->binary, envv);
    mtb_argv_split(&argv, args);
    json_object_set_new(rec, "service_command", json_string(args));
    free(args);
    int slo, shi, clo, chi;
    cpu_split(&slo, &shi, &clo, &chi);
    int cpus[256], nc = 0;
    for (int c = slo; c <= shi && nc < 256; c++)
        cpus[nc++] = c;
    struct mtb_spawn sp = { .argv = argv.v, .env_add = envx.v, .log_path = svclog, .cpus = cpus, .ncpus = nc };
    int src = mtb_proc_spawn(&svc, &sp);
    mtb_argv_free(&argv);
    if (src != 0) {
        snprintf(why, sizeof why, "cannot start %s: %s", run->build->binary, strerror(-src));
        goto out;
    }
    started_svc = 1;

    /* readiness, polled with a bound (emulation is slow to start) */
    char *rsend = mtb_unescape(mtb_recipe_get(r, "run", "ready_send") ? mtb_recipe_get(r, "run", "ready_send") : "");
    const char *rexpect = mtb_recipe_get(r, "run", "ready_expect");
    double t0 = mtb_mono(), limit = mtb_platform_emulated(run->platform) ? 60 : 20;
    int ready = 0;
    while (!ready && mtb_mono() - t0 < limit) {
        if (mtb_proc_poll(&svc))
            break;
        ready = ready_once(port, rsend, rexpect);
        if (!ready)
            usleep(50 * 1000);
    }
    free(rsend);
    json_object_set_new(rec, "ready_seconds", json_real(mtb_mono() - t0));
    if (!ready) {
        char d[64];
        snprintf(why, sizeof why, "%s did not become ready within %.0f s (%s)", r->name, limit,
                 svc.exited ? mtb_proc_describe(svc.status, d, sizeof d) : "still running, not answering");
        goto out;
    }
    if (run->platform->smaps_proof && mtb_host_is_arm64()) {
        int mt = mtb_proof_smaps_mt(svc.pid);
        json_object_set_new(proof, "smaps_mt", json_integer(mt));
    } else {
        json_object_set_new(proof, "smaps_mt", json_null());
        json_object_set_new(proof, "smaps_note",
                            json_string(mtb_platform_emulated(run->platform)
                                            ? "not visible under qemu-user (tags live in qemu's own memory)"
                                            : "no MTE on this host"));
    }

    /* preload so that GETs hit, then warm-up + measurement in one mtload */
    double tmo = w->warmup + w->duration + 120;
    int st = run_mtload(run, port, preloadp, loadlog, 1, tmo);
    if (st == 0)
        st = run_mtload(run, port, loadp, loadlog, 0, tmo);
    int died = mtb_proc_poll(&svc);
    if (st != 0 && !died) {
        char d[64];
        snprintf(why, sizeof why, "mtload failed (%s); see %s", st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, d, sizeof d), loadlog);
        goto out;
    }
    json_t *load = load_json(loadp);
    if (load) {
        json_object_set_new(rec, "summary", summary_of(load));
        json_object_set_new(rec, "load", load);
    }
    json_t *pre = load_json(preloadp);
    if (pre)
        json_object_set_new(rec, "preload", json_pack("{s:O}", "totals", json_object_get(pre, "totals")));
    json_decref(pre);
    if (died) {
        char d[64];
        snprintf(why, sizeof why, "%s died during the run (%s)", r->name, mtb_proc_describe(svc.status, d, sizeof d));
        goto out;
    }
    status = load ? MTB_RUN_OK : MTB_RUN_ERROR;
    if (!load)
        snprintf(why, sizeof why, "mtload wrote no readable %s", loadp);

out:
    if (started_svc) {
        const char *sig = mtb_recipe_get(r, "run", "stop_signal");
        mtb_proc_stop(&svc, sig && !strcmp(sig, "INT") ? SIGINT : SIGTERM, 10);
        char d[64];
        json_object_set_new(rec, "service_exit", json_string(mtb_proc_describe(svc.status, d, sizeof d)));
    }
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
    json_object_set_new(rec, "logs", json_pack("{s:s,s:s}", "service", "service.log", "mtload", "mtload.log"));
    char *text = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text || mtb_write_atomic(recp, text, strlen(text)) != 0)
        mtb_warn("cannot write %s", recp);
    free(text);
    if (status != MTB_RUN_OK && !run->quiet) {
        mtb_warn("run %d/%d (%s %s/%s): %s", run->index, run->total, r->name, run->variant, run->mode->name, why);
        if (status == MTB_RUN_ERROR)
            print_log_tail(svclog, 20);
    }
    for (char **e = envv; *e; e++)
        free(*e);
    free(svclog);
    free(faultp);
    free(loadp);
    free(preloadp);
    free(loadlog);
    free(recp);
    *record = rec;
    return status;
}
