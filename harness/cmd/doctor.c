/* doctor.c - see doctor.h. What doctor finds is gathered into struct
 * doctor, then written from it: as JSON (--json) or as text. */
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
#include "core/floor_rows.h"

#include <glob.h>
#include <math.h>
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

/* a shipped machine profile: its summary and whether it fits here, or why it is invalid */
struct profile {
    char *name, *error, *summary;
    int fits_here;
};

/* a platform: usable here (else why), its modes, those refused and why */
struct plat {
    const char *name;
    int usable, emulated;
    char why[MTB_ERRLEN];
    const char **modes, **refused; /* the modes (those refused, with why) */
    char **refused_why;
    size_t nmodes, nrefused;
};

struct doctor {
    struct utsname u;
    int cpus;
    int hwcap2_mte, hwcap2_mte3; /* -1: not arm64 */
    int cpuinfo_mte, arm64_nomte, binfmt_aarch64;
    char *mte_tcf_preferred;     /* NULL: not present */
    const char *qemu_user;       /* NULL: not found (and the rest) */
    char *qemu_system, *perf, *cross_gcc;
    int has_pmu;                 /* MTE here: the PMU's events */
    char pmu_events[512], pmu_why[256];
    json_t *pmu_missing;
    /* the machine profile */
    const char *suggested;
    char suggested_why[512];
    int numa_nodes;
    struct profile *profiles;
    size_t nprofiles;
    struct plat *plats;
    size_t nplats;
    const char *default_platform;
    json_t *floor;               /* run/floor.c's check */
};

/* this machine: architecture, MTE, QEMU, perf, binfmt, cross compiler */
static void doctor_host(struct doctor *d)
{
    uname(&d->u);
    d->cpus = mtb_ncpus();
    d->hwcap2_mte = mtb_host_is_arm64() ? mtb_host_has_mte() : -1;
    d->hwcap2_mte3 = mtb_host_is_arm64() ? mtb_host_has_mte3() : -1;
    d->cpuinfo_mte = cpuinfo_has_word("mte");
    glob_t g;
    if (glob("/sys/devices/system/cpu/cpu[0-9]*/mte_tcf_preferred", 0, NULL, &g) == 0) {
        char *v = g.gl_pathc ? mtb_read_file(g.gl_pathv[0], NULL) : NULL;
        if (v)
            v[strcspn(v, "\n")] = 0;
        d->mte_tcf_preferred = v;
        globfree(&g);
    }
    char *cmdline = mtb_read_file("/proc/cmdline", NULL);
    d->arm64_nomte = cmdline && strstr(cmdline, "arm64.nomte");
    free(cmdline);
    d->qemu_user = mtb_qemu_user_version();
    char *const qs[] = { "qemu-system-aarch64", "--version", NULL };
    d->qemu_system = first_line(qs);
    d->perf = mtb_which("perf");
    if (mtb_host_has_mte()) { /* MTE's work from the PMU (run/pmu_mte.c), beside host runs' timings */
        d->has_pmu = 1;
        d->pmu_missing = json_array();
        mtb_pmu_mte_here(d->pmu_events, sizeof d->pmu_events, d->pmu_missing, d->pmu_why, sizeof d->pmu_why);
    }
    d->binfmt_aarch64 = mtb_file_exists("/proc/sys/fs/binfmt_misc/qemu-aarch64");
    char *const xcc[] = { "aarch64-linux-gnu-gcc", "-dumpfullversion", NULL };
    d->cross_gcc = mtb_host_is_arm64() ? NULL : first_line(xcc);
}

/* which machine profile suits this machine, and the shipped profiles */
static void doctor_machine(struct doctor *d)
{
    glob_t ng;
    if (glob("/sys/devices/system/node/node[0-9]*", 0, NULL, &ng) == 0) {
        d->numa_nodes = (int)ng.gl_pathc;
        globfree(&ng);
    }
    char *ci = mtb_read_file("/proc/cpuinfo", NULL);
    d->suggested = mtb_machine_suggest(mtb_ncpus(), ci, d->numa_nodes > 0 ? d->numa_nodes : 1, d->suggested_why,
                                       sizeof d->suggested_why);
    free(ci);
    char *pat = mtb_asprintf("%s/configs/machines/*.conf", mtb_root());
    glob_t pg;
    if (glob(pat, 0, NULL, &pg) == 0) {
        d->profiles = mtb_calloc(pg.gl_pathc + 1, sizeof *d->profiles);
        for (size_t i = 0; i < pg.gl_pathc; i++) {
            struct mtb_machine *m = mtb_calloc(1, sizeof *m);
            struct profile *pr = &d->profiles[d->nprofiles++];
            char err[MTB_ERRLEN];
            const char *base = strrchr(pg.gl_pathv[i], '/') + 1;
            pr->name = strndup(base, strlen(base) - 5);
            if (mtb_machine_parse(pg.gl_pathv[i], m, err, sizeof err) != 0) {
                pr->error = mtb_strdup(err);
            } else {
                pr->summary = mtb_strdup(m->summary);
                pr->fits_here = mtb_machine_load(pg.gl_pathv[i], m, err, sizeof err) == 0;
            }
            free(m);
        }
        globfree(&pg);
    }
    free(pat);
}

