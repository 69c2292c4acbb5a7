/* doctor.c - see doctor.h */
#include "plan/platforms.h"
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "core/mode.h"
#include "run/proof.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "lib/util.h"
#include "core/kernel.h"
#include "core/machine.h"
#include "run/quiet.h"
#include "run/floor.h"
#include "run/pmu_mte.h"
#include "lib/jsonx.h"
#include "core/hostfacts.h"
#include "lib/files.h"
#include "lib/proc.h"

#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static char *first_line(char *const argv[])
{
    int st;
    char *out = mtb_capture(argv, 1, &st);
    if (!out || st != 0) {
        free(out);
        return NULL;
    }
    out[strcspn(out, "\n")] = 0;
    return out;
}

static int cpuinfo_has_word(const char *word)
{
    char *ci = mtb_read_file("/proc/cpuinfo", NULL);
    int found = 0;
    if (ci) {
        char *line = strstr(ci, "Features");
        for (; line && !found; line = strstr(line + 1, "Features")) {
            size_t l = strcspn(line, "\n");
            char *copy = strndup(line, l), *save = NULL;
            for (char *t = strtok_r(copy, " \t:", &save); t; t = strtok_r(NULL, " \t:", &save))
                if (!strcmp(t, word))
                    found = 1;
            free(copy);
        }
    }
    free(ci);
    return found;
}

/* this machine: architecture, MTE, QEMU, perf, binfmt, cross compiler */
static void doctor_host(json_t *d)
{
    struct utsname u;
    uname(&u);
    json_object_set_new(d, "arch", json_string(u.machine));
    json_object_set_new(d, "kernel", json_string(u.release));
    json_object_set_new(d, "cpus", json_integer(mtb_ncpus()));
    json_object_set_new(d, "hwcap2_mte", mtb_host_is_arm64() ? json_boolean(mtb_host_has_mte()) : json_null());
    json_object_set_new(d, "hwcap2_mte3", mtb_host_is_arm64() ? json_boolean(mtb_host_has_mte3()) : json_null());
    json_object_set_new(d, "cpuinfo_mte", json_boolean(cpuinfo_has_word("mte")));
    glob_t g;
    json_t *pref = json_array();
    if (glob("/sys/devices/system/cpu/cpu[0-9]*/mte_tcf_preferred", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && i < 1; i++) {
            char *v = mtb_read_file(g.gl_pathv[i], NULL);
            if (v) {
                v[strcspn(v, "\n")] = 0;
                json_array_append_new(pref, json_string(v));
            }
            free(v);
        }
        globfree(&g);
    }
    json_object_set_new(d, "mte_tcf_preferred", json_array_size(pref) ? json_incref(json_array_get(pref, 0)) : json_null());
    json_decref(pref);
    char *cmdline = mtb_read_file("/proc/cmdline", NULL);
    json_object_set_new(d, "arm64_nomte", json_boolean(cmdline && strstr(cmdline, "arm64.nomte")));
    free(cmdline);
    const char *qv = mtb_qemu_user_version();
    json_object_set_new(d, "qemu_user", qv ? json_string(qv) : json_null());
    char *const qs[] = { "qemu-system-aarch64", "--version", NULL };
    char *qsv = first_line(qs);
    json_object_set_new(d, "qemu_system", qsv ? json_string(qsv) : json_null());
    free(qsv);
    char *perf = mtb_which("perf");
    json_object_set_new(d, "perf", perf ? json_string(perf) : json_null());
    free(perf);
    if (mtb_host_has_mte()) { /* MTE's work from the PMU (run/pmu_mte.c), beside host runs' timings */
        char ev[512], why[256];
        json_t *missing = json_array();
        mtb_pmu_mte_here(ev, sizeof ev, missing, why, sizeof why);
        json_object_set_new(d, "pmu_mte", json_pack("{s:s,s:o,s:s}", "events", ev, "missing", missing, "why", why));
    }
    json_object_set_new(d, "binfmt_aarch64", json_boolean(mtb_file_exists("/proc/sys/fs/binfmt_misc/qemu-aarch64")));
    char *const xcc[] = { "aarch64-linux-gnu-gcc", "-dumpfullversion", NULL };
    char *xv = mtb_host_is_arm64() ? NULL : first_line(xcc);
    json_object_set_new(d, "cross_gcc", xv ? json_string(xv) : json_null());
    free(xv);
    json_object_set_new(d, "build_cache", json_string(mtb_cache()));

}

