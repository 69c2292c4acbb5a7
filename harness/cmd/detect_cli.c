/* detect_cli.c - the fronts of `mtebench detect` (its options and the
 * shared ones, cli.c, resolved into what a detection asks for: struct
 * mtb_detect_req, run by detect/detect.c) and `mtebench detect-sweep` (the
 * platform resolved, the sweep run by detect/detect_sweep.c). */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "detect/detect.h"
#include "detect/catalogue.h"
#include "lib/files.h"
#include "plan/platforms.h"
#include "agent/agent.h"
#include "core/kernel.h"
#include "lib/argv.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D_BUGS = 1, D_VARIANTS, D_MODES, D_CONFIGS, D_COST, D_KCHECK, D_TRIALS, D_CONTROLS, D_CATALOGUE, D_HISTORY,
       D_SERVICE, D_JSON, D_MATRIX, D_FORMAT, D_HELP };
static const struct mtb_opt detect_opts[] = {
    MTB_OPT("bugs", "ID,...", "BUG", D_BUGS, "detect", "the catalogue's bugs tried (default all)"),
    MTB_OPT("variants", "V,...", "VARIANTS", D_VARIANTS, "detect",
            "the variants, each as its -bugs build (default plain,tagged,objtag;\n"
            "--controls: the one whose bug build runs the controls, default plain)"),
    MTB_OPT("modes", "M,...", "MODES", D_MODES, "detect", "the modes (default off,sync,async,asymm: those the platform has)"),
    MTB_OPT("configs", "V/M,...", NULL, D_CONFIGS, "detect", "these configurations instead of variants x modes"),
    MTB_OPT("trials", "N", "TRIALS", D_TRIALS, "detect", "trials of each cell, a fresh service each (default 3)"),
    MTB_OPT("kernel-check", "vm|none", "KERNEL_CHECK", D_KCHECK, "detect",
            "a system call's bad access also tried in a vm guest (default on emu: vm)"),
    MTB_OPT("cost", "DIR,...", NULL, D_COST, "detect", "bench results: each configuration's overhead beside its catch rate"),
    MTB_OPT("controls", NULL, NULL, D_CONTROLS, "detect", "each bug's fixed-build control instead of the trials"),
    MTB_OPT("catalogue", NULL, NULL, D_CATALOGUE, "detect detect-catalogue", "the catalogue listed and checked"),
    MTB_OPT("history", "GIT_DIR", NULL, D_HISTORY, "detect-catalogue", "--catalogue: a fetched upstream history of S"),
    MTB_OPT("service", "S", "SERVICE", D_SERVICE, "detect-catalogue", "--catalogue: S's entries alone"),
    MTB_OPT("json", NULL, NULL, D_JSON, "detect-catalogue", "--catalogue: as JSON"),
    MTB_OPT("matrix", "DIR", NULL, D_MATRIX, "detect detect-matrix",
            "a finished detect's matrix (DIR/detect.json, or the file) printed again"),
    MTB_OPT("format", "F", NULL, D_FORMAT, "detect-matrix", "--matrix: text (default), md or html"),
    MTB_OPT("help", NULL, NULL, D_HELP, NULL, "this text"),
    { 0 },
};

