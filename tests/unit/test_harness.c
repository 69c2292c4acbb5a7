/* Unit tests of the harness pieces: parsing, templates, recipes, the mode
 * proof's decision, the summary's pairing and atomic writes. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "machine.h"
#include "compare.h"
#include "kernel.h"
#include "mode.h"
#include "platform.h"
#include "proc.h"
#include "proof.h"
#include "recipe.h"
#include "summary.h"
#include "summary_text.h"
#include "tap.h"
#include "util.h"

static void test_parsing(void)
{
    double d;
    long l;
    ok(mtb_parse_duration("30", &d) == 0 && d == 30, "duration 30 = 30 s");
    ok(mtb_parse_duration("500ms", &d) == 0 && fabs(d - 0.5) < 1e-12, "duration 500ms");
    ok(mtb_parse_duration("2m", &d) == 0 && d == 120, "duration 2m");
    ok(mtb_parse_duration("5x", &d) != 0, "duration 5x refused");
    ok(mtb_parse_duration("", &d) != 0 && mtb_parse_duration("-1", &d) != 0, "empty and negative durations refused");
    ok(mtb_parse_long("42", 1, 100, &l) == 0 && l == 42, "long 42");
    ok(mtb_parse_long("0", 1, 100, &l) != 0 && mtb_parse_long("101", 1, 100, &l) != 0, "long out of range refused");
    ok(mtb_parse_long("12a", 1, 100, &l) != 0, "trailing garbage refused");
    ok(mtb_parse_long("99999999999999999999", 0, 1L << 62, &l) != 0, "overflow refused");
    ok(mtb_workload_valid_mix("1:10") && mtb_workload_valid_mix("5:1") && mtb_workload_valid_mix("0:1"), "mixes accepted");
    /* found by fuzz_plan: a 19-digit count overflowed the sum (UBSan) */
    ok(!mtb_workload_valid_mix("1:1044444444444444444444") && !mtb_workload_valid_mix("9223372036854775807:1") &&
           !mtb_workload_valid_mix("1:10000000") && mtb_workload_valid_mix("1000000:1000000"),
       "mix counts above a million refused, without overflow");
    ok(!mtb_workload_valid_mix("1-10") && !mtb_workload_valid_mix("1:") && !mtb_workload_valid_mix("0:0") &&
           !mtb_workload_valid_mix("1:10x") && !mtb_workload_valid_mix("-1:2"),
       "bad mixes refused");
}

static void test_template(void)
{
    const char *pairs[] = { "port", "1234", "threads", "4", NULL, NULL };
    char *s = mtb_template("-p {port} -t {threads} {unknown} {", pairs);
    ok(!strcmp(s, "-p 1234 -t 4 {unknown} {"), "template substitutes known keys only: '%s'", s);
    free(s);
    char *u = mtb_unescape("version\\r\\n");
    ok(!strcmp(u, "version\r\n"), "unescape \\r\\n");
    free(u);
}

static void test_recipe(void)
{
    char err[512];
    struct mtb_recipe *r = mtb_recipe_find("memcached", err, sizeof err);
    ok(r != NULL, "memcached recipe found");
    if (!r)
        return;
    ok(mtb_recipe_has_variant(r, "plain") && mtb_recipe_has_variant(r, "tagged"), "plain and tagged variants");
    ok(!mtb_recipe_has_variant(r, "nope"), "unknown variant absent");
    const char *sha = mtb_recipe_get(r, "service", "sha256");
    ok(sha && strlen(sha) == 64, "source checksum pinned");
    ok(mtb_recipe_find("nope", err, sizeof err) == NULL && strstr(err, "accepted: ") && strstr(err, "memcached"),
       "unknown service names the accepted ones: %s", err);
    /* a malformed recipe is named with its line */
    char path[] = "/tmp/mtb-recipe-XXXXXX";
    int fd = mkstemp(path);
    ok(fd >= 0 && write(fd, "[service]\nname = x\nthis line is bad\n", 36) == 36, "wrote a bad recipe");
    close(fd);
    struct mtb_recipe bad;
    ok(mtb_recipe_load(path, &bad, err, sizeof err) != 0 && strstr(err, ":3:"), "malformed line reported: %s", err);
    unlink(path);
    /* long values continue on indented lines (inih's line length is limited) */
    char path2[] = "/tmp/mtb-recipe-XXXXXX";
    fd = mkstemp(path2);
    const char *txt = "[service]\nname = x\n[run]\nargs = -a 1\n    -b 2\n";
    ok(fd >= 0 && write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt), "wrote a recipe with a continuation");
    close(fd);
    struct mtb_recipe cont;
    ok(mtb_recipe_load(path2, &cont, err, sizeof err) == 0 && mtb_recipe_get(&cont, "run", "args") &&
           !strcmp(mtb_recipe_get(&cont, "run", "args"), "-a 1 -b 2"),
       "continued value joined");
    unlink(path2);
}

