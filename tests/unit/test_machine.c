/* Unit tests of machine profiles: CPU lists, the shipped profiles, bad input
 * named with file and line, and which profile suits a machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/machine.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

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

int main(void)
{
    test_machine();
    test_machine_profiles();
    return done_testing();
}