static void detect_usage(FILE *f)
{
    fprintf(f, "usage: mtebench detect --service S [--bugs ID,...|all] [--variants plain,tagged,objtag]\n"
               "                       [--modes off,sync,async,asymm] [--configs V/M,...] [--trials N]\n"
               "                       [--platform emu|host|vm] [--kernel K (vm)] [--kernel-check vm|none]\n"
               "                       [--allocator glibc|scudo] [--cost BENCH_RESULTS_DIR,...]\n"
               "                       [--results DIR (resumes)] [--machine M] [--json]\n"
               "  each bug of services/S/bugs/ x variant (its -bugs build) x mode (those the platform has), N trials\n"
               "  (a fresh service each);\n"
               "  outcomes caught_sync, caught_async, caught_kernel (a system call refused by the kernel's tag\n"
               "  check: vm, hardware), caught_other, silent, not_triggered, not_reached, error;\n"
               "  with --kernel-check vm, a bug whose bad access is a system call's (access_in syscall) also\n"
               "  runs its sync cells in a vm guest, where a real kernel checks it (qemu-user never does); on\n"
               "  emu that is the default wherever a vm can run;\n"
               "  DIR/detect.json, detect.md, detect.html: the matrix with Wilson 95%% intervals (docs/DETECTION.md);\n"
               "  with --cost, each configuration's overhead from those bench records beside its catch rate.\n"
               "  exit 0, or 1 when a trial did not reach its bug or ended in error; 2: bad input\n"
               "usage: mtebench detect --controls --service S [--bugs ID,...] [--variants V] [--platform emu|host]\n"
               "                       [--results DIR]\n"
               "  each bug's fixed-build control: its trigger with the bug off (V's bug build, default plain, mode\n"
               "  off); the fix must refuse it (its log: mtbbug: refused ID), no code of the bug run, the service\n"
               "  alive and answering as the manifest's control_expect says; DIR/controls.json; exit 1 when one\n"
               "  failed\n"
               "usage: mtebench detect --catalogue [--service S] [--history GIT_DIR] [--json]\n"
               "  lists every entry of the catalogue (every service's, or S's) and checks it: its manifest's keys\n"
               "  and words, its trigger, its switch in bugs.patch, its fixed-build control, and (--history: a\n"
               "  fetched upstream history of S) its fix_commit, there and changing the manifest's fix_files;\n"
               "  exit 0 with no finding, 1 with any\n"
               "usage: mtebench detect --matrix DIR [--format text|md|html]\n"
               "  a finished detect's matrix (DIR/detect.json, or that file) printed again: as detect printed it\n"
               "  (text), or as its detect.md (md) or detect.html (html)\n");
    mtb_cli_help(f, "detect", detect_opts);
}

/* --catalogue [--service S] [--history DIR] [--json]: the entries checked */
static int catalogue(int argc, char **argv)
{
    const char *svc = NULL, *hist = NULL;
    int json = 0, c;
    const struct mtb_opt *const tabs[] = { detect_opts, NULL };
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "detect-catalogue", 0);
    p.shown = "detect --catalogue";
    while ((c = mtb_opt_next(&p, tabs)) > 0)
        switch (c) {
        case D_SERVICE: svc = p.val; break;
        case D_HISTORY: hist = p.val; break;
        case D_JSON: json = 1; break;
        case D_HELP: detect_usage(stdout); mtb_opt_free(&p); return 0;
        }
    if (c == MTB_OPT_ERR || p.npos)
        mtb_die(2, "detect --catalogue: %s", c == MTB_OPT_ERR ? p.err : "takes no arguments but options");
    mtb_opt_free(&p);
    if (hist && !svc)
        mtb_die(2, "detect --catalogue --history %s: name the service whose history it is (--service)", hist);
    char *hd = hist ? mtb_asprintf("%s/HEAD", hist) : NULL;
    if (hd && !mtb_file_exists(hd))
        mtb_die(2, "detect --catalogue --history %s: not a git directory (no HEAD; e.g. a fetched bare repository)",
                hist);
    free(hd);
    char *bd = svc ? mtb_asprintf("%s/services/%s/bugs", mtb_root(), svc) : NULL;
    if (bd && !mtb_file_exists(bd))
        mtb_die(2, "detect --catalogue --service %s: no catalogue (services/%s/bugs/)", svc, svc);
    free(bd);
    struct mtb_catalogue cat;
    mtb_catalogue_check(svc, hist, &cat);
    size_t bad = mtb_catalogue_findings(&cat);
    if (json) {
        json_t *entries = mtb_catalogue_json(&cat);
        json_dumpf(entries, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
        json_decref(entries);
    } else
        mtb_catalogue_print(stdout, &cat);
    mtb_catalogue_free(&cat);
    return bad ? 1 : 0;
}