static const char *probe_out[] = {
    /* off */ "hwcap2_mte=1\nprctl_ctrl=0x0\ntcf=none\ntagged_ptrs=0/64\nwrite_fault=0\nread_fault=0\n",
    /* sync */ "hwcap2_mte=1\nprctl_ctrl=0x7fff3\ntcf=sync\ntagged_ptrs=64/64\nwrite_fault=9\nread_fault=9\n",
    /* async */ "hwcap2_mte=1\nprctl_ctrl=0x7fff5\ntcf=async\ntagged_ptrs=64/64\nwrite_fault=8\nread_fault=8\n",
    /* asymm */ "hwcap2_mte=1\nprctl_ctrl=0x7fff7\ntcf=sync+async\ntagged_ptrs=64/64\nwrite_fault=8\nread_fault=9\n",
};

static void test_proof(void)
{
    const char *names[] = { "off", "sync", "async", "asymm" };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            char why[512];
            json_t *p = mtb_proof_parse(probe_out[j]);
            int got = mtb_proof_check(mtb_mode_find(names[i]), p, why, sizeof why);
            ok(got == (i == j), "probe output of %s %s mode %s (%s)", names[j], i == j ? "proves" : "does not prove",
               names[i], why);
            json_decref(p);
        }
    char why[512];
    json_t *p = mtb_proof_parse("tcf=sync\ntagged_ptrs=0/64\nwrite_fault=9\nread_fault=9\n");
    ok(!mtb_proof_check(mtb_mode_find("sync"), p, why, sizeof why) && strstr(why, "tagged"),
       "sync without tagged pointers is not proved: %s", why);
    json_decref(p);
    p = mtb_proof_parse("tcf=sync\n");
    ok(!mtb_proof_check(mtb_mode_find("sync"), p, why, sizeof why), "incomplete probe output is not a proof");
    json_decref(p);
}

static void test_platforms(void)
{
    char why[512];
    const struct mtb_platform *emu = mtb_platform_find("emu");
    ok(emu && emu->emulated, "emu is labelled emulated");
    ok(!emu->mode_ok(mtb_mode_find("asymm"), why, sizeof why) && strstr(why, "PLATFORM=host"),
       "emu refuses asymm naming the platform that has it");
    ok(emu->mode_ok(mtb_mode_find("sync"), why, sizeof why), "emu has sync");
    const struct mtb_platform *host = mtb_platform_find("host");
    if (!mtb_host_has_mte())
        ok(!host->mode_ok(mtb_mode_find("async"), why, sizeof why) && strstr(why, "PLATFORM=emu"),
           "host without MTE refuses async naming PLATFORM=emu");
    else
        ok(host->mode_ok(mtb_mode_find("async"), why, sizeof why), "MTE host has async");
    ok(host->mode_ok(mtb_mode_find("off"), why, sizeof why), "host always has off");
    ok(mtb_platform_find("vmx") == NULL, "unknown platform not found");
}

static json_t *fake_record(const char *variant, const char *mode, int rep, double ops, double p99)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:i}},s:{s:f,s:f,s:f,s:f,s:b},s:{s:b}}", "status", "ok",
                     "config", "service", "memcached", "variant", variant, "mode", mode, "platform", "emu",
                     "kernel", "host", "rep", rep, "workload", "mix", "1:10", "conns", 16, "summary",
                     "ops_per_sec", ops, "p50_us", p99 / 3, "p99_us", p99, "p999_us", p99 * 2, "client_bound", 0,
                     "platform", "emulated", 1);
}