/* each platform: usable here, its modes, the ones refused and why */
static void doctor_platforms(struct doctor *d)
{
    size_t n = 0, nm = 0;
    mtb_for_each_platform(p) n++;
    mtb_for_each_mode(m) nm++;
    d->plats = mtb_calloc(n + 1, sizeof *d->plats);
    mtb_for_each_platform(p)
    {
        struct plat *pl = &d->plats[d->nplats++];
        pl->name = p->name;
        pl->usable = p->usable(pl->why, sizeof pl->why);
        pl->emulated = mtb_platform_emulated(p);
        pl->modes = mtb_calloc(nm + 1, sizeof *pl->modes);
        pl->refused = mtb_calloc(nm + 1, sizeof *pl->refused);
        pl->refused_why = mtb_calloc(nm + 1, sizeof *pl->refused_why);
        if (pl->usable)
            mtb_for_each_mode(m)
            {
                char mw[MTB_ERRLEN];
                if (p->mode_ok(m, mw, sizeof mw))
                    pl->modes[pl->nmodes++] = m->name;
                else {
                    pl->refused[pl->nrefused] = m->name;
                    pl->refused_why[pl->nrefused++] = mtb_strdup(mw);
                }
            }
    }
    const char *notice;
    d->default_platform = mtb_platform_default(&notice)->name;
}

static void doctor_free(struct doctor *d)
{
    free(d->mte_tcf_preferred);
    free(d->qemu_system);
    free(d->perf);
    free(d->cross_gcc);
    json_decref(d->pmu_missing);
    for (size_t i = 0; i < d->nprofiles; i++)
        free(d->profiles[i].name), free(d->profiles[i].error), free(d->profiles[i].summary);
    free(d->profiles);
    for (size_t i = 0; i < d->nplats; i++) {
        for (size_t k = 0; k < d->plats[i].nrefused; k++)
            free(d->plats[i].refused_why[k]);
        free(d->plats[i].modes), free(d->plats[i].refused), free(d->plats[i].refused_why);
    }
    free(d->plats);
    json_decref(d->floor);
}

