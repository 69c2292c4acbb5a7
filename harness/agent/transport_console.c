/* transport_console.c - the agent's transport into a PLATFORM=vm guest:
 * qemu-system-aarch64 (-machine virt,mte=on) boots a named kernel with the
 * project's guest initramfs; the guest's /init (harness/agent/guest/init.c) runs
 * `mtebench ARGS` from the kernel command line and hands {out} back on a
 * virtio console (MTB-FILE/MTB-EXIT/MTB-END), then powers off. One boot per
 * exec; put adds service builds, and setup seeds, to the image (an image
 * made from the same inputs is found again by their hash). See agent.h. */
#include "agent/agent.h"
#include "agent/transport_console.h"
#include "core/work.h"
#include "core/allocator.h"
#include "core/hostfacts.h"
#include "core/kernel.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XSYSROOT "/opt/mtebench/sysroot-arm64"
/* bash, busybox (make deps); MTEBENCH_GUESTROOT replaces it in the tests */
static const char *guest_root(void)
{
    const char *e = getenv("MTEBENCH_GUESTROOT");
    return e && *e ? e : "/opt/mtebench/guest-arm64";
}
#define GUEST_ROOT "/mtb"
#define GUEST_OUT "/tmp/out"

struct mtb_session {
    struct mtb_agent_target t;
    struct mtb_kernel k;
    char *builds;            /* "service variant dir" lines put so far */
    char *seeds;             /* "setup/<name> dir" lines put so far (a run's setup copy) */
};

/* --- the guest image ------------------------------------------------------ */
int mtb_guest_image_ready(char *why, size_t n)
{
    /* what guest-image.sh takes from the host besides the project's builds */
    const char *progs[] = { "bash", "busybox" };
    for (size_t i = 0; i < 2; i++) {
        char *p = mtb_asprintf("%s/bin/%s", guest_root(), progs[i]);
        char *w = mtb_host_is_arm64() && access(p, X_OK) != 0 ? mtb_which(progs[i]) : NULL;
        int ok = access(p, X_OK) == 0 || w;
        free(p);
        free(w);
        if (!ok) {
            snprintf(why, n, "no arm64 %s for the guest image (make deps unpacks it into %s)", progs[i], guest_root());
            return 0;
        }
    }
    if (!mtb_file_exists("/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1") &&
        !mtb_file_exists("/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1")) {
        snprintf(why, n, "no arm64 dynamic loader for the guest image (libc6:arm64; make deps)");
        return 0;
    }
    const char *tools[] = { "aarch64-linux-gnu-readelf", "cpio", "gzip" };
    for (size_t i = 0; i < 3; i++) {
        char *w = mtb_which(tools[i]);
        free(w);
        if (!w) {
            snprintf(why, n, "%s not found: the guest image cannot be made (make deps)", tools[i]);
            return 0;
        }
    }
    return 1;
}

/* The guest initramfs with these service builds ("service variant dir"
 * lines, maybe none) and setup seeds ("setup/<name> dir" lines: at
 * /mtb/seed/setup/<name>), found again by a hash of its inputs (the put's
 * skip: an image already made from the same builds is not made again).
 * @return 0 (path and hash filled) or -1 with err. */
static int guest_image(const char *builds, const char *seeds, char **path, char hash[65], char *err,
                       size_t errlen)
{
    /* one image per set of inputs per process: the script is cheap but not free */
    static char memo_key[8192], memo_path[4096], memo_hash[65];
    char *lines = mtb_asprintf("%s--\n%s", builds, seeds);
    if (memo_path[0] && !strcmp(memo_key, lines) && mtb_file_exists(memo_path)) {
        *path = mtb_strdup(memo_path);
        memcpy(hash, memo_hash, 65);
        free(lines);
        return 0;
    }
    char *outdir = mtb_asprintf("%s/guest", mtb_cache());
    mtb_mkdir_p(outdir);
    /* this process's own log: the script's last line names the image, and a
     * shared name let a concurrent mtebench's image (other builds) be read as
     * this one's */
    char *logp = mtb_asprintf("%s/image.%ld.log", outdir, (long)getpid());
    unlink(logp);
    char *script = mtb_asprintf("%s/harness/agent/guest-image.sh", mtb_root());
    char *envv[] = { mtb_asprintf("MTB_ROOT=%s", mtb_root()), mtb_asprintf("MTB_OUTDIR=%s", outdir),
                     mtb_asprintf("MTB_BUILDS=%s", builds), mtb_asprintf("MTB_SEEDS=%s", seeds),
                     mtb_asprintf("MTB_XSYSROOT=%s", XSYSROOT),
                     mtb_asprintf("MTB_GUESTROOT=%s", guest_root()),
                     /* Scudo (allocator.h), at the same path in the guest when this machine has it */
                     mtb_asprintf("MTB_SCUDO=%s", mtb_file_exists(MTB_SCUDO_LIB) ? MTB_SCUDO_LIB : ""), NULL };
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
        snprintf(err, errlen, "cannot make the guest image (harness/agent/guest-image.sh); see %s", logp);
    else
        unlink(logp);
    free(log);
    for (char **e = envv; *e; e++)
        free(*e);
    free(script);
    free(logp);
    free(outdir);
    free(lines);
    return rc;
}