static void test_summary(void)
{
    json_t *recs = json_array();
    /* tagged is exactly 1.25x slower in every pair; noise shifts both */
    double base[] = { 100000, 104000, 98000, 101000, 99000, 102000 };
    for (int i = 0; i < 6; i++) {
        json_array_append_new(recs, fake_record("plain", "off", i + 1, base[i], 100));
        json_array_append_new(recs, fake_record("tagged", "async", i + 1, base[i] / 1.25, 150));
    }
    json_array_append_new(recs, json_pack("{s:s}", "status", "error")); /* ignored */
    json_t *s = mtb_summary_build(recs);
    json_t *o = json_array_get(json_object_get(s, "overheads"), 0);
    json_t *sl = json_object_get(o, "slowdown");
    ok(json_array_size(json_object_get(s, "configs")) == 2, "two configurations");
    ok(json_integer_value(json_object_get(o, "pairs")) == 6, "six interleaved pairs");
    ok(fabs(json_real_value(json_object_get(sl, "median")) - 1.25) < 1e-9, "slowdown is the pairwise 1.25x");
    ok(fabs(json_real_value(json_object_get(json_object_get(o, "p99_ratio"), "median")) - 1.5) < 1e-9, "p99 ratio 1.5");
    ok(json_is_true(json_object_get(s, "emulated")), "summary says emulated");
    json_t *p = json_object_get(o, "mann_whitney_p");
    ok(json_is_number(p) && json_number_value(p) < 0.01, "Mann-Whitney separates the two (p=%g)", json_number_value(p));
    char *md = mtb_summary_markdown(s);
    ok(md && strstr(md, "emulated") && strstr(md, "1.250x"), "markdown carries the label and the overhead");
    free(md);
    json_decref(s);
    json_decref(recs);
}

static void test_machine(void)
{
    int c[64];
    char buf[128];
    ok(mtb_cpulist_parse("0-3,8,10-11", c, 64) == 7 && c[4] == 8 && c[6] == 11, "cpu list parsed");
    mtb_cpulist_format(c, 7, buf, sizeof buf);
    ok(!strcmp(buf, "0-3,8,10-11"), "cpu list formatted back: %s", buf);
    ok(mtb_cpulist_parse("3-1", c, 64) < 0 && mtb_cpulist_parse("a", c, 64) < 0 && mtb_cpulist_parse("1,", c, 64) == 1,
       "bad cpu lists refused");
    struct mtb_machine m;
    char err[512];
    ok(mtb_machine_load("auto", &m, err, sizeof err) == 0 && m.nsvc >= 1 && m.ncli >= 1, "auto profile");
    if (mtb_ncpus() >= 2)
        ok(m.svc_cpus[m.nsvc - 1] < m.cli_cpus[0], "auto: service and client CPUs disjoint");
    ok(mtb_machine_load("nosuch", &m, err, sizeof err) != 0 && strstr(err, "configs/machines"), "unknown profile named: %s", err);
    ok(mtb_machine_load("ampereone-64", &m, err, sizeof err) != 0 || mtb_ncpus() >= 128, "a profile needing absent CPUs is refused here: %s", err);
    if (mtb_ncpus() < 128)
        ok(strstr(err, "ampereone-64.conf:") && strstr(err, "out of range"), "... naming the file and line: %s", err);
}

/* write text to a temporary profile; returns its path (static buffer) */
static const char *profile(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/mtb-machine-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return "/nonexistent";
    close(fd);
    return path;
}