/* --matrix DIR [--format F]: a finished detect's matrix printed again */
static int matrix(int argc, char **argv)
{
    const char *path = NULL, *format = "text";
    int c;
    const struct mtb_opt *const tabs[] = { detect_opts, NULL };
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "detect-matrix", 0);
    p.shown = "detect --matrix";
    while ((c = mtb_opt_next(&p, tabs)) > 0)
        switch (c) {
        case D_MATRIX: path = p.val; break;
        case D_FORMAT: format = p.val; break;
        case D_HELP: detect_usage(stdout); mtb_opt_free(&p); return 0;
        }
    if (c == MTB_OPT_ERR || p.npos)
        mtb_die(2, "detect --matrix: %s", c == MTB_OPT_ERR ? p.err : "takes no arguments but options");
    mtb_opt_free(&p);
    int md = !strcmp(format, "text") ? 0 : !strcmp(format, "md") ? 1 : !strcmp(format, "html") ? 2 : -1;
    if (md < 0)
        mtb_die(2, "detect --matrix: invalid format '%s' (accepted: text, md, html)", format);
    char *file = mtb_det_path(path);
    json_error_t je;
    json_t *mx = json_load_file(file, 0, &je);
    struct mtb_det_rows r;
    mtb_det_rows_read(mx, &r);
    if (!mx || strcmp(r.schema, MTB_DET_SCHEMA)) {
        mtb_det_rows_free(&r);
        json_decref(mx);
        mtb_die(2, "detect --matrix %s: %s", file,
                mx ? "not a detection matrix (schema " MTB_DET_SCHEMA ")" : je.text);
    }
    if (md == 2)
        mtb_detect_matrix_html(stdout, &r);
    else
        mtb_detect_matrix_print(stdout, &r, md);
    mtb_det_rows_free(&r);
    json_decref(mx);
    free(file);
    return 0;
}

/* what detect's own options ask */
struct detect_args {
    const char *bugs, *variants, *modes, *configs, *cost, *kcheck;
    struct mtb_detect_req *q;
    int help;
};

static void own_option(void *ctx, int id, const char *val)
{
    struct detect_args *d = ctx;
    switch (id) {
    case D_BUGS: d->bugs = val; break;
    case D_VARIANTS: d->variants = val; break;
    case D_MODES: d->modes = val; break;
    case D_CONFIGS: d->configs = val; break;
    case D_COST: d->cost = val; break;
    case D_KCHECK: d->kcheck = val; break;
    case D_CONTROLS: d->q->controls = 1; break;
    case D_HELP: d->help = 1; break;
    case D_TRIALS:
        if (mtb_parse_long(val, 1, 100000, &d->q->trials) != 0)
            mtb_die(2, "--trials: a count 1..100000");
        break;
    }
}

