/* test_mode.c - the modes on arm64 MTE servers, checked here on any machine:
 * which host can run which mode (mode.c: asymm needs MTE3 and
 * mte_tcf_preferred), the record's "tagging not seen" warning (record.c), the
 * machine profile suggested for a server (machine.c), and the KVM command
 * line of PLATFORM=vm beside the TCG one (agent/transport_console.c). */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel.h"
#include "core/machine.h"
#include "core/mode.h"
#include "run/proof.h"
#include "analysis/summary.h"
#include "tap.h"
#include "lib/util.h"
#include "agent/transport_console.h"
#include "lib/argv.h"
#include "lib/files.h"

/* index of the option `opt` in a, or -1; *val its value */
static int opt_of(const struct mtb_argv *a, const char *opt, const char **val)
{
    for (int i = 0; i + 1 < a->n; i++)
        if (!strcmp(a->v[i], opt)) {
            *val = a->v[i + 1];
            return i;
        }
    *val = "";
    return -1;
}

static void test_vm_argv(void)
{
    for (int kvm = 0; kvm <= 1; kvm++) {
        struct mtb_argv a = { 0 };
        mtb_console_qemu_argv(&a, &(struct mtb_qemu_boot){ .image = "/k/Image", .cpus = 4, .mem_mb = 1024,
                                                           .initrd = "/i/initramfs.cpio.gz",
                                                           .console = "/d/console.log", .chan = "/d/channel.bin",
                                                           .append = "console=ttyAMA0 loglevel=5 panic=-1 -- run --mode=sync",
                                                           .kvm = kvm });
        const char *v = "";
        const char *name = kvm ? "KVM" : "TCG";
        ok(a.n > 0 && !strcmp(a.v[0], "qemu-system-aarch64"), "%s: qemu-system-aarch64", name);
        int at = opt_of(&a, "-accel", &v);
        ok(at > 0 && !strcmp(v, kvm ? "kvm" : "tcg"), "%s: -accel %s", name, v);
        at = opt_of(&a, "-cpu", &v);
        ok(at > 0 && !strcmp(v, kvm ? "host" : "max,pauth-impdef=on"), "%s: -cpu %s", name, v);
        at = opt_of(&a, "-machine", &v);
        ok(at > 0 && !strcmp(v, kvm ? "virt,mte=on,gic-version=host" : "virt,mte=on"),
           "%s: -machine %s (MTE on%s)", name, v, kvm ? ", the host's GIC" : "");
        ok(opt_of(&a, "-smp", &v) > 0 && !strcmp(v, "4") && opt_of(&a, "-m", &v) > 0 && !strcmp(v, "1024"),
           "%s: -smp 4 -m 1024", name);
        ok(opt_of(&a, "-kernel", &v) > 0 && !strcmp(v, "/k/Image") && opt_of(&a, "-initrd", &v) > 0 &&
               !strcmp(v, "/i/initramfs.cpio.gz"),
           "%s: kernel and initrd", name);
        ok(opt_of(&a, "-serial", &v) > 0 && !strcmp(v, "file:/d/console.log"), "%s: console to a file", name);
        at = opt_of(&a, "-append", &v);
        ok(at > 0 && strstr(v, "console=ttyAMA0") && strstr(v, "-- run --mode=sync"),
           "%s: guest arguments after -- (%s)", name, v);
        /* nothing of the other accelerator leaks in */
        int other = 0;
        for (int i = 0; i < a.n; i++)
            if (kvm ? strstr(a.v[i], "pauth-impdef") || !strcmp(a.v[i], "tcg")
                    : strstr(a.v[i], "gic-version=host") || !strcmp(a.v[i], "kvm") || !strcmp(a.v[i], "host"))
                other = 1;
        ok(!other, "%s: no option of the other accelerator", name);
        ok(a.v[a.n] == NULL, "%s: argv NULL-terminated", name);
        mtb_argv_free(&a);
    }
}

static void test_asymm_check(void)
{
    /* a stand-in CPU directory of sysfs: cpu0 and cpu1, no mte_tcf_preferred yet */
    char dir[] = "/tmp/mtb-sysfs.XXXXXX";
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    char *c0 = mtb_asprintf("%s/cpu0", dir), *c1 = mtb_asprintf("%s/cpu1", dir);
    mkdir(c0, 0755);
    mkdir(c1, 0755);
    const struct mtb_mode *asymm = mtb_mode_find("asymm"), *sync = mtb_mode_find("sync"), *off = mtb_mode_find("off");
    char why[512] = "";
    ok(mtb_mode_host_check(off, 0, 0, 0, dir, why, sizeof why), "off runs anywhere");
    ok(!mtb_mode_host_check(sync, 0, 0, 0, dir, why, sizeof why) && strstr(why, "not arm64") && strstr(why, "PLATFORM=emu"),
       "sync refused without MTE, pointing to emu (%s)", why);
    ok(mtb_mode_host_check(sync, 1, 1, 0, dir, why, sizeof why), "sync runs with MTE (no MTE3, no preferred mode needed)");
    ok(!mtb_mode_host_check(asymm, 1, 1, 0, dir, why, sizeof why) && strstr(why, "MTE3"), "asymm refused without MTE3 (%s)", why);
    why[0] = 0;
    ok(!mtb_mode_host_check(asymm, 1, 1, 1, dir, why, sizeof why) && strstr(why, "mte_tcf_preferred") &&
           strstr(why, "absent"),
       "asymm refused with MTE3 but no mte_tcf_preferred (%s)", why);
    char *p0 = mtb_asprintf("%s/mte_tcf_preferred", c0), *p1 = mtb_asprintf("%s/mte_tcf_preferred", c1);
    FILE *f = fopen(p0, "w");
    if (f) {
        fputs("async\n", f);
        fclose(f);
    }
    f = fopen(p1, "w");
    if (f) {
        fputs("async\n", f);
        fclose(f);
    }
    why[0] = 0;
    ok(mtb_mode_host_check(asymm, 1, 1, 1, dir, why, sizeof why), "asymm accepted with MTE3 and mte_tcf_preferred (%s)", why);
    unlink(p0);
    unlink(p1);
    rmdir(c0);
    rmdir(c1);
    rmdir(dir);
    free(p0);
    free(p1);
    free(c0);
    free(c1);
}