static void test_machine_profiles(void)
{
    struct mtb_machine m;
    char err[1024];
    static const char *shipped[] = { "local", "ampereone", "arm64-server", "pixel", "ampereone-8", "ampereone-64" };
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        char *path = mtb_asprintf("%s/configs/machines/%s.conf", mtb_root(), shipped[i]);
        int rc = mtb_machine_parse(path, &m, err, sizeof err);
        ok(rc == 0 && !strcmp(m.name, shipped[i]), "shipped profile %s parses%s%s", shipped[i], rc ? ": " : "", rc ? err : "");
        free(path);
    }
    ok(mtb_machine_parse(mtb_asprintf("%s/configs/machines/ampereone.conf", mtb_root()), &m, err, sizeof err) == 0 &&
           m.ncores == 3 && m.cores[2] == 128 && m.numa_node == 0 && m.nsvc == 128 && m.ncli == 64,
       "ampereone: 128 service CPUs, 64 client CPUs, sweep 8/64/128, node 0");
    char *pl = mtb_machine_perf_list(&m);
    ok(strstr(pl, "instructions") && strstr(pl, ",r0008") && strstr(pl, "r0037"), "perf list: generic and joined raw events: %s", pl);
    free(pl);
    int c[MTB_MAX_CPUS];
    ok(mtb_machine_svc_slice(&m, 8, c) == 8 && c[7] == 7 && mtb_machine_svc_slice(&m, 0, c) == 128, "sweep slices");
    ok(mtb_machine_parse(mtb_asprintf("%s/configs/machines/pixel.conf", mtb_root()), &m, err, sizeof err) == 0 &&
           m.ntypes == 3 && m.type_cpu[2] == 8 && !strcmp(m.type_name[2], "performance"),
       "pixel: one core of each type");
    ok(mtb_machine_parse(mtb_asprintf("%s/configs/machines/local.conf", mtb_root()), &m, err, sizeof err) == 0 &&
           m.nsvc == 1 && m.svc_cpus[0] == 0 && m.ncli == 1 && m.cli_cpus[0] == 1 && m.nswp == 2,
       "local: service {0}, client {1}, sweeps over 0-1");

    /* bad input, named with file and line */
    const char *p = profile("[machine]\nname = x\nservice_cpus = 0\nclient_cpus = 1\nfrobnicate = 3\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) != 0 && strstr(err, p) && strstr(err, ":5:") &&
           strstr(err, "unknown key 'frobnicate'") && strstr(err, "accepted:"),
       "unknown key: %s", err);
    unlink(p);
    p = profile("; comment\n[machine]\ncpus = 4\nservice_cpus = 0-1\nclient_cpus = 2-5\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) != 0 && strstr(err, ":5:") && strstr(err, "CPU 4") &&
           strstr(err, "out of range"),
       "CPU list out of range for the profile's cpus: %s", err);
    unlink(p);
    p = profile("[machine]\nservice_cpus = 0-3\n\nclient_cpus = 3-5\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) != 0 && strstr(err, ":4:") && strstr(err, "shares CPU 3") &&
           strstr(err, "allow_overlap"),
       "overlap of service and client refused: %s", err);
    unlink(p);
    p = profile("[machine]\nservice_cpus = 0-3\nclient_cpus = 3-5\nallow_overlap = yes\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) == 0, "... unless the profile allows it");
    unlink(p);
    p = profile("[machine]\nservice_cpus = 0-3\nclient_cpus = 4\ncores = 2,8\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) != 0 && strstr(err, "8 server cores"), "sweep larger than the set: %s", err);
    unlink(p);
    p = profile("[machine]\nservice_cpus = 0\nclient_cpus = 1\nperf_raw = STALL=4005\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) != 0 && strstr(err, ":4:") && strstr(err, "label=rHEX"),
       "malformed raw event: %s", err);
    unlink(p);
    p = profile("[machine]\nservice_cpus = 0,x\nclient_cpus = 1\n");
    ok(mtb_machine_parse(p, &m, err, sizeof err) != 0 && strstr(err, ":2:") && strstr(err, "not a CPU list"),
       "malformed CPU list: %s", err);
    unlink(p);
    if (mtb_ncpus() < 64) {
        p = profile("[machine]\nname = big\nservice_cpus = 0\nclient_cpus = 1\nsweep_cpus = 0-63\nallow_overlap = yes\n");
        ok(mtb_machine_load(p, &m, err, sizeof err) != 0 && strstr(err, ":5:") && strstr(err, "sweep_cpus") &&
               strstr(err, "this machine has CPUs"),
           "a list beyond this machine's CPUs is refused with its line: %s", err);
        unlink(p);
    }

    /* which profile suits a machine */
    char why[256];
    const char *ampere = "processor\t: 0\nCPU implementer\t: 0xc0\nCPU architecture: 8\nCPU variant\t: 0x0\n"
                         "CPU part\t: 0xac3\nCPU revision\t: 1\n";
    ok(!strcmp(mtb_machine_suggest(192, ampere, 1, why, sizeof why), "ampereone") && strstr(why, "0xc0:0xac3"),
       "AmpereOne MIDR suggests ampereone: %s", why);
    const char *tensor = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd46\n\n"
                         "processor\t: 4\nCPU implementer\t: 0x41\nCPU part\t: 0xd4d\n\n"
                         "processor\t: 8\nCPU implementer\t: 0x41\nCPU part\t: 0xd4e\n";
    ok(!strcmp(mtb_machine_suggest(9, tensor, 1, why, sizeof why), "pixel"), "three core types suggest pixel: %s", why);
    const char *n2 = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd49\n";
    ok(!strcmp(mtb_machine_suggest(64, n2, 2, why, sizeof why), "arm64-server") && strstr(why, "2 NUMA nodes"),
       "Neoverse N2 with 64 CPUs suggests arm64-server: %s", why);
    ok(!strcmp(mtb_machine_suggest(2, "model name\t: AMD EPYC\n", 1, why, sizeof why), "local"), "2 CPUs suggest local: %s", why);
    ok(!strcmp(mtb_machine_suggest(32, "model name\t: AMD EPYC\n", 1, why, sizeof why), "auto"), "a big x86 box: auto: %s", why);
}

static void test_atomic(void)
{
    char dir[] = "/tmp/mtb-atomic-XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *p = mtb_asprintf("%s/a/b/c", dir);
    ok(mtb_mkdir_p(p) == 0 && mtb_file_exists(p), "mkdir -p");
    char *f = mtb_asprintf("%s/rec.json", p);
    ok(mtb_write_atomic(f, "{}", 2) == 0, "atomic write");
    char *back = mtb_read_file(f, NULL);
    ok(back && !strcmp(back, "{}"), "read back");
    free(back);
    ok(mtb_write_atomic("/nonexistent-dir/x.json", "{}", 2) != 0, "atomic write into a missing dir fails cleanly");
    mtb_rm_rf(dir);
    ok(!mtb_file_exists(dir), "rm -rf");
    free(p);
    free(f);
}

static json_t *krec(const char *kernel, int rep, double ops, int emulated)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:s}},s:{s:f,s:f,s:f},s:{s:s,s:b,s:s},s:{s:s,s:s}}",
                     "status", "ok", "config", "service", "memcached", "platform", "vm", "variant", "tagged", "mode",
                     "sync", "kernel", kernel, "rep", rep, "workload", "name", "default", "mix", "1:10",
                     "summary", "ops_per_sec", ops, "p50_us", 100.0, "p99_us", 200.0,
                     "platform", "name", "vm", "emulated", emulated, "accel", emulated ? "tcg" : "kvm",
                     "kernel", "name", kernel, "uname_r", "6.12.0-mtb-x");
}