int mtb_cmd_detect(int argc, char **argv)
{
    struct mtb_opts o = { 0 };
    struct mtb_detect_req q = { .trials = 3 };
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--catalogue"))
            return catalogue(argc, argv);
        else if (!strcmp(argv[i], "--matrix") || !strncmp(argv[i], "--matrix=", 9))
            return matrix(argc, argv);
    struct detect_args d = { "all", "plain,tagged,objtag", "off,sync,async,asymm", NULL, NULL, NULL, &q, 0 };
    struct mtb_cli_own own = { detect_opts, own_option, &d };
    mtb_cli_parse_own(argc, argv, &o, "detect", &own);
    if (d.help) {
        detect_usage(stdout);
        return 0;
    }
    const char *bugs_s = d.bugs, *variants = d.variants, *modes = d.modes, *configs = d.configs, *cost = d.cost;
    const char *kcheck = d.kcheck;
    o.quiet = 1;
    /* a bug with a trigger runs the recipe's [workload detect] (the trigger
     * driver); a synthetic plant the default workload */
    char why[MTB_ERRLEN];
    const struct mtb_recipe *r0 = o.service ? mtb_recipe_find(o.service, why, sizeof why) : NULL;
    q.has_trigger = r0 && mtb_recipe_get(r0, "workload detect", "driver") != NULL;
    o.workload = q.has_trigger ? "detect" : NULL;
    mtb_cli_resolve(&o);
    q.wl_trigger = o.wl;
    if (mtb_workload_defaults(o.recipe, "default", &q.wl_plant, NULL) != 0)
        q.wl_plant = o.wl;
    if ((o.p->run && strcmp(o.p->name, "vm")) || mtb_machine_remote(&o.mach))
        mtb_die(2, "detect runs on this machine (PLATFORM=host or emu) or in its vm guests (vm), not %s",
                mtb_machine_remote(&o.mach) ? "on a server host" : o.p->name);
    q.recipe = o.recipe;
    q.platform = o.p;
    q.kernel = o.kernel;
    if (q.controls && o.p->run)
        mtb_die(2, "detect --controls runs on emu or host: a fix's refusal of the trigger does not depend on the kernel");
    q.check_kernel = o.p->named_kernels ? o.kernel : "stock";
    if (kcheck && strcmp(kcheck, "none") && strcmp(kcheck, "vm"))
        mtb_die(2, "--kernel-check %s: accepted vm (a guest of a real kernel, --kernel K on vm, else stock) or none",
                kcheck);
    /* on emu a system call's bad access also runs on vm by default (qemu-user checks no system call's buffer) */
    const struct mtb_platform *vm = mtb_platform_find("vm");
    if (kcheck ? !strcmp(kcheck, "vm") : !q.controls && !strcmp(o.p->name, "emu")) {
        if (vm->usable(why, sizeof why))
            q.kernel_check = vm;
        else if (kcheck)
            mtb_die(2, "--kernel-check vm: the vm platform cannot run here: %s", why);
        else
            fprintf(stderr, "mtebench: detect: no vm here (%s): a system call's bad access is emu's answer only\n", why);
    }
    if (o.p->named_kernels) { /* the guest's kernel built now (cached), so trials only boot it */
        struct mtb_kernel k;
        if (mtb_kernel_ensure(q.check_kernel, NULL, 0, 0, &k, why, sizeof why) != 0)
            mtb_die(1, "%s", why);
        mtb_kernel_free(&k);
    }
    q.machine = &o.mach;
    if (o.nallocs > 1)
        mtb_die(2, "detect takes one allocator (ALLOCATOR=%s names %zu): run detect once per allocator", o.allocator,
                o.nallocs);
    q.allocator = o.allocs[0];
    q.bugs = bugs_s;
    q.variants = variants;
    q.modes = modes;
    q.configs = configs;
    q.cost = cost;
    q.results = o.results;
    q.json = o.json;
    /* each trial's switch, plant and trigger are its run's (struct mtb_run):
     * one left in the shell's environment would reach every service this
     * harness starts, a control's too */
    unsetenv("MTEBENCH_BUG");
    unsetenv("MTEBENCH_PLANT");
    struct mtb_err e = { 0 };
    int rc = mtb_detect_run(&q, &e);
    if (rc < 0)
        mtb_err_exit(&e);
    return rc;
}

/* detect-sweep --platform vm: the guest's own sweep on its kernel
 * (`detect-sweep --platform host` there), brought back as sweep.json with
 * platform vm and the kernel's identity */