/* --- the session ----------------------------------------------------------- */
static struct mtb_session *console_open(const struct mtb_agent_target *t, char *err, size_t errlen)
{
    struct mtb_session *s = mtb_calloc(1, sizeof *s);
    s->t = *t;
    s->builds = mtb_strdup("");
    s->seeds = mtb_strdup("");
    if (mtb_kernel_ensure(t->where, NULL, 0, 1, &s->k, err, errlen) != 0) {
        free(s->builds);
        free(s->seeds);
        free(s);
        return NULL;
    }
    return s;
}

static int console_put(struct mtb_session *s, const char *local, const char *remote, const char *sha256,
                       char *err, size_t errlen)
{
    (void)sha256; /* the image is found again by a hash of its inputs */
    char svc[128], variant[128];
    if (!strncmp(remote, "seed/setup/", 11) && remote[11] && !strchr(remote + 11, '/') && !strchr(local, ' ') &&
        !strchr(remote, ' ')) {
        char *l = mtb_asprintf("%s%s %s\n", s->seeds, remote + 5, local);
        free(s->seeds);
        s->seeds = l;
        return 0;
    }
    if (sscanf(remote, "builds/%127[^/]/%127[^/]", svc, variant) != 2 || strchr(local, ' ')) {
        snprintf(err, errlen, "the console transport puts service builds and setup seeds only "
                 "(remote builds/<service>/<variant> or seed/setup/<name>, a local path without spaces): '%s'",
                 remote);
        return -1;
    }
    char *l = mtb_asprintf("%s%s %s %s\n", s->builds, svc, variant, local);
    free(s->builds);
    s->builds = l;
    return 0;
}

static void console_close(struct mtb_session *s)
{
    if (!s)
        return;
    mtb_kernel_free(&s->k);
    free(s->builds);
    free(s->seeds);
    free(s);
}