static void test_kernels(void)
{
    setenv("MTEBENCH_ROOT", ".", 1);
    ok(mtb_kernel_known("stock") && mtb_kernel_known("tcma1"), "named kernels stock and tcma1 exist");
    ok(!mtb_kernel_known("nosuch") && !mtb_kernel_known("../etc") && !mtb_kernel_known(""), "unknown or odd names refused");
    ok(strstr(mtb_kernel_names(), "stock") && strstr(mtb_kernel_names(), "tcma1"), "accepted names listed: %s",
       mtb_kernel_names());
    struct mtb_kernel k;
    char err[MTB_ERRLEN];
    ok(mtb_kernel_ensure("nosuch", NULL, 0, 1, &k, err, sizeof err) != 0 && strstr(err, "accepted: stock"),
       "ensure of an unknown kernel names the accepted ones");
    ok(mtb_kernel_ensure("stock", "5.4", 0, 1, &k, err, sizeof err) != 0 && strstr(err, "6.12, 6.1"),
       "unknown kernel source refused");
    const struct mtb_platform *vm = mtb_platform_find("vm");
    ok(vm && vm->named_kernels && vm->run && !strcmp(vm->target(), "aarch64"), "vm platform row");

    /* the comparison: ratios paired by repetition, the TCG note */
    json_t *recs = json_array();
    json_array_append_new(recs, krec("stock", 1, 1000, 1));
    json_array_append_new(recs, krec("tcma1", 1, 1100, 1));
    json_array_append_new(recs, krec("stock", 2, 2000, 1));
    json_array_append_new(recs, krec("tcma1", 2, 1800, 1));
    json_t *cmp = mtb_compare_build(recs, "stock,tcma1");
    json_t *rows = json_object_get(cmp, "rows");
    ok(json_array_size(rows) == 2, "one row per kernel");
    json_t *r1 = json_array_get(rows, 1);
    double med = json_real_value(json_object_get(json_object_get(r1, "vs_reference"), "median"));
    ok(fabs(med - 1.0) < 1e-9, "paired ratios 1.1 and 0.9: median 1.0 (got %g)", med);
    ok(strstr(json_string_value(json_object_get(cmp, "note")), "no difference between the kernels is expected") != NULL,
       "TCG note");
    json_t *v1 = json_object_get(r1, "vs_reference");
    ok(json_is_number(json_object_get(v1, "lo")) && json_is_number(json_object_get(v1, "conf")) &&
           json_is_number(json_object_get(v1, "mann_whitney_p")) && json_is_object(json_object_get(v1, "slowdown")),
       "the ratio is the summary's kernel axis: an interval, Mann-Whitney and the pair metrics");
    ok(json_is_object(json_object_get(r1, "p99_us")) && !strcmp(json_string_value(json_object_get(cmp, "schema")),
                                                                  "mtebench-kernel-compare/2"),
       "rows carry every run metric as a median with CI (schema 2)");
    char *md = mtb_compare_markdown(cmp);
    ok(strstr(md, "| tagged/sync | tcma1 |") && strstr(md, "emulated: not hardware timing"), "Markdown table, labelled");
    free(md);
    json_decref(cmp);
    json_decref(recs);
    recs = json_array();
    json_array_append_new(recs, krec("stock", 1, 1000, 0));
    json_array_append_new(recs, krec("tcma1", 1, 1250, 0));
    cmp = mtb_compare_build(recs, "stock,tcma1");
    ok(strstr(json_string_value(json_object_get(cmp, "note")), "KVM on MTE hardware") != NULL, "KVM note");
    json_decref(cmp);
    json_decref(recs);
    /* the reference is the first kernel named; every repetition is paired (not only those below 64) */
    recs = json_array();
    for (int rep = 1; rep <= 70; rep++) {
        json_array_append_new(recs, krec("stock", rep, 1000 + rep, 0));
        json_array_append_new(recs, krec("tcma1", rep, 1100 + rep, 0));
    }
    cmp = mtb_compare_build(recs, "tcma1,stock");
    json_t *rv = json_object_get(json_array_get(json_object_get(cmp, "rows"), 1), "vs_reference");
    ok(!strcmp(json_string_value(json_object_get(cmp, "reference")), "tcma1") &&
           !strcmp(json_string_value(json_object_get(rv, "reference")), "tcma1") && json_real_value(json_object_get(rv, "median")) < 1,
       "--kernels tcma1,stock: stock against tcma1 (ratio %g)", json_real_value(json_object_get(rv, "median")));
    ok(json_integer_value(json_object_get(rv, "pairs")) == 70, "70 repetitions: 70 pairs (%lld)",
       (long long)json_integer_value(json_object_get(rv, "pairs")));
    json_decref(cmp);
    json_decref(recs);
}