/* a yes/no fact as JSON: true, false, null (-1: does not apply here) */
static json_t *yn_json(int v) { return v < 0 ? json_null() : json_boolean(v); }
static json_t *str_json(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *doctor_json(const struct doctor *d)
{
    json_t *j = json_pack("{s:s,s:s,s:i,s:o,s:o,s:b,s:o,s:b,s:o,s:o,s:o,s:b,s:o,s:s}", "arch", d->u.machine, "kernel",
                          d->u.release, "cpus", d->cpus, "hwcap2_mte", yn_json(d->hwcap2_mte), "hwcap2_mte3",
                          yn_json(d->hwcap2_mte3), "cpuinfo_mte", d->cpuinfo_mte, "mte_tcf_preferred",
                          str_json(d->mte_tcf_preferred), "arm64_nomte", d->arm64_nomte, "qemu_user",
                          str_json(d->qemu_user), "qemu_system", str_json(d->qemu_system), "perf", str_json(d->perf),
                          "binfmt_aarch64", d->binfmt_aarch64, "cross_gcc", str_json(d->cross_gcc), "build_cache",
                          mtb_cache());
    if (d->has_pmu)
        json_object_set_new(j, "pmu_mte", json_pack("{s:s,s:O,s:s}", "events", d->pmu_events, "missing",
                                                    d->pmu_missing, "why", d->pmu_why));
    json_t *profiles = json_array();
    for (size_t i = 0; i < d->nprofiles; i++) {
        const struct profile *pr = &d->profiles[i];
        json_t *pj = json_pack("{s:s}", "name", pr->name);
        if (pr->error)
            json_object_set_new(pj, "error", json_string(pr->error));
        else {
            json_object_set_new(pj, "summary", json_string(pr->summary));
            json_object_set_new(pj, "fits_here", json_boolean(pr->fits_here));
        }
        json_array_append_new(profiles, pj);
    }
    json_object_set_new(j, "machine", json_pack("{s:s,s:s,s:i,s:o}", "suggested", d->suggested, "why",
                                                d->suggested_why, "numa_nodes", d->numa_nodes, "profiles", profiles));
    json_t *plats = json_array();
    for (size_t i = 0; i < d->nplats; i++) {
        const struct plat *pl = &d->plats[i];
        json_t *modes = json_array(), *refused = json_object();
        for (size_t k = 0; k < pl->nmodes; k++)
            json_array_append_new(modes, json_string(pl->modes[k]));
        for (size_t k = 0; k < pl->nrefused; k++)
            json_object_set_new(refused, pl->refused[k], json_string(pl->refused_why[k]));
        json_array_append_new(plats, json_pack("{s:s,s:b,s:s,s:b,s:o,s:o}", "name", pl->name, "usable", pl->usable,
                                               "why", pl->why, "emulated", pl->emulated, "modes", modes, "refused",
                                               refused));
    }
    json_object_set_new(j, "platforms", plats);
    json_object_set_new(j, "default_platform", json_string(d->default_platform));
    json_object_set(j, "floor", d->floor);
    return j;
}

static const char *yes_no(int v) { return v > 0 ? "yes" : v < 0 ? "n/a" : "no"; }
static const char *found(const char *s) { return s ? s : "not found"; }

static void doctor_print(const struct doctor *d)
{
    printf("architecture        %s (%d CPUs), kernel %s\n", d->u.machine, d->cpus, d->u.release);
    printf("HWCAP2_MTE          %s%s\n", yes_no(d->hwcap2_mte), mtb_host_is_arm64() ? "" : " (not arm64)");
    printf("HWCAP2_MTE3         %s\n", yes_no(d->hwcap2_mte3));
    printf("mte in /proc/cpuinfo %s\n", yes_no(d->cpuinfo_mte));
    printf("mte_tcf_preferred   %s\n", d->mte_tcf_preferred ? d->mte_tcf_preferred : "not present");
    printf("arm64.nomte         %s\n", d->arm64_nomte ? "SET on the kernel command line: MTE disabled" : "not set");
    printf("qemu-aarch64        %s\n", found(d->qemu_user));
    printf("qemu-system-aarch64 %s\n", found(d->qemu_system));
    printf("perf                %s\n", found(d->perf));
    if (d->has_pmu) {
        char *m = json_dumps(d->pmu_missing, JSON_COMPACT);
        int missing = json_array_size(d->pmu_missing) > 0;
        printf("MTE PMU events      %s%s%s%s\n", *d->pmu_events ? d->pmu_events : "none", missing ? "; missing " : "",
               missing ? m : "", *d->pmu_why ? " (see why in --json)" : "");
        free(m);
    } else
        printf("MTE PMU events      n/a (no MTE here: MTE's work is counted on vm, docs/COUNTING.md)\n");
    printf("binfmt aarch64      %s\n", yes_no(d->binfmt_aarch64));
    printf("aarch64 cross gcc   %s\n", mtb_host_is_arm64() ? "n/a (native)" : found(d->cross_gcc));
    printf("build cache         %s\n", mtb_cache());
    printf("platforms:\n");
    for (size_t i = 0; i < d->nplats; i++) {
        const struct plat *pl = &d->plats[i];
        printf("  %-5s %s", pl->name, pl->usable ? "usable" : "NOT usable: ");
        if (!pl->usable) {
            printf("%s\n", pl->why);
            continue;
        }
        printf(", modes:");
        for (size_t k = 0; k < pl->nmodes; k++)
            printf(" %s", pl->modes[k]);
        printf("%s\n", pl->emulated ? " (emulated: not hardware timing)" : "");
        for (size_t k = 0; k < pl->nrefused; k++)
            printf("        %s refused: %s\n", pl->refused[k], pl->refused_why[k]);
    }
    printf("default platform    %s\n", d->default_platform);
    struct mtb_floor_view fv;
    mtb_floor_view_read(d->floor, &fv);
    char fdesc[512];
    if (mtb_floor_describe(&fv, fdesc, sizeof fdesc))
        printf("latency floor       %s: a tail-latency bound below it cannot be met here\n", fdesc);
    else
        printf("latency floor       not measured: %s\n", fdesc);
    for (size_t i = 0; i < fv.npts; i++) {
        const struct mtb_floor_row *r = &fv.pts[i];
        printf("  at %6g/s         p50 %8.0f us, p90 %8.0f us, p99 %8.0f us, p99.9 %8.0f us (%lld requests)\n",
               mtb_or0(r->rate), mtb_or0(r->pct[MTB_FLOOR_P50]), mtb_or0(r->pct[MTB_FLOOR_P90]), mtb_or0(r->pct[MTB_FLOOR_P99]),
               mtb_or0(r->pct[MTB_FLOOR_P999]), r->count);
    }
    mtb_floor_view_free(&fv);
    printf("machine profile     MACHINE=%s (%s)\n", d->suggested, d->suggested_why);
    for (size_t i = 0; i < d->nprofiles; i++) {
        const struct profile *pr = &d->profiles[i];
        printf("  %-13s %s%s\n", pr->name, pr->error ? "INVALID: " : pr->fits_here ? "" : "(not this machine) ",
               pr->error ? pr->error : pr->summary);
    }
}

int mtb_cmd_doctor(int argc, char **argv)
{
    int as_json = argc > 1 && !strcmp(argv[1], "--json");
    if (argc > 1 && !as_json)
        mtb_die(2, "doctor: unknown option '%s' (accepted: --json)", argv[1]);
    struct doctor d = { 0 };
    doctor_host(&d);
    doctor_machine(&d);
    doctor_platforms(&d);
    /* the latency floor: a native memcached on loopback at three rates (run/floor.h) */
    struct mtb_err e = { 0 };
    d.floor = mtb_floor_check(&e);
    if (!d.floor)
        mtb_err_exit(&e);
    if (as_json) {
        json_t *j = doctor_json(&d);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
        json_decref(j);
    } else {
        doctor_print(&d);
    }
    doctor_free(&d);
    return 0;
}