/* which machine profile suits this machine, and the shipped profiles */
static void doctor_machine(json_t *d)
{
    int nodes = 0;
    glob_t ng;
    if (glob("/sys/devices/system/node/node[0-9]*", 0, NULL, &ng) == 0) {
        nodes = (int)ng.gl_pathc;
        globfree(&ng);
    }
    char *ci = mtb_read_file("/proc/cpuinfo", NULL);
    char swhy[512];
    const char *sugg = mtb_machine_suggest(mtb_ncpus(), ci, nodes > 0 ? nodes : 1, swhy, sizeof swhy);
    free(ci);
    json_t *profiles = json_array();
    char *pat = mtb_asprintf("%s/configs/machines/*.conf", mtb_root());
    glob_t pg;
    if (glob(pat, 0, NULL, &pg) == 0) {
        for (size_t i = 0; i < pg.gl_pathc; i++) {
            struct mtb_machine *m = mtb_calloc(1, sizeof *m);
            char err[MTB_ERRLEN];
            const char *base = strrchr(pg.gl_pathv[i], '/') + 1;
            char *name = strndup(base, strlen(base) - 5);
            json_t *pj = json_pack("{s:s}", "name", name);
            if (mtb_machine_parse(pg.gl_pathv[i], m, err, sizeof err) != 0) {
                json_object_set_new(pj, "error", json_string(err));
            } else {
                json_object_set_new(pj, "summary", json_string(m->summary));
                int fits = mtb_machine_load(pg.gl_pathv[i], m, err, sizeof err) == 0;
                json_object_set_new(pj, "fits_here", json_boolean(fits));
            }
            json_array_append_new(profiles, pj);
            free(name);
            free(m);
        }
        globfree(&pg);
    }
    free(pat);
    json_object_set_new(d, "machine", json_pack("{s:s,s:s,s:i,s:o}", "suggested", sugg, "why", swhy, "numa_nodes", nodes,
                                                "profiles", profiles));

}

/* each platform: usable here, its modes, the ones refused and why */
static void doctor_platforms(json_t *d)
{
    json_t *plats = json_array();
    mtb_for_each_platform(p)
    {
        char why[MTB_ERRLEN] = "";
        int ok = p->usable(why, sizeof why);
        json_t *modes = json_array(), *refused = json_object();
        if (ok)
            mtb_for_each_mode(m)
            {
                char mw[MTB_ERRLEN];
                if (p->mode_ok(m, mw, sizeof mw))
                    json_array_append_new(modes, json_string(m->name));
                else
                    json_object_set_new(refused, m->name, json_string(mw));
            }
        json_array_append_new(plats, json_pack("{s:s,s:b,s:s,s:b,s:o,s:o}", "name", p->name, "usable", ok,
                                               "why", why, "emulated", mtb_platform_emulated(p), "modes", modes,
                                               "refused", refused));
    }
    json_object_set_new(d, "platforms", plats);
    const char *notice;
    json_object_set_new(d, "default_platform", json_string(mtb_platform_default(&notice)->name));

}