/* /proc/PID/stat: one parser for the quiet check and perf's process group */
static void test_proc_stat(void)
{
    struct mtb_proc_stat st;
    ok(mtb_proc_stat_read("/proc/self/stat", &st) == 0, "own /proc/self/stat parsed");
    /* the fields are checked on a stopped child, as the quiet check and perf
     * read other processes: qemu-user (make rehearse-arm64) makes up a
     * process's own /proc/self/stat, pgrp 0 among the made-up fields */
    pid_t child = fork();
    if (child == 0) {
        raise(SIGSTOP);
        _exit(0);
    }
    int wst = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)child);
    int stopped = child > 0 && waitpid(child, &wst, WUNTRACED) == child && WIFSTOPPED(wst);
    int read_ok = stopped && mtb_proc_stat_read(path, &st) == 0;
    ok(read_ok && !strcmp(st.comm, "test_harness") && st.pgrp == getpgrp() && st.ppid == getpid() && st.state == 'T',
       "comm, state, ppid and pgrp of a stopped child");
    if (!read_ok)
        diag("child %d stopped %d, %s unread", (int)child, stopped, path);
    else if (strcmp(st.comm, "test_harness") || st.pgrp != getpgrp() || st.ppid != getpid() || st.state != 'T')
        diag("read comm '%s' state %c ppid %d pgrp %d; expected test_harness T %d %d", st.comm, st.state,
             (int)st.ppid, (int)st.pgrp, (int)getpid(), (int)getpgrp());
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    char tmpl[] = "/tmp/mtb-stat.XXXXXX";
    int fd = mkstemp(tmpl);
    const char *line = "42 (a (b) c) S 7 9 9 0 -1 0 0 0 0 0 123 45 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 3 0\n";
    ok(fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line), "synthetic stat written");
    close(fd);
    ok(mtb_proc_stat_read(tmpl, &st) == 0 && !strcmp(st.comm, "a (b) c") && st.ppid == 7 && st.pgrp == 9 &&
           st.utime == 123 && st.stime == 45 && st.processor == 3,
       "a comm with spaces and parentheses; utime, stime, processor");
    unlink(tmpl);
    ok(mtb_proc_stat_read("/proc/0/nonexistent", &st) == -1, "a vanished task is -1");
}