static int sweep_vm(const struct mtb_sweep_req *r, const char *kernel, int quiet)
{
    char err[MTB_ERRLEN];
    struct mtb_kernel k;
    if (mtb_kernel_ensure(kernel, NULL, 0, quiet, &k, err, sizeof err) != 0)
        mtb_die(1, "%s", err);
    char tmpl[] = "/tmp/mtebench-vmsweep.XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        mtb_die(1, "cannot make a directory under /tmp");
    /* the guest's own sweep on its kernel (platform host there), judged with
     * QEMU's tag model when the vm is emulated (TCG) */
    struct mtb_argv g = { 0 };
    mtb_argv_push(&g, "detect-sweep");
    mtb_argv_push(&g, "--platform=host");
    mtb_argv_pushf(&g, "--modes=%s", r->modes);
    mtb_argv_pushf(&g, "--trials=%ld", r->trials);
    mtb_argv_pushf(&g, "--allocator=%s", r->allocator);
    mtb_argv_pushf(&g, "--tag-model=%s", mtb_platform_emulated(mtb_platform_find("vm")) ? "qemu" : "uniform");
    mtb_argv_push(&g, "--results={out}/sweep");
    mtb_argv_push(&g, "--json");
    struct mtb_agent_target t = { .where = kernel, .workdir = dir, .connect_timeout = 90, .cpus = 2, .mem_mb = 1024,
                                  .quiet = quiet };
    char *local = mtb_asprintf("%s/guest", dir), *sp = mtb_asprintf("%s/sweep/sweep.json", local);
    struct mtb_agent_result res;
    json_t *doc = NULL;
    struct mtb_agent_job job = { .argv = g.v, .deadline_s = 60 + (double)r->trials, .local_dir = local };
    struct mtb_err e = { 0 };
    if (mtb_agent_exec(mtb_transport_find("console"), &t, &job, &res, &e) != 0)
        mtb_die(1, "detect-sweep on vm: %s (logs: %s)", e.msg, dir);
    doc = json_load_file(sp, 0, NULL);
    if (!doc)
        mtb_die(1, "detect-sweep on vm: the guest wrote no sweep (its log: %s/agent.log)", local);
    json_object_set_new(doc, "platform", json_string("vm"));
    json_object_set_new(doc, "emulated", json_boolean(mtb_platform_emulated(mtb_platform_find("vm"))));
    json_object_set_new(doc, "kernel", json_pack("{s:s,s:s,s:s*}", "name", k.name, "uname_r", res.uname_r,
                                                 "expected_uname_r", k.release));
    json_decref(res.info);
    int rc = mtb_detect_sweep_finish(doc, r->results, r->json, &e);
    if (rc < 0)
        mtb_err_exit(&e);
    json_decref(doc);
    mtb_rm_rf(dir);
    mtb_argv_free(&g);
    free(local);
    free(sp);
    mtb_kernel_free(&k);
    return rc;
}

