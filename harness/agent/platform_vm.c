/* platform_vm.c - PLATFORM=vm: a VM booted from a named kernel
 * (qemu-system-aarch64 -machine virt,mte=on; KVM on MTE hosts, else TCG).
 * A run is the agent step (agent.c) through the console transport
 * (transport_console.c): the guest's own `mtebench run` performs it; the
 * host adds the kernel's identity and the VM's facts to its record. */
#include "agent/agent.h"
#include "core/build_rows.h"
#include "core/kernel.h"
#include "core/mode.h"
#include "core/platform.h"
#include "lib/cpus.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/record_outcome.h"
#include "core/run_request.h"
#include "core/work.h"
#include "core/work_rows.h"
#include "agent/transport_console.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>


/* --- vm: qemu-system-aarch64 -machine virt,mte=on, a named kernel ---------- */
static const char *vm_target(void) { return "aarch64"; }
static int vm_usable(char *why, size_t n)
{
    return mtb_qemu_usable("qemu-system-aarch64", mtb_qemu_system_version(), why, n) &&
           mtb_guest_image_ready(why, n);
}
static int vm_mode_ok(const struct mtb_mode *m, char *why, size_t n)
{
    /* the guest kernel has MTE and a preferred mode; -cpu max has MTE3.
     * Whether a mode holds is proved inside the guest. */
    (void)m;
    (void)why;
    (void)n;
    return 1;
}
static int vm_emulated(void) { return !mtb_host_kvm_mte(); }

/* kernel identity: what was asked, and what the guest reported.
 * @return 1 when the guest ran the kernel asked for */
static int kernel_identity(json_t *rec, const struct mtb_run *run, const struct mtb_kernel *k,
                           const struct mtb_agent_result *res)
{
    struct mtb_rec_env ge; /* the guest's record: the kernel it ran */
    mtb_rec_env_read(rec, &ge);
    json_t *kobj = k->info ? json_deep_copy(k->info) : json_pack("{s:s}", "name", run->kernel);
    json_object_del(kobj, "cached");
    char *guest_rel = *ge.uname_r ? mtb_strdup(ge.uname_r) : res->uname_r[0] ? mtb_strdup(res->uname_r) : NULL;
    json_object_set_new(kobj, "expected_uname_r", k->release ? json_string(k->release) : json_null());
    json_object_set_new(kobj, "uname_r", guest_rel ? json_string(guest_rel) : json_null());
    if (*ge.uname_v)
        json_object_set_new(kobj, "uname_v", json_string(ge.uname_v));
    if (*ge.machine)
        json_object_set_new(kobj, "machine", json_string(ge.machine));
    mtb_rec_env_free(&ge);
    struct mtb_build_view kb;
    mtb_build_view_read(kobj, &kb);
    if (!kb.has_patches)
        json_object_set_new(kobj, "patches", json_array());
    int identity_ok = guest_rel && (!k->release || !strcmp(guest_rel, k->release));
    json_object_set_new(kobj, "identity_ok", json_boolean(identity_ok));
    if (!identity_ok && mtb_record_status(rec) == MTB_RUN_OK) {
        char *m = mtb_asprintf("the guest runs kernel '%s', expected '%s' (%s)", guest_rel ? guest_rel : "?",
                               k->release ? k->release : "?", k->name);
        json_object_set_new(rec, "status", json_string("error"));
        json_object_set_new(rec, "error", json_string(m));
        free(m);
    }
    json_object_set_new(rec, "kernel", kobj);
    free(guest_rel);
    return identity_ok;
}

/* platform: the VM, with the guest's CPU as the guest saw it */
static void vm_platform(json_t *rec, const struct mtb_agent_result *res)
{
    struct mtb_rec_env ge; /* the guest's record: its CPU as it saw it */
    mtb_rec_env_read(rec, &ge);
    int emulated = !mtb_host_kvm_mte();
    const char *ihash = res->info ? res->guest_image : NULL;
    json_t *plat = json_pack("{s:s,s:b,s:s,s:o?,s:i,s:s}", "name", "vm", "emulated", emulated, "accel",
                             emulated ? "tcg" : "kvm", "guest_cpu_model",
                             *ge.cpu_model ? json_string(ge.cpu_model) : NULL, "cpus", 2, "guest_image",
                             ihash ? ihash : "");
    mtb_rec_env_free(&ge);
    json_object_set_new(plat, "qemu", json_string(mtb_qemu_system_version() ? mtb_qemu_system_version() : "unknown"));
    if (emulated)
        json_object_set_new(plat, "label", json_string("emulated: not hardware timing"));
    json_object_set_new(plat, "boot_seconds", res->connected ? json_real(res->connect_seconds) : json_null());
    json_object_set_new(rec, "platform", plat);
    if (res->info) {
        json_object_del(res->info, "transport");
        json_object_set(rec, "vm", res->info);
    }
    /* the machine that booted the guest (the guest's own hostname is "(none)"): mtb_record_host */
    char hn[256] = "";
    gethostname(hn, sizeof hn - 1);
    json_object_set_new(rec, "hosts", json_pack("{s:{s:s}}", "controller", "hostname", hn));
}