/* The workload's field list round-trips: the agent's arguments (what a far
 * `mtebench run` is given) parse back into the same workload, and the
 * record's JSON has every field. */
static void test_workload_fields(void)
{
    char err[MTB_ERRLEN];
    struct mtb_recipe *r = mtb_recipe_find("memcached", err, sizeof err);
    struct mtb_workload w;
    ok(r && mtb_workload_defaults(r, "default", &w) == 0, "memcached's default workload");
    snprintf(w.mix, sizeof w.mix, "3:7");
    w.keys = 1234;
    snprintf(w.value_size, sizeof w.value_size, "64-128");
    w.threads = 2;
    w.conns = 8;
    w.pipeline = 4;
    w.duration = 2.5;
    w.warmup = 0.5;
    w.rate = 1500;
    w.service_threads = 3;
    struct mtb_argv a = { 0 };
    mtb_argv_push(&a, "run");
    mtb_argv_push(&a, "--service=memcached");
    mtb_argv_push(&a, "--platform=emu");
    mtb_workload_args(&w, &a);
    struct mtb_opts o;
    mtb_cli_parse(a.n, a.v, &o, "run");
    o.quiet = 1;
    mtb_cli_resolve(&o);
    int same = !strcmp(o.wl.name, w.name);
#define X(f, kind, ...) same &= memcmp(&o.wl.f, &w.f, sizeof w.f) == 0;
    MTB_WORKLOAD_FIELDS(X)
#undef X
    ok(same, "every workload field survives mtb_workload_args -> the CLI (%d args)", a.n);
    json_t *j = mtb_workload_json(&w);
    ok(json_object_size(j) == MTB_WL_NFIELDS + 2 && json_real_value(json_object_get(j, "duration_s")) == 2.5 &&
           json_integer_value(json_object_get(j, "keys")) == 1234,
       "the record's workload has name, params and every field");
    json_decref(j);
    struct mtb_argv m = { 0 };
    mtb_workload_mtload_flags(&w, 1, &m);
    ok(m.n == 5 && !strcmp(m.v[0], "--ratio=3:7"), "mtload's measurement flags from the field list (%s ...)", m.v[0]);
    mtb_argv_free(&m);
    mtb_argv_free(&a);
    struct mtb_workload_set s = { 0 };
    ok(mtb_workload_set_parse(&s, "kyes", "1", err, sizeof err) == -2 && strstr(err, "accepted: mix, keys"),
       "an unknown workload key names the accepted ones");
    ok(mtb_workload_set_parse(&s, "conns", "0", err, sizeof err) == -1 && strstr(err, "from 1 to 100000"),
       "a value out of range names the range");
}

int main(void)
{
    test_proc_stat();
    test_parsing();
    test_template();
    test_recipe();
    test_proof();
    test_platforms();
    test_summary();
    test_machine();
    test_machine_profiles();
    test_atomic();
    test_kernels();
    test_workload_fields();
    return done_testing();
}