enum { S_PLATFORM = 1, S_MODES, S_TRIALS, S_RESULTS, S_JSON, S_KERNEL, S_TAG_MODEL, S_ALLOCATOR, S_HELP };
static const struct mtb_opt sweep_opts[] = {
    MTB_OPT("platform", "P", "PLATFORM", S_PLATFORM, NULL, "emu (default), host or vm"),
    MTB_OPT("kernel", "K", "KERNEL", S_KERNEL, NULL, "vm: the guest's kernel (default stock)"),
    MTB_OPT("modes", "M,...", "MODES", S_MODES, NULL, "the modes (default off,async,sync,asymm)"),
    MTB_OPT("trials", "N", "TRIALS", S_TRIALS, NULL, "trials of each cell (default 2000)"),
    MTB_OPT("results", "DIR", "RESULTS", S_RESULTS, NULL, "where the sweep goes (default results/<time>-sweep)"),
    MTB_OPT("json", NULL, NULL, S_JSON, NULL, "the sweep as JSON on standard output"),
    MTB_OPT("tag-model", "qemu|uniform", NULL, S_TAG_MODEL, NULL,
            "the tag draw the cells are judged against (default: qemu on\n"
            "emulated platforms, else uniform)"),
    MTB_OPT("allocator", "glibc|scudo", "ALLOCATOR", S_ALLOCATOR, NULL, "the allocator of the tagged objects"),
    MTB_OPT("help", NULL, NULL, S_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const sweep_tabs[] = { sweep_opts, NULL };

static void sweep_usage(FILE *f)
{
    fprintf(f, "usage: mtebench detect-sweep [options]\n"
               "  runs build/aarch64/detectsweep once per mode (vm: in a guest of kernel K, default stock);\n"
               "  compares each cell's catch rate with the granule and tag-collision arithmetic within its\n"
               "  Wilson 95%% interval, and the system-call cells with the kernel's checks (a real kernel in\n"
               "  sync mode refuses them; qemu-user never does) (docs/DETECTION.md).\n"
               "  exit 0: every deterministic cell exact, every random one within its 99.9%% interval\n"
               "  (95%% agreement is reported per cell); 1: a disagreement; 2: bad input.\n"
               "options:\n");
    mtb_opt_help(f, sweep_tabs, "detect-sweep");
}

int mtb_cmd_detect_sweep(int argc, char **argv)
{
    const char *pname = "emu", *modes = "off,async,sync,asymm", *results = NULL, *kernel = "stock", *model = NULL,
               *alloc = "glibc";
    long trials = 2000;
    int json = 0, ch;
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "detect-sweep", 0);
    while ((ch = mtb_opt_next(&p, sweep_tabs)) > 0) {
        const char *v = p.val;
        switch (ch) {
        case S_PLATFORM: pname = v; break;
        case S_MODES: modes = v; break;
        case S_TRIALS: if (mtb_parse_long(v, 1, 1000000, &trials) != 0) mtb_die(2, "--trials: 1..1000000"); break;
        case S_RESULTS: results = v; break;
        case S_JSON: json = 1; break;
        case S_KERNEL: kernel = v; break;
        case S_ALLOCATOR:
            if (strcmp(v, "glibc") && strcmp(v, "scudo"))
                mtb_die(2, "--allocator %s: accepted glibc, scudo", v);
            alloc = v;
            break;
        case S_TAG_MODEL:
            if (strcmp(v, "qemu") && strcmp(v, "uniform"))
                mtb_die(2, "--tag-model %s: accepted qemu, uniform", v);
            model = v;
            break;
        case S_HELP: sweep_usage(stdout); mtb_opt_free(&p); return 0;
        }
    }
    if (ch == MTB_OPT_ERR || p.npos) {
        fprintf(stderr, "mtebench detect-sweep: %s\n", ch == MTB_OPT_ERR ? p.err : "unexpected argument");
        sweep_usage(stderr);
        mtb_opt_free(&p);
        return 2;
    }
    mtb_opt_free(&p);
    const struct mtb_platform *pl = mtb_platform_find(pname);
    char why[512];
    if (!pl || (pl->run && strcmp(pname, "vm")))
        mtb_die(2, "--platform %s: accepted emu, host, vm", pname);
    if (!pl->usable(why, sizeof why))
        mtb_die(2, "PLATFORM=%s is not usable here: %s", pname, why);
    if (strcmp(kernel, "stock") && strcmp(pname, "vm"))
        mtb_die(2, "--kernel %s: only --platform vm boots a kernel (%s runs on its own)", kernel, pname);
    if (!strcmp(pname, "vm") && strcmp(alloc, "glibc") && !mtb_file_exists(MTB_SCUDO_LIB))
        mtb_die(2, "--allocator %s on vm: %s is missing here, and the guest image takes this machine's copy "
                "(make deps installs libclang-rt-16-dev:arm64)", alloc, MTB_SCUDO_LIB);
    struct mtb_sweep_req r = { .platform = pl, .modes = modes, .trials = trials, .results = results, .json = json,
                               .tag_model = model, .allocator = alloc };
    if (!strcmp(pname, "vm"))
        return sweep_vm(&r, kernel, 0);
    struct mtb_err e = { 0 };
    int rc = mtb_detect_sweep(&r, &e);
    if (rc < 0)
        mtb_err_exit(&e);
    return rc;
}