/* The run's setup copy in this machine's cache ([run] setup_reuse, made by
 * an earlier run here: the key holds no platform), or NULL. Put into the
 * guest's image, it spares the guest the setup under TCG (PostgreSQL's
 * initdb: about two minutes there, 13 s under emu). */
static char *vm_seed(const struct mtb_run *run)
{
    char *env0 = mtb_mode_env(run->mode);
    /* the guest's run is root's, so as the recipe's user */
    char *dir = mtb_build_setup_dir(run->build, run->recipe, run->wl, run->recipe->run.user, env0);
    free(env0);
    if (dir && !mtb_file_exists(dir)) {
        free(dir);
        dir = NULL;
    }
    return dir;
}

/* A counted run's work account (core/work.h) into its record, from the
 * plugin's file; a run whose counts are missing is not ok. The timings of a
 * counted run are the plugin's, not the service's: said in the record. */
static void count_account(json_t *rec, const struct mtb_run *run, const char *path)
{
    char err[MTB_ERRLEN];
    json_t *w = mtb_work_load(path, err, sizeof err);
    if (!w) {
        json_object_set_new(rec, "work", json_pack("{s:s}", "error", err));
        if (mtb_record_status(rec) == MTB_RUN_OK)
            mtb_record_fail(rec, err);
        return;
    }
    const char *from = "";
    double req = mtb_work_requests(run->recipe, rec, &from);
    struct mtb_rec_env re;
    struct mtb_rec_outcome ro;
    mtb_rec_env_read(rec, &re);
    mtb_rec_outcome_read(rec, &ro);
    json_t *acc = mtb_work_account(w, req, from, re.affinity, ro.work_tasks, run->recipe->run.request_tasks);
    mtb_rec_env_free(&re);
    json_decref(w);
    const char *why = mtb_work_account_error(acc);
    if (why && mtb_record_status(rec) == MTB_RUN_OK)
        mtb_record_fail(rec, why);
    json_object_set_new(acc, "file", json_string("mtecount.txt"));
    json_object_set_new(rec, "work", acc);
    json_object_set_new(rec, "timing", json_string("counted run: the counting plugin slows the guest; its "
                                                   "throughput and latencies are not a timing"));
}

/* One run on platform vm: the agent step through the console transport
 * (one guest boot), then the host's additions to the guest's record. */
static enum mtb_run_status vm_run(const struct mtb_run *run, json_t **record)
{
    char err[MTB_ERRLEN] = "";
    struct mtb_kernel k;
    memset(&k, 0, sizeof k);
    json_t *rec = NULL;
    struct mtb_agent_result res;
    memset(&res, 0, sizeof res);
    /* the kernel's record object (the transport ensures it too: cached) */
    int kok = mtb_kernel_ensure(run->kernel, NULL, 0, 1, &k, err, sizeof err) == 0;
    const char *kname = k.name[0] ? k.name : run->kernel;
    if (kok && run->count && !mtb_work_plugin_ready(err, sizeof err))
        kok = 0;
    char *count_out = run->count ? mtb_asprintf("%s/mtecount.txt", run->dir) : NULL;
    if (kok) {
        /* a counted guest balances no load between its CPUs: isolating
         * CPU 1 (the boot CPU cannot be) leaves neither in a scheduling
         * domain (docs/COUNTING.md, "Per request") */
        struct mtb_agent_target t = { .where = run->kernel, .workdir = run->dir, .cpus = 2, .mem_mb = 2048,
                                      .quiet = run->quiet, .count_out = count_out,
                                      .isolate = run->count ? "1" : NULL };
        char *seed = vm_seed(run);
        /* a trial's guest run keeps the faulting process's core (the guest's
         * /init points core_pattern at /tmp/cores) */
        static char *const core_args[] = { "--core", NULL };
        struct mtb_agent_far far = { .platform = "host", .kernel = kname, .dir = "guest", .seed = seed,
                                     .args = run->fault_report ? core_args : NULL };
        struct mtb_cpu_ticks *t0 = mtb_cpu_ticks_read();
        mtb_agent_run(mtb_transport_find("console"), &t, run, &far, &res, &rec, err, sizeof err);
        struct mtb_cpu_ticks *t1 = mtb_cpu_ticks_read();
        /* the guest's /proc/stat cannot see this machine's hypervisor: the
         * steal is this machine's, over the whole guest run */
        double share = mtb_cpu_steal_share(t0, t1, NULL);
        if (rec && share >= 0)
            json_object_set_new(rec, "steal", json_pack("{s:f,s:s,s:s}", "share", share, "cpus", "all", "source",
                                                        "/proc/stat of the machine running the vm: steal ticks over "
                                                        "all ticks of its CPUs during the guest's boot and run"));
        free(t0);
        free(t1);
        free(seed);
    } else {
        rec = mtb_run_record(run, kname);
        mtb_record_fail(rec, err);
    }
    if (run->count && kok)
        count_account(rec, run, count_out);
    free(count_out);
    /* the guest's warnings said "on host": again, as the vm run they are */
    mtb_record_warnings_add(rec);
    kernel_identity(rec, run, &k, &res);
    vm_platform(rec, &res);
    char lab[128];
    char *base = mtb_asprintf("guest/001-%s-%s", mtb_variant_label(run->variant, run->allocator, lab, sizeof lab),
                              run->mode->name);
    json_object_set_new(rec, "logs", json_pack("{s:o,s:o,s:s,s:s,s:s}", "service",
                                              json_sprintf("%s/service.log", base), "mtload",
                                              json_sprintf("%s/mtload.log", base), "agent", "guest/agent.log",
                                              "console", "console.log", "qemu", "qemu.log"));
    enum mtb_run_status st = mtb_record_end(rec, run->dir);
    struct mtb_rec_outcome ro;
    mtb_rec_outcome_read(rec, &ro);
    if (st != MTB_RUN_OK && !run->quiet)
        mtb_warn("run %d/%d (%s %s/%s on vm, kernel %s): %s", run->index, run->total, run->recipe->name,
                 run->variant, run->mode->name, run->kernel, ro.error ? ro.error : err);
    free(base);
    json_decref(res.info);
    mtb_kernel_free(&k);
    *record = rec;
    return st;
}