static void doctor_print(json_t *d)
{
    struct utsname u;
    uname(&u);
    json_t *plats = json_object_get(d, "platforms");
#define YN(k) (json_is_true(json_object_get(d, k)) ? "yes" : json_is_null(json_object_get(d, k)) ? "n/a" : "no")
#define S(k) (json_string_value(json_object_get(d, k)) ? json_string_value(json_object_get(d, k)) : "not found")
    printf("architecture        %s (%d CPUs), kernel %s\n", u.machine, mtb_ncpus(), u.release);
    printf("HWCAP2_MTE          %s%s\n", YN("hwcap2_mte"), mtb_host_is_arm64() ? "" : " (not arm64)");
    printf("HWCAP2_MTE3         %s\n", YN("hwcap2_mte3"));
    printf("mte in /proc/cpuinfo %s\n", YN("cpuinfo_mte"));
    printf("mte_tcf_preferred   %s\n", json_is_null(json_object_get(d, "mte_tcf_preferred")) ? "not present" : S("mte_tcf_preferred"));
    printf("arm64.nomte         %s\n", json_is_true(json_object_get(d, "arm64_nomte")) ? "SET on the kernel command line: MTE disabled" : "not set");
    printf("qemu-aarch64        %s\n", S("qemu_user"));
    printf("qemu-system-aarch64 %s\n", S("qemu_system"));
    printf("perf                %s\n", S("perf"));
    json_t *pm = json_object_get(d, "pmu_mte");
    if (pm) {
        char *m = json_dumps(json_object_get(pm, "missing"), JSON_COMPACT);
        printf("MTE PMU events      %s%s%s%s\n", *mtb_jstr(pm, "events") ? mtb_jstr(pm, "events") : "none",
               json_array_size(json_object_get(pm, "missing")) ? "; missing " : "",
               json_array_size(json_object_get(pm, "missing")) ? m : "", *mtb_jstr(pm, "why") ? " (see why in --json)" : "");
        free(m);
    } else
        printf("MTE PMU events      n/a (no MTE here: MTE's work is counted on vm, docs/COUNTING.md)\n");
    printf("binfmt aarch64      %s\n", YN("binfmt_aarch64"));
    printf("aarch64 cross gcc   %s\n", mtb_host_is_arm64() ? "n/a (native)" : S("cross_gcc"));
    printf("build cache         %s\n", mtb_cache());
    printf("platforms:\n");
    size_t i;
    json_t *p;
    json_array_foreach(plats, i, p)
    {
        printf("  %-5s %s", json_string_value(json_object_get(p, "name")),
               json_is_true(json_object_get(p, "usable")) ? "usable" : "NOT usable: ");
        if (!json_is_true(json_object_get(p, "usable"))) {
            printf("%s\n", json_string_value(json_object_get(p, "why")));
            continue;
        }
        printf(", modes:");
        size_t j;
        json_t *m;
        json_array_foreach(json_object_get(p, "modes"), j, m) printf(" %s", json_string_value(m));
        printf("%s\n", json_is_true(json_object_get(p, "emulated")) ? " (emulated: not hardware timing)" : "");
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(p, "refused"), k, v) printf("        %s refused: %s\n", k, json_string_value(v));
    }
    printf("default platform    %s\n", S("default_platform"));
    json_t *fl = json_object_get(d, "floor");
    char fdesc[512];
    if (mtb_floor_describe(fl, fdesc, sizeof fdesc))
        printf("latency floor       %s: a tail-latency bound below it cannot be met here\n", fdesc);
    else
        printf("latency floor       not measured: %s\n", fdesc);
    size_t fi;
    json_t *fp;
    json_array_foreach(json_object_get(fl, "points"), fi, fp)
    {
#define FPCT(k) json_number_value(json_object_get(fp, k))
        printf("  at %6g/s         p50 %8.0f us, p90 %8.0f us, p99 %8.0f us, p99.9 %8.0f us (%lld requests)\n",
               FPCT("rate"), FPCT("p50"), FPCT("p90"), FPCT("p99"), FPCT("p99.9"),
               (long long)json_integer_value(json_object_get(fp, "count")));
#undef FPCT
    }
    json_t *mj = json_object_get(d, "machine");
    printf("machine profile     MACHINE=%s (%s)\n", json_string_value(json_object_get(mj, "suggested")),
           json_string_value(json_object_get(mj, "why")));
    json_array_foreach(json_object_get(mj, "profiles"), i, p)
    {
        json_t *e = json_object_get(p, "error");
        printf("  %-13s %s%s\n", json_string_value(json_object_get(p, "name")),
               e ? "INVALID: " : json_is_true(json_object_get(p, "fits_here")) ? "" : "(not this machine) ",
               e ? json_string_value(e) : json_string_value(json_object_get(p, "summary")));
    }
}

int mtb_cmd_doctor(int argc, char **argv)
{
    int as_json = argc > 1 && !strcmp(argv[1], "--json");
    if (argc > 1 && !as_json)
        mtb_die(2, "doctor: unknown option '%s' (accepted: --json)", argv[1]);
    json_t *d = json_object();
    doctor_host(d);
    doctor_machine(d);
    doctor_platforms(d);
    /* the latency floor: a native memcached on loopback at three rates (run/floor.h) */
    struct mtb_err e = { 0 };
    json_t *floor = mtb_floor_check(&e);
    if (!floor)
        mtb_err_exit(&e);
    json_object_set_new(d, "floor", floor);
    if (as_json) {
        json_dumpf(d, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
    } else {
        doctor_print(d);
    }
    json_decref(d);
    return 0;
}