/* a record as run.c writes it, for the fields the warnings read */
static json_t *record(const char *platform, const char *mode, json_t *smaps_mt)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s,s:s,s:s,s:i},s:{s:o},s:{s:o},s:{s:f}}", "status", "ok", "config",
                     "service", "memcached", "variant", "plain", "mode", mode, "platform", platform, "kernel", "host",
                     "rep", 1, "proof", "smaps_mt", smaps_mt, "machine", "numa_node", json_null(), "summary",
                     "ops_per_sec", 1000.0);
}

static int count_warnings(json_t *rec, const char *needle)
{
    size_t i;
    json_t *w;
    int n = 0;
    json_array_foreach(json_object_get(rec, "warnings"), i, w) n += strstr(json_string_value(w), needle) != NULL;
    return n;
}

static void test_zero_mt(void)
{
    json_t *r = record("host", "sync", json_integer(0));
    ok(mtb_record_warnings_add(r) == 1 && count_warnings(r, "tagging not seen") == 1,
       "host sync with 0 mt mappings: a 'tagging not seen' warning in the record");
    json_t *all = json_array();
    json_array_append(all, r);
    json_t *sum = mtb_summary_build(all);
    int in_sum = 0;
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(sum, "warnings"), i, w) in_sum +=
        strstr(json_string_value(w), "memcached") && strstr(json_string_value(w), "tagging not seen") != NULL;
    ok(in_sum == 1, "... lifted once into the summary's warnings (the table and the report print those)");
    json_decref(sum);
    json_decref(all);
    json_decref(r);
    r = record("vm", "async", json_integer(0));
    ok(mtb_record_warnings_add(r) == 1 && count_warnings(r, "MODE=async on vm") == 1, "vm async with 0 mt: warned");
    json_decref(r);
    r = record("host", "sync", json_integer(12));
    ok(mtb_record_warnings_add(r) == 0 && !json_object_get(r, "warnings"), "host sync with 12 mt mappings: no warning");
    json_decref(r);
    r = record("host", "off", json_integer(0));
    ok(mtb_record_warnings_add(r) == 0, "host off with 0 mt: no warning (nothing to tag)");
    json_decref(r);
    r = record("emu", "sync", json_null());
    ok(mtb_record_warnings_add(r) == 0, "emu sync, smaps_mt null (not measurable): no warning");
    json_decref(r);
}

static void test_suggest(void)
{
    char why[512];
    const char *ampere = "processor\t: 0\nCPU implementer\t: 0xc0\nCPU part\t: 0xac3\n";
    const char *n2 = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd49\n";
    ok(!strcmp(mtb_machine_suggest(192, ampere, 1, why, sizeof why), "ampereone"), "Ampere, 192 CPUs: ampereone (%s)", why);
    const char *s = mtb_machine_suggest(64, ampere, 1, why, sizeof why);
    ok(!strcmp(s, "auto") && strstr(why, "ampereone needs 192 CPUs"), "Ampere, 64 CPUs: not ampereone but %s (%s)", s, why);
    s = mtb_machine_suggest(4, ampere, 1, why, sizeof why);
    ok(!strcmp(s, "local"), "Ampere VM, 4 CPUs: %s (%s)", s, why);
    s = mtb_machine_suggest(16, n2, 1, why, sizeof why);
    ok(!strcmp(s, "auto") && strstr(why, "arm64-server needs 64 CPUs"), "Neoverse N2, 16 CPUs: not arm64-server but %s (%s)",
       s, why);
    /* what is suggested loads here: every suggestion fits the CPU count it was made for */
    struct { int n; const char *ci; } cases[] = { { 192, ampere }, { 64, ampere }, { 64, n2 }, { 16, n2 }, { 2, n2 } };
    int fits = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *name = mtb_machine_suggest(cases[i].n, cases[i].ci, 1, why, sizeof why);
        char *path = mtb_asprintf("%s/configs/machines/%s.conf", mtb_root(), name);
        struct mtb_machine *m = mtb_calloc(1, sizeof *m);
        char err[512];
        if (strcmp(name, "auto") && mtb_machine_parse(path, m, err, sizeof err) == 0)
            for (int c = 0; c < m->nsvc; c++)
                fits &= m->svc_cpus[c] < cases[i].n;
        free(m);
        free(path);
    }
    ok(fits, "every suggested profile's service CPUs exist on the machine it was suggested for");
}

int main(void)
{
    test_vm_argv();
    test_asymm_check();
    test_zero_mt();
    test_suggest();
    return done_testing();
}