/* `mtebench proof --platform vm`: the probe inside a guest of the kernel */
static int vm_proof(const char *kernel, const char *mode, int quiet, int count)
{
    char err[MTB_ERRLEN];
    if (count && !mtb_work_plugin_ready(err, sizeof err)) {
        mtb_warn("proof --count: %s", err);
        return 2;
    }
    struct mtb_kernel k;
    if (mtb_kernel_ensure(kernel, NULL, 0, quiet, &k, err, sizeof err) != 0) {
        mtb_warn("%s", err);
        return 2;
    }
    char tmpl[] = "/tmp/mtebench-vmproof.XXXXXX";
    char *dir = mkdtemp(tmpl);
    int dir_errno = errno;
    struct mtb_argv g = { 0 };
    mtb_argv_push(&g, "proof");
    mtb_argv_push(&g, "--platform=host");
    mtb_argv_pushf(&g, "--mode=%s", mode);
    if (count)
        mtb_argv_push(&g, "--count");
    struct mtb_agent_target t = { .where = kernel, .workdir = dir ? dir : "/tmp", .connect_timeout = 90,
                                  .cpus = 2, .mem_mb = 1024, .quiet = quiet };
    char *count_out = count ? mtb_asprintf("%s/mtecount.txt", t.workdir) : NULL;
    t.count_out = count_out;
    char *local = mtb_asprintf("%s/guest", t.workdir);
    struct mtb_agent_result res;
    int rc = 2;
    struct mtb_agent_job job = { .argv = g.v, .deadline_s = 120, .local_dir = local };
    struct mtb_err e = { 0 };
    if (!dir)
        mtb_err_set(&e, MTB_ERR_FAIL, "cannot make a directory under /tmp: %s", mtb_errdesc(dir_errno));
    if (dir && mtb_agent_exec(mtb_transport_find("console"), &t, &job, &res, &e) == 0) {
        char *lp = mtb_asprintf("%s/agent.log", local);
        char *text = mtb_read_file(lp, NULL);
        /* the agent's stdout is the proof JSON; its stderr a reason line */
        json_error_t je;
        json_t *pr = text ? json_loads(text, JSON_DISABLE_EOF_CHECK, &je) : NULL;
        if (pr) {
            json_object_set_new(pr, "platform", json_string("vm"));
            json_object_set_new(pr, "kernel", json_pack("{s:s,s:s,s:s*,s:b}", "name", k.name, "uname_r", res.uname_r,
                                                         "expected_uname_r", k.release,
                                                         "identity_ok", !k.release || !strcmp(k.release, res.uname_r)));
            if (count) { /* the plugin's counts: window 1 the proof, then one per micro-program */
                json_t *w = mtb_work_load(count_out, err, sizeof err);
                json_object_set_new(pr, "work", w ? w : json_pack("{s:s}", "error", err));
            }
            json_dumpf(pr, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
            printf("\n");
            rc = res.exit_status == 0 ? 0 : 1;
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
        mtb_warn("%s", e.msg);
    }
    mtb_argv_free(&g);
    free(local);
    free(count_out);
    mtb_kernel_free(&k);
    return rc;
}

const struct mtb_platform mtb_platform_vm = {
    .name = "vm",
    .summary = "a VM booted from a named kernel (qemu-system-aarch64 -machine virt,mte=on; KVM on MTE hosts, else TCG)",
    .emulated = 1,
    .target = vm_target,
    .usable = vm_usable,
    .mode_ok = vm_mode_ok,
    .wrap = mtb_platform_wrap_native,
    .smaps_proof = 1,
    .run = vm_run,
    .emulated_now = vm_emulated,
    .named_kernels = 1,
    .proof = vm_proof,
};
