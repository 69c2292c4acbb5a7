/* vm.c - see vm.h */
#include "vm.h"
#include "platform.h"
#include "proc.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XSYSROOT "/opt/mtebench/sysroot-arm64"
#define GUESTROOT "/opt/mtebench/guest-arm64"   /* bash, busybox (make deps) */
#define GUEST_OUT "/tmp/out"

const char *mtb_qemu_system_version(void) { return mtb_tool_version("qemu-system-aarch64"); }

int mtb_vm_kvm(void)
{
    return mtb_host_has_mte() && access("/dev/kvm", R_OK | W_OK) == 0;
}

/* --- the guest image ------------------------------------------------------ */
int mtb_guest_image(const struct mtb_build *const *builds, const char *const *variants, int n,
                    const char *service, char **path, char hash[65], char *err, size_t errlen)
{
    /* one image per set of builds per process: the script is cheap but not free */
    static char memo_key[4096], memo_path[4096], memo_hash[65];
    char *lines = mtb_calloc(1, 1);
    for (int i = 0; i < n; i++) {
        char *l = mtb_asprintf("%s%s %s %s\n", lines, service, variants[i], builds[i]->dir);
        free(lines);
        lines = l;
    }
    if (memo_path[0] && !strcmp(memo_key, lines) && mtb_file_exists(memo_path)) {
        *path = mtb_strdup(memo_path);
        memcpy(hash, memo_hash, 65);
        free(lines);
        return 0;
    }
    char *outdir = mtb_asprintf("%s/guest", mtb_cache());
    mtb_mkdir_p(outdir);
    char *logp = mtb_asprintf("%s/image.log", outdir);
    unlink(logp);
    char *script = mtb_asprintf("%s/harness/guest-image.sh", mtb_root());
    char *envv[] = { mtb_asprintf("MTB_ROOT=%s", mtb_root()), mtb_asprintf("MTB_OUTDIR=%s", outdir),
                     mtb_asprintf("MTB_BUILDS=%s", lines), mtb_asprintf("MTB_XSYSROOT=%s", XSYSROOT),
                     mtb_asprintf("MTB_GUESTROOT=%s", GUESTROOT), NULL };
    char *const argv[] = { "bash", script, NULL };
    struct mtb_spawn s = { .argv = argv, .env_add = envv, .log_path = logp };
    int st = mtb_proc_run(&s, 300);
    int rc = -1;
    char *log = mtb_read_file(logp, NULL);
    if (st == 0 && log) {
        /* last line: "<path> <sha256>" */
        size_t l = strlen(log);
        while (l > 0 && log[l - 1] == '\n')
            log[--l] = 0;
        char *last = strrchr(log, '\n');
        last = last ? last + 1 : log;
        char p[4096], h[65];
        if (sscanf(last, "%4095s %64s", p, h) == 2 && mtb_file_exists(p)) {
            *path = mtb_strdup(p);
            memcpy(hash, h, 65);
            snprintf(memo_key, sizeof memo_key, "%s", lines);
            snprintf(memo_path, sizeof memo_path, "%s", p);
            memcpy(memo_hash, h, 65);
            rc = 0;
        }
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot make the guest image (harness/guest-image.sh); see %s", logp);
    free(log);
    for (char **e = envv; *e; e++)
        free(*e);
    free(script);
    free(logp);
    free(outdir);
    free(lines);
    return rc;
}

/* --- boot, wait, collect -------------------------------------------------- */

/* Unpack the hand-back stream into dir/guest/. */
static int unpack_channel(const char *chan, const char *dir, struct mtb_vm_result *res, char *err, size_t errlen)
{
    size_t len = 0;
    char *data = mtb_read_file(chan, &len);
    if (!data) {
        snprintf(err, errlen, "the guest handed nothing back (%s missing)", chan);
        return -1;
    }
    size_t pos = 0;
    int rc = -1;
    while (pos < len) {
        char *nl = memchr(data + pos, '\n', len - pos);
        if (!nl)
            break;
        *nl = 0;
        char *line = data + pos;
        pos = (size_t)(nl - data) + 1;
        char rel[4096];
        long long size;
        int code;
        if (sscanf(line, "MTB-FILE %4095s %lld", rel, &size) == 2) {
            if (size < 0 || (size_t)size > len - pos || rel[0] == '/' || strstr(rel, "..")) {
                snprintf(err, errlen, "the guest's hand-back is damaged at '%s'", line);
                goto out;
            }
            char *p = mtb_asprintf("%s/guest/%s", dir, rel);
            char *slash = strrchr(p, '/');
            *slash = 0;
            mtb_mkdir_p(p);
            *slash = '/';
            mtb_write_atomic(p, data + pos, (size_t)size);
            free(p);
            pos += (size_t)size + 1;
        } else if (sscanf(line, "MTB-EXIT %d", &code) == 1) {
            res->guest_exit = code;
        } else if (!strcmp(line, "MTB-END")) {
            res->finished = 1;
            rc = 0;
            break;
        }
    }
    if (rc != 0)
        snprintf(err, errlen, "the guest's hand-back ended early (no MTB-END in %s)", chan);
out:
    free(data);
    return rc;
}

int mtb_vm_exec(const struct mtb_vm *vm, struct mtb_vm_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->guest_exit = -1;
    mtb_mkdir_p(vm->dir);
    char *console = mtb_asprintf("%s/console.log", vm->dir);
    char *qlog = mtb_asprintf("%s/qemu.log", vm->dir);
    char *chan = mtb_asprintf("%s/channel.bin", vm->dir);
    unlink(console);
    unlink(chan);
    int kvm = mtb_vm_kvm();
    struct mtb_argv a = { 0 };
    mtb_argv_push(&a, "qemu-system-aarch64");
    mtb_argv_push(&a, "-machine");
    /* under KVM the guest's GIC must be one the host can virtualise
     * (not exercised here: this machine has no MTE hardware) */
    mtb_argv_push(&a, kvm ? "virt,mte=on,gic-version=host" : "virt,mte=on");
    mtb_argv_push(&a, "-accel");
    mtb_argv_push(&a, kvm ? "kvm" : "tcg");
    mtb_argv_push(&a, "-cpu");
    /* pauth-impdef makes TCG boots several times faster */
    mtb_argv_push(&a, kvm ? "host" : "max,pauth-impdef=on");
    mtb_argv_push(&a, "-smp");
    mtb_argv_pushf(&a, "%d", vm->smp > 0 ? vm->smp : 2);
    mtb_argv_push(&a, "-m");
    mtb_argv_pushf(&a, "%d", vm->mem_mb > 0 ? vm->mem_mb : 2048);
    mtb_argv_push(&a, "-display");
    mtb_argv_push(&a, "none");
    mtb_argv_push(&a, "-monitor");
    mtb_argv_push(&a, "none");
    mtb_argv_push(&a, "-no-reboot");
    /* the run uses the guest's loopback only; no NIC (and no option ROM) */
    mtb_argv_push(&a, "-nic");
    mtb_argv_push(&a, "none");
    mtb_argv_push(&a, "-serial");
    mtb_argv_pushf(&a, "file:%s", console);
    mtb_argv_push(&a, "-device");
    mtb_argv_push(&a, "virtio-serial-device");
    mtb_argv_push(&a, "-chardev");
    mtb_argv_pushf(&a, "file,id=mtb,path=%s", chan);
    mtb_argv_push(&a, "-device");
    mtb_argv_push(&a, "virtconsole,chardev=mtb");
    mtb_argv_push(&a, "-kernel");
    mtb_argv_push(&a, vm->kernel->image);
    mtb_argv_push(&a, "-initrd");
    mtb_argv_push(&a, vm->initrd);
    char *append = mtb_strdup("console=ttyAMA0 loglevel=5 panic=-1 --");
    for (char *const *g = vm->args; g && *g; g++) {
        char *n = mtb_asprintf("%s %s", append, *g);
        free(append);
        append = n;
    }
    mtb_argv_push(&a, "-append");
    mtb_argv_push(&a, append);
    char *cmdline = mtb_strdup("");
    for (int i = 0; i < a.n; i++) {
        int q = strchr(a.v[i], ' ') != NULL;
        char *n = mtb_asprintf("%s%s%s%s%s", cmdline, i ? " " : "", q ? "'" : "", a.v[i], q ? "'" : "");
        free(cmdline);
        cmdline = n;
    }
    res->info = json_pack("{s:s,s:s,s:s,s:i,s:i,s:s,s:s}", "accel", kvm ? "kvm" : "tcg",
                          "qemu", mtb_qemu_system_version() ? mtb_qemu_system_version() : "unknown",
                          "command", cmdline, "smp", vm->smp > 0 ? vm->smp : 2,
                          "mem_mb", vm->mem_mb > 0 ? vm->mem_mb : 2048, "console", "console.log",
                          "initrd", vm->initrd);

    struct mtb_proc q = { 0 };
    struct mtb_spawn sp = { .argv = a.v, .log_path = qlog };
    double t0 = mtb_mono();
    int rc = -1;
    int src = mtb_proc_spawn(&q, &sp);
    if (src != 0) {
        snprintf(err, errlen, "cannot start qemu-system-aarch64: %s", strerror(-src));
        goto out;
    }
    double deadline = t0 + vm->boot_timeout;
    int timed_out = 0;
    while (!mtb_proc_poll(&q)) {
        if (mtb_proc_interrupted)
            break;
        if (!res->booted) {
            char *text = mtb_read_file(console, NULL);
            char *up = text ? strstr(text, "mtebench-guest: up uname_r=") : NULL;
            if (up && strchr(up, '\n')) {
                res->booted = 1;
                res->boot_seconds = mtb_mono() - t0;
                sscanf(up, "mtebench-guest: up uname_r=%127s", res->uname_r);
                deadline = mtb_mono() + vm->run_timeout;
                if (!vm->quiet)
                    fprintf(stderr, "mtebench: vm: %s up in %.1f s\n", res->uname_r, res->boot_seconds);
            }
            free(text);
        }
        if (mtb_mono() > deadline) {
            timed_out = 1;
            break;
        }
        usleep(100 * 1000);
    }
    if (!q.exited)
        mtb_proc_stop(&q, SIGTERM, 3);
    res->total_seconds = mtb_mono() - t0;
    json_object_set_new(res->info, "boot_seconds", res->booted ? json_real(res->boot_seconds) : json_null());
    json_object_set_new(res->info, "total_seconds", json_real(res->total_seconds));
    if (timed_out) {
        snprintf(err, errlen, "%s (%.0f s); see %s", res->booted ? "the guest did not finish in time"
                                                                 : "the guest did not boot in time",
                 res->booted ? vm->run_timeout : vm->boot_timeout, console);
        goto out;
    }
    if (mtb_proc_interrupted) {
        snprintf(err, errlen, "interrupted");
        goto out;
    }
    if (!res->booted) {
        char d[64];
        snprintf(err, errlen, "the guest stopped before its init came up (qemu %s); see %s and %s",
                 mtb_proc_describe(q.status, d, sizeof d), console, qlog);
        goto out;
    }
    rc = unpack_channel(chan, vm->dir, res, err, errlen);
    if (rc == 0)
        unlink(chan); /* unpacked into dir/guest/; kept when damaged */
out:
    json_object_set_new(res->info, "guest_exit", json_integer(res->guest_exit));
    mtb_argv_free(&a);
    free(append);
    free(cmdline);
    free(console);
    free(qlog);
    free(chan);
    return rc;
}

/* --- one run on platform vm ------------------------------------------------ */
static json_t *load_json_file(const char *p)
{
    json_error_t je;
    return json_load_file(p, 0, &je);
}

int mtb_vm_run(const struct mtb_run *run, json_t **record)
{
    const struct mtb_workload *w = run->wl;
    char err[MTB_ERRLEN] = "";
    char started[32], finished[32];
    mtb_utc_iso(started, sizeof started);
    mtb_mkdir_p(run->dir);
    struct mtb_kernel k;
    memset(&k, 0, sizeof k);
    char *image = NULL, ihash[65] = "";
    json_t *rec = NULL;
    struct mtb_vm_result res;
    memset(&res, 0, sizeof res);
    char *what = mtb_asprintf("001-%s-%s", run->variant, run->mode->name);
    int have_kernel = mtb_kernel_ensure(run->kernel, NULL, 0, 1, &k, err, sizeof err) == 0;
    const char *variants[1] = { run->variant };
    const struct mtb_build *builds[1] = { run->build };
    int have_image = have_kernel &&
                     mtb_guest_image(builds, variants, 1, run->recipe->name, &image, ihash, err, sizeof err) == 0;
    int ran = 0;
    if (have_image) {
        struct mtb_argv g = { 0 };
        mtb_argv_push(&g, "run");
        mtb_argv_push(&g, "--platform=host");
        mtb_argv_push(&g, "--kernel=host");
        mtb_argv_pushf(&g, "--service=%s", run->recipe->name);
        mtb_argv_pushf(&g, "--variant=%s", run->variant);
        mtb_argv_pushf(&g, "--mode=%s", run->mode->name);
        /* the workload's own parameters (db_bench_args, script, ...) come
         * from the recipe in the image; the options below override the rest */
        if (w->name[0])
            mtb_argv_pushf(&g, "--workload=%s", w->name);
        mtb_argv_pushf(&g, "--build=/mtb/builds/%s/%s", run->recipe->name, run->variant);
        mtb_argv_push(&g, "--results=" GUEST_OUT);
        mtb_argv_pushf(&g, "--duration=%gs", w->duration);
        mtb_argv_pushf(&g, "--warmup=%gs", w->warmup);
        mtb_argv_pushf(&g, "--mix=%s", w->mix);
        mtb_argv_pushf(&g, "--keys=%ld", w->keys);
        mtb_argv_pushf(&g, "--value-size=%s", w->value_size);
        mtb_argv_pushf(&g, "--threads=%ld", w->threads);
        mtb_argv_pushf(&g, "--conns=%ld", w->conns);
        mtb_argv_pushf(&g, "--pipeline=%ld", w->pipeline);
        mtb_argv_pushf(&g, "--service-threads=%ld", w->service_threads);
        if (w->rate > 0)
            mtb_argv_pushf(&g, "--rate=%g", w->rate);
        mtb_argv_push(&g, "--quiet");
        struct mtb_vm vm = { .kernel = &k, .initrd = image, .args = g.v, .dir = run->dir,
                             .boot_timeout = mtb_vm_kvm() ? 30 : 90,
                             .run_timeout = 240 + 3 * (w->duration + w->warmup),
                             .smp = 2, .mem_mb = 2048, .quiet = run->quiet };
        ran = mtb_vm_exec(&vm, &res, err, sizeof err) == 0;
        mtb_argv_free(&g);
        char *gp = mtb_asprintf("%s/guest/%s/record.json", run->dir, what);
        rec = ran ? load_json_file(gp) : NULL;
        if (ran && !rec)
            snprintf(err, sizeof err, "the guest's agent wrote no record (exit %d); see %s/guest/agent.log",
                     res.guest_exit, run->dir);
        free(gp);
    }
    if (!rec) {
        /* nothing came back: an error record with everything known */
        rec = json_object();
        json_object_set_new(rec, "schema", json_string(MTB_RECORD_SCHEMA));
        json_object_set_new(rec, "started", json_string(started));
        json_object_set_new(rec, "status", json_string("error"));
        json_object_set_new(rec, "error", json_string(err));
        json_object_set_new(rec, "config", json_pack("{s:s,s:s,s:s}", "service", run->recipe->name,
                                                     "variant", run->variant, "mode", run->mode->name));
        json_object_set(rec, "build", run->build->info);
        json_object_set_new(rec, "kernel", json_object());
        json_object_set_new(rec, "platform", json_object());
    }
    json_object_set_new(rec, "mtebench_version", json_string(MTEBENCH_VERSION));
    json_t *c = json_object_get(rec, "config");
    json_object_set_new(c, "platform", json_string("vm"));
    json_object_set_new(c, "kernel", json_string(k.name[0] ? k.name : run->kernel));
    json_object_set_new(c, "plan", json_string(run->plan ? run->plan : ""));
    json_object_set_new(c, "rep", json_integer(run->rep));
    json_object_set_new(c, "index", json_integer(run->index));
    json_object_set_new(c, "total", json_integer(run->total));
    if (!json_object_get(c, "workload"))
        json_object_set_new(c, "workload", json_pack("{s:s,s:I,s:s,s:I,s:I,s:I,s:f,s:f,s:f,s:I}",
            "mix", w->mix, "keys", (json_int_t)w->keys, "value_size", w->value_size,
            "threads", (json_int_t)w->threads, "conns", (json_int_t)w->conns,
            "pipeline", (json_int_t)w->pipeline, "duration_s", w->duration, "warmup_s", w->warmup,
            "rate", w->rate, "service_threads", (json_int_t)w->service_threads));
    /* the host's view of the build (cache key and inputs) */
    json_object_set(rec, "build", run->build->info);

    /* kernel identity: what was asked, and what the guest reported */
    json_t *gk = json_object_get(rec, "kernel");
    json_t *kobj = k.info ? json_deep_copy(k.info) : json_pack("{s:s}", "name", run->kernel);
    json_object_del(kobj, "cached");
    const char *guest_rel = json_string_value(json_object_get(gk, "uname_r"));
    if (!guest_rel && res.uname_r[0])
        guest_rel = res.uname_r;
    json_object_set_new(kobj, "expected_uname_r", k.release ? json_string(k.release) : json_null());
    json_object_set_new(kobj, "uname_r", guest_rel ? json_string(guest_rel) : json_null());
    json_object_set(kobj, "uname_v", json_object_get(gk, "uname_v"));
    json_object_set(kobj, "machine", json_object_get(gk, "machine"));
    if (!json_is_array(json_object_get(kobj, "patches")))
        json_object_set_new(kobj, "patches", json_array());
    int identity_ok = guest_rel && (!k.release || !strcmp(guest_rel, k.release));
    json_object_set_new(kobj, "identity_ok", json_boolean(identity_ok));
    json_object_set_new(rec, "kernel", kobj);

    /* platform: the VM, with the guest's CPU as the guest saw it */
    json_t *gp = json_object_get(rec, "platform");
    int emulated = !mtb_vm_kvm();
    json_t *plat = json_pack("{s:s,s:b,s:s,s:O?,s:i,s:s}", "name", "vm", "emulated", emulated,
                             "accel", emulated ? "tcg" : "kvm", "guest_cpu_model", json_object_get(gp, "cpu_model"),
                             "cpus", 2, "guest_image", ihash);
    json_object_set_new(plat, "qemu", json_string(mtb_qemu_system_version() ? mtb_qemu_system_version() : "unknown"));
    if (emulated)
        json_object_set_new(plat, "label", json_string("emulated: not hardware timing"));
    json_object_set_new(plat, "boot_seconds", res.booted ? json_real(res.boot_seconds) : json_null());
    json_object_set_new(rec, "platform", plat);
    if (res.info)
        json_object_set_new(rec, "vm", res.info);

    const char *status = json_string_value(json_object_get(rec, "status"));
    enum mtb_run_status st = !status ? MTB_RUN_ERROR
                             : !strcmp(status, "ok") ? MTB_RUN_OK
                             : !strcmp(status, "fault") ? MTB_RUN_FAULT
                                                        : MTB_RUN_ERROR;
    if (st == MTB_RUN_OK && !identity_ok) {
        st = MTB_RUN_ERROR;
        char *m = mtb_asprintf("the guest runs kernel '%s', expected '%s' (%s)", guest_rel ? guest_rel : "?",
                               k.release ? k.release : "?", k.name);
        json_object_set_new(rec, "status", json_string("error"));
        json_object_set_new(rec, "error", json_string(m));
        free(m);
    }
    mtb_utc_iso(finished, sizeof finished);
    json_object_set_new(rec, "finished", json_string(finished));
    char *base = mtb_asprintf("guest/%s", what);
    json_object_set_new(rec, "logs", json_pack("{s:o,s:o,s:s,s:s,s:s}", "service",
                                              json_sprintf("%s/service.log", base), "mtload",
                                              json_sprintf("%s/mtload.log", base), "agent", "guest/agent.log",
                                              "console", "console.log", "qemu", "qemu.log"));
    char *recp = mtb_asprintf("%s/record.json", run->dir);
    if (mtb_record_write(recp, rec) != 0)
        mtb_warn("cannot write %s", recp);
    if (st != MTB_RUN_OK && !run->quiet)
        mtb_warn("run %d/%d (%s %s/%s on vm, kernel %s): %s", run->index, run->total, run->recipe->name,
                 run->variant, run->mode->name, run->kernel,
                 json_string_value(json_object_get(rec, "error")) ? json_string_value(json_object_get(rec, "error")) : err);
    free(recp);
    free(base);
    free(what);
    free(image);
    mtb_kernel_free(&k);
    *record = rec;
    return st;
}

int mtb_vm_proof(const char *kernel, const char *mode, int quiet)
{
    char err[MTB_ERRLEN];
    struct mtb_kernel k;
    if (mtb_kernel_ensure(kernel, NULL, 0, quiet, &k, err, sizeof err) != 0) {
        mtb_warn("%s", err);
        return 2;
    }
    char *image = NULL, ihash[65];
    if (mtb_guest_image(NULL, NULL, 0, "", &image, ihash, err, sizeof err) != 0) {
        mtb_warn("%s", err);
        mtb_kernel_free(&k);
        return 2;
    }
    char tmpl[] = "/tmp/mtebench-vmproof.XXXXXX";
    char *dir = mkdtemp(tmpl);
    struct mtb_argv g = { 0 };
    mtb_argv_push(&g, "proof");
    mtb_argv_push(&g, "--platform=host");
    mtb_argv_pushf(&g, "--mode=%s", mode);
    struct mtb_vm vm = { .kernel = &k, .initrd = image, .args = g.v, .dir = dir ? dir : "/tmp",
                         .boot_timeout = 90, .run_timeout = 120, .smp = 2, .mem_mb = 1024, .quiet = quiet };
    struct mtb_vm_result res;
    int rc = 2;
    if (dir && mtb_vm_exec(&vm, &res, err, sizeof err) == 0) {
        char *lp = mtb_asprintf("%s/guest/agent.log", dir);
        char *text = mtb_read_file(lp, NULL);
        /* the agent's stdout is the proof JSON; its stderr a reason line */
        json_error_t je;
        json_t *pr = text ? json_loads(text, JSON_DISABLE_EOF_CHECK, &je) : NULL;
        if (pr) {
            json_object_set_new(pr, "platform", json_string("vm"));
            json_object_set_new(pr, "kernel", json_pack("{s:s,s:s,s:s*,s:b}", "name", k.name, "uname_r", res.uname_r,
                                                         "expected_uname_r", k.release,
                                                         "identity_ok", !k.release || !strcmp(k.release, res.uname_r)));
            json_dumpf(pr, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
            printf("\n");
            rc = res.guest_exit == 0 ? 0 : 1;
            json_decref(pr);
        } else {
            mtb_warn("the guest's proof printed no JSON; see %s", lp);
        }
        free(text);
        free(lp);
        json_decref(res.info);
        if (rc != 2)
            mtb_rm_rf(dir);
    } else {
        mtb_warn("%s", err);
    }
    mtb_argv_free(&g);
    free(image);
    mtb_kernel_free(&k);
    return rc;
}