/* --- boot, wait, collect -------------------------------------------------- */
/* Unpack the hand-back stream into dir. */
static int unpack_channel(const char *chan, const char *dir, struct mtb_agent_result *res, char *err, size_t errlen)
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
            char *p = mtb_asprintf("%s/%s", dir, rel);
            char *slash = strrchr(p, '/');
            *slash = 0;
            mtb_mkdir_p(p);
            *slash = '/';
            mtb_write_atomic(p, data + pos, (size_t)size);
            free(p);
            pos += (size_t)size + 1;
        } else if (sscanf(line, "MTB-EXIT %d", &code) == 1) {
            res->exit_status = code;
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

void mtb_console_qemu_argv(struct mtb_argv *a, const struct mtb_qemu_boot *b)
{
    int kvm = b->kvm;
    mtb_argv_push(a, "qemu-system-aarch64");
    mtb_argv_push(a, "-machine");
    /* under KVM the guest's GIC must be one the host can virtualise
     * (built and checked in tests/unit/test_mode.c; run only on MTE hosts) */
    mtb_argv_push(a, kvm ? "virt,mte=on,gic-version=host" : "virt,mte=on");
    mtb_argv_push(a, "-accel");
    mtb_argv_push(a, kvm ? "kvm" : "tcg");
    mtb_argv_push(a, "-cpu");
    /* pauth-impdef makes TCG boots several times faster */
    mtb_argv_push(a, kvm ? "host" : "max,pauth-impdef=on");
    mtb_argv_push(a, "-smp");
    mtb_argv_pushf(a, "%d", b->cpus > 0 ? b->cpus : 2);
    mtb_argv_push(a, "-m");
    mtb_argv_pushf(a, "%d", b->mem_mb > 0 ? b->mem_mb : 2048);
    mtb_argv_push(a, "-display");
    mtb_argv_push(a, "none");
    mtb_argv_push(a, "-monitor");
    mtb_argv_push(a, "none");
    mtb_argv_push(a, "-no-reboot");
    /* the run uses the guest's loopback only; no NIC (and no option ROM) */
    mtb_argv_push(a, "-nic");
    mtb_argv_push(a, "none");
    mtb_argv_push(a, "-serial");
    mtb_argv_pushf(a, "file:%s", b->console);
    mtb_argv_push(a, "-device");
    mtb_argv_push(a, "virtio-serial-device");
    mtb_argv_push(a, "-chardev");
    mtb_argv_pushf(a, "file,id=mtb,path=%s", b->chan);
    mtb_argv_push(a, "-device");
    mtb_argv_push(a, "virtconsole,chardev=mtb");
    mtb_argv_push(a, "-kernel");
    mtb_argv_push(a, b->image);
    mtb_argv_push(a, "-initrd");
    mtb_argv_push(a, b->initrd);
    mtb_argv_push(a, "-append");
    mtb_argv_push(a, b->append);
}

/* "console=... -- ARGS" with {root} and {out} replaced */
static char *kernel_append(char *const *argv, const char *isolate)
{
    char *append = isolate ? mtb_asprintf("console=ttyAMA0 loglevel=5 panic=-1 isolcpus=domain,%s --", isolate)
                           : mtb_strdup("console=ttyAMA0 loglevel=5 panic=-1 --");
    for (char *const *g = argv; g && *g; g++) {
        char *arg = mtb_strdup(*g);
        for (char *p; (p = strstr(arg, "{root}")) || (p = strstr(arg, "{out}"));) {
            int root = !strncmp(p, "{root}", 6);
            *p = 0;
            char *n = mtb_asprintf("%s%s%s", arg, root ? GUEST_ROOT : GUEST_OUT, p + (root ? 6 : 5));
            free(arg);
            arg = n;
        }
        char *n = mtb_asprintf("%s %s", append, arg);
        free(arg);
        free(append);
        append = n;
    }
    return append;
}

static char *quoted_command(const struct mtb_argv *a)
{
    char *cmdline = mtb_strdup("");
    for (int i = 0; i < a->n; i++) {
        int q = strchr(a->v[i], ' ') != NULL;
        char *n = mtb_asprintf("%s%s%s%s%s", cmdline, i ? " " : "", q ? "'" : "", a->v[i], q ? "'" : "");
        free(cmdline);
        cmdline = n;
    }
    return cmdline;
}

/* Wait for "up" on the console (boot time limit), then for qemu to end
 * (run time limit). @return 0, or -1 with err. */
static int wait_guest(struct mtb_proc *q, const struct mtb_session *s, const char *console, const char *qlog,
                      double deadline_s, struct mtb_agent_result *res, char *err, size_t errlen)
{
    double t0 = mtb_mono();
    double boot_timeout = s->t.connect_timeout > 0 ? s->t.connect_timeout : mtb_host_kvm_mte() ? 30 : 90;
    double deadline = t0 + boot_timeout;
    int timed_out = 0;
    while (!mtb_proc_poll(q)) {
        if (mtb_proc_interrupted)
            break;
        if (!res->connected) {
            char *text = mtb_read_file(console, NULL);
            char *up = text ? strstr(text, "mtebench-guest: up uname_r=") : NULL;
            if (up && strchr(up, '\n')) {
                res->connected = 1;
                res->connect_seconds = mtb_mono() - t0;
                sscanf(up, "mtebench-guest: up uname_r=%127s", res->uname_r);
                deadline = mtb_mono() + deadline_s;
                if (!s->t.quiet)
                    fprintf(stderr, "mtebench: vm: %s up in %.1f s\n", res->uname_r, res->connect_seconds);
            }
            free(text);
        }
        if (mtb_mono() > deadline) {
            timed_out = 1;
            break;
        }
        usleep(100 * 1000);
    }
    if (!q->exited)
        mtb_proc_stop(q, SIGTERM, 3);
    if (timed_out) {
        snprintf(err, errlen, "%s (%.0f s); see %s", res->connected ? "the guest did not finish in time"
                                                                    : "the guest did not boot in time",
                 res->connected ? deadline_s : boot_timeout, console);
        return -1;
    }
    if (mtb_proc_interrupted) {
        snprintf(err, errlen, "interrupted");
        return -1;
    }
    if (!res->connected) {
        char d[64];
        snprintf(err, errlen, "the guest stopped before its init came up (qemu %s); see %s and %s",
                 mtb_proc_describe(q->status, d, sizeof d), console, qlog);
        return -1;
    }
    return 0;
}

static int console_exec(struct mtb_session *s, char *const *argv, double deadline_s, const char *local_dir,
                        struct mtb_agent_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    char *initrd = NULL, ihash[65] = "";
    if (guest_image(s->builds, s->seeds, &initrd, ihash, err, errlen) != 0)
        return -1;
    const char *dir = s->t.workdir;
    mtb_mkdir_p(dir);
    char *console = mtb_asprintf("%s/console.log", dir);
    char *qlog = mtb_asprintf("%s/qemu.log", dir);
    char *chan = mtb_asprintf("%s/channel.bin", dir);
    unlink(console);
    unlink(chan);
    int kvm = mtb_host_kvm_mte();
    char *append = kernel_append(argv, s->t.isolate);
    struct mtb_argv a = { 0 };
    mtb_console_qemu_argv(&a, &(struct mtb_qemu_boot){ .image = s->k.image, .initrd = initrd, .cpus = s->t.cpus,
                                                       .mem_mb = s->t.mem_mb, .console = console, .chan = chan,
                                                       .append = append, .kvm = kvm });
    if (s->t.count_out) { /* the counting plugin: instruction callbacks only, never memory ones (mtecount.c) */
        unlink(s->t.count_out);
        mtb_argv_push(&a, "-plugin");
        char *pa = mtb_work_plugin_arg(s->t.count_out);
        mtb_argv_push(&a, pa);
        free(pa);
    }
    char *cmdline = quoted_command(&a);
    const char *qv = mtb_qemu_system_version();
    res->info = json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s}", "transport", "console",
                          "accel", kvm ? "kvm" : "tcg", "qemu", qv ? qv : "unknown", "command", cmdline,
                          "smp", s->t.cpus > 0 ? s->t.cpus : 2, "mem_mb", s->t.mem_mb > 0 ? s->t.mem_mb : 2048,
                          "console", "console.log", "initrd", initrd);
    snprintf(res->guest_image, sizeof res->guest_image, "%s", ihash);
    struct mtb_proc q = { 0 };
    struct mtb_spawn sp = { .argv = a.v, .log_path = qlog };
    double t0 = mtb_mono();
    int rc = -1;
    int src = mtb_proc_spawn(&q, &sp);
    if (src != 0)
        snprintf(err, errlen, "cannot start qemu-system-aarch64: %s", strerror(-src));
    else
        rc = wait_guest(&q, s, console, qlog, deadline_s, res, err, errlen);
    res->total_seconds = mtb_mono() - t0;
    json_object_set_new(res->info, "boot_seconds", res->connected ? json_real(res->connect_seconds) : json_null());
    json_object_set_new(res->info, "total_seconds", json_real(res->total_seconds));
    if (rc == 0) {
        rc = unpack_channel(chan, local_dir, res, err, errlen);
        if (rc == 0)
            unlink(chan); /* unpacked into local_dir; kept when damaged */
    }
    json_object_set_new(res->info, "guest_exit", json_integer(res->exit_status));
    mtb_argv_free(&a);
    free(append);
    free(cmdline);
    free(console);
    free(qlog);
    free(chan);
    free(initrd);
    return rc;
}

const struct mtb_transport mtb_transport_console = {
    .name = "console",
    .summary = "a qemu-system-aarch64 guest booted per exec; results over its virtio console",
    .open = console_open,
    .put = console_put,
    .exec = console_exec,
    .close = console_close,
};
