/* quiet.c - see quiet.h */
#include "run/quiet.h"
#include "run/floor.h"
#include "lib/cpus.h"
#include "lib/proc.h"
#include "run/provenance.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/procfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *trimmed(char *s)
{
    if (s)
        s[strcspn(s, "\n")] = 0;
    return s;
}

/* the CPUs the profile uses: service, sweep and client sets */
static int profile_cpus(const struct mtb_machine *m, char *in)
{
    memset(in, 0, MTB_MAX_CPUS);
    for (int i = 0; i < m->nsvc; i++)
        in[m->svc_cpus[i]] = 1;
    for (int i = 0; i < m->nswp; i++)
        in[m->swp_cpus[i]] = 1;
    for (int i = 0; i < m->ncli; i++)
        in[m->cli_cpus[i]] = 1;
    int n = 0;
    for (int i = 0; i < MTB_MAX_CPUS; i++)
        n += in[i];
    return n;
}

/* The CPU directory of sysfs; MTEBENCH_CPU_SYSFS replaces it for the tests
 * (a machine without cpufreq cannot otherwise show a governor being set and
 * restored). */
static const char *cpu_sysfs(void)
{
    const char *d = getenv("MTEBENCH_CPU_SYSFS");
    return d && *d ? d : "/sys/devices/system/cpu";
}

/* ---- settings changed, and put back ------------------------------------- */

#define MAX_SAVED 256
static struct { char path[512]; char value[32]; } saved[MAX_SAVED];
static volatile int nsaved;

void mtb_quiet_restore(void)
{
    /* async-signal-safe: runs from the Ctrl-C handler too */
    for (int i = nsaved - 1; i >= 0; i--) {
        int fd = open(saved[i].path, O_WRONLY | O_TRUNC);
        if (fd >= 0) {
            if (write(fd, saved[i].value, strlen(saved[i].value)) < 0) { /* nothing to do */ }
            close(fd);
        }
    }
    nsaved = 0;
}

static int set_sysfs(const char *path, const char *value, json_t *changes)
{
    char *old = trimmed(mtb_read_file(path, NULL));
    if (!old)
        return 0;
    int changed = 0;
    if (strcmp(old, value) && nsaved < MAX_SAVED) {
        int fd = open(path, O_WRONLY | O_TRUNC);
        int i = nsaved;
        snprintf(saved[i].path, sizeof saved[i].path, "%s", path);
        snprintf(saved[i].value, sizeof saved[i].value, "%s", old);
        if (fd >= 0 && write(fd, value, strlen(value)) == (ssize_t)strlen(value)) {
            nsaved = i + 1;
            changed = 1;
            json_array_append_new(changes, json_pack("{s:s,s:s,s:s}", "path", path, "was", old, "now", value));
        } else {
            json_array_append_new(changes, json_pack("{s:s,s:s,s:s}", "path", path, "was", old, "failed",
                                                     "cannot write it (not root, or the value is not offered)"));
        }
        if (fd >= 0)
            close(fd);
    }
    free(old);
    return changed;
}

/* Apply the profile's settings (set_governor); each change is listed in
 * changes and undone by mtb_quiet_restore, which also runs at exit and on a
 * termination signal. @return the number of settings changed. */
static int mtb_quiet_apply(const struct mtb_machine *m, json_t *changes)
{
    if (!m->set_governor || !m->governor[0])
        return 0;
    mtb_proc_on_exit(mtb_quiet_restore);
    char in[MTB_MAX_CPUS];
    profile_cpus(m, in);
    int n = 0;
    for (int c = 0; c < MTB_MAX_CPUS; c++) {
        if (!in[c])
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/cpu%d/cpufreq/scaling_governor", cpu_sysfs(), c);
        n += set_sysfs(path, m->governor, changes);
    }
    return n;
}

/* ---- the checks ----------------------------------------------------------- */

/* the CPUs' ticks now; all 0 when /proc/stat cannot be read */
static struct mtb_cpu_ticks *ticks_or_zero(void)
{
    struct mtb_cpu_ticks *t = mtb_cpu_ticks_read();
    return t ? t : mtb_calloc(1, sizeof *t);
}

struct task { int pid, tid, cpu; unsigned long long ticks; char comm[64]; };

/* Every task's CPU time and the CPU it last ran on. */
static size_t read_tasks(struct task **out)
{
    size_t n = 0, cap = 1024;
    struct task *t = mtb_calloc(cap, sizeof *t);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 0)
            continue;
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%d/task", pid);
        DIR *td = opendir(dir);
        struct dirent *te;
        while (td && (te = readdir(td))) {
            int tid = atoi(te->d_name);
            if (tid <= 0)
                continue;
            char path[96];
            snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
            struct mtb_proc_stat ps;
            if (mtb_proc_stat_read(path, &ps) != 0)
                continue;
            if (n == cap)
                t = realloc(t, (cap *= 2) * sizeof *t);
            t[n] = (struct task){ .pid = pid, .tid = tid, .cpu = ps.processor, .ticks = ps.utime + ps.stime };
            snprintf(t[n].comm, sizeof t[n].comm, "%s", ps.comm);
            n++;
        }
        if (td)
            closedir(td);
    }
    if (d)
        closedir(d);
    *out = t;
    return n;
}

static void warn(json_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(json_t *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) >= 0)
        json_array_append_new(w, json_string(s));
    free(s);
    va_end(ap);
}

static char *bracketed(const char *path)
{
    char *t = mtb_read_file(path, NULL);
    if (!t)
        return NULL;
    char *a = strchr(t, '['), *b = a ? strchr(a, ']') : NULL;
    char *out = a && b ? strndup(a + 1, (size_t)(b - a - 1)) : mtb_strdup(trimmed(t));
    free(t);
    return out;
}

/* governor and boost of the profile's CPUs */
static void check_clock(const struct mtb_machine *m, const char *in, json_t *checks, json_t *warnings)
{
    json_t *gov = json_object();
    int exposed = 0;
    for (int c = 0; c < MTB_MAX_CPUS; c++) {
        if (!in[c])
            continue;
        char path[512], key[16];
        snprintf(path, sizeof path, "%s/cpu%d/cpufreq/scaling_governor", cpu_sysfs(), c);
        snprintf(key, sizeof key, "%d", c);
        char *g = trimmed(mtb_read_file(path, NULL));
        json_object_set_new(gov, key, g ? json_string(g) : json_null());
        if (g) {
            exposed = 1;
            const char *want = m->governor[0] ? m->governor : "performance";
            if (strcmp(g, want))
                warn(warnings, "CPU %d: frequency governor '%s', not '%s'", c, g, want);
        }
        free(g);
    }
    json_object_set_new(checks, "governor", json_pack("{s:o,s:b}", "per_cpu", gov, "exposed", exposed));
    char *bp = mtb_asprintf("%s/cpufreq/boost", cpu_sysfs()), *tp = mtb_asprintf("%s/intel_pstate/no_turbo", cpu_sysfs());
    char *boost = trimmed(mtb_read_file(bp, NULL));
    char *noturbo = trimmed(mtb_read_file(tp, NULL));
    free(bp);
    free(tp);
    int boost_on = (boost && !strcmp(boost, "1")) || (noturbo && !strcmp(noturbo, "0"));
    json_object_set_new(checks, "boost",
                        json_pack("{s:o,s:o,s:b}", "cpufreq_boost", boost ? json_string(boost) : json_null(),
                                  "intel_no_turbo", noturbo ? json_string(noturbo) : json_null(), "on", boost_on));
    if (boost_on)
        warn(warnings, "turbo/boost is on: clocks vary with load and temperature");
    free(boost);
    free(noturbo);

}

/* SMT siblings of the service CPUs, inside the set or with the client's */
static void check_smt(const struct mtb_machine *m, const char *svc, const char *cli, json_t *checks, json_t *warnings)
{
    json_t *smt = json_array();
    for (int c = 0; c < MTB_MAX_CPUS; c++) {
        if (!svc[c])
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/cpu%d/topology/thread_siblings_list", cpu_sysfs(), c);
        char *sib = trimmed(mtb_read_file(path, NULL));
        int s[MTB_MAX_CPUS];
        int n = sib ? mtb_cpulist_parse(sib, s, MTB_MAX_CPUS) : 0;
        for (int i = 0; i < n; i++) {
            if (s[i] == c || s[i] < 0 || s[i] >= MTB_MAX_CPUS)
                continue;
            if (svc[s[i]] && s[i] > c) {
                json_array_append_new(smt, json_sprintf("%d,%d in the service set", c, s[i]));
                if (!m->smt_siblings_ok)
                    warn(warnings, "CPUs %d and %d are SMT siblings inside the service set", c, s[i]);
            }
            if (cli[s[i]]) {
                json_array_append_new(smt, json_sprintf("%d (service) with %d (client)", c, s[i]));
                warn(warnings, "service CPU %d and client CPU %d are SMT siblings (they share a core)", c, s[i]);
            }
        }
        free(sib);
    }
    json_object_set_new(checks, "smt_siblings", smt);

}

int mtb_quiet_load_busy(double load1, int ncpu, double busiest_cpu)
{
    return load1 > MTB_QUIET_LOAD_PER_CPU * ncpu && busiest_cpu >= MTB_QUIET_IDLE_CPU;
}

/* background load: loadavg, busy CPUs, and who keeps them busy */
static void check_load(const char *in, double sample_s, json_t *checks, json_t *warnings)
{
    double l1 = 0, l5 = 0, l15 = 0;
    char *la = mtb_read_file("/proc/loadavg", NULL);
    if (la)
        sscanf(la, "%lf %lf %lf", &l1, &l5, &l15);
    free(la);
    int ncpu = mtb_ncpus();
    json_object_set_new(checks, "loadavg", json_pack("{s:f,s:f,s:f}", "1m", l1, "5m", l5, "15m", l15));
    struct task *t0 = NULL, *t1 = NULL;
    size_t n0 = read_tasks(&t0);
    struct mtb_cpu_ticks *ta = ticks_or_zero();
    double start = mtb_mono();
    struct timespec ts = { (time_t)sample_s, (long)((sample_s - (long)sample_s) * 1e9) };
    nanosleep(&ts, NULL);
    struct mtb_cpu_ticks *tb = ticks_or_zero();
    const struct mtb_cpu_tick *a = ta->c, *b = tb->c;
    size_t n1 = read_tasks(&t1);
    double secs = mtb_mono() - start;
    long hz = sysconf(_SC_CLK_TCK);
    json_t *busy = json_object(), *procs = json_array();
    /* the load average lags: it is judged with the busiest CPU of the whole
     * machine over the sample (most); the CPUs of the runs are named */
    double most = 0;
    for (int c = 0; c < MTB_MAX_CPUS; c++) {
        if (b[c].total <= a[c].total)
            continue;
        double u = (double)(b[c].busy - a[c].busy) / (double)(b[c].total - a[c].total);
        most = u > most ? u : most;
        if (!in[c])
            continue;
        char key[16];
        snprintf(key, sizeof key, "%d", c);
        json_object_set_new(busy, key, json_real(u));
        if (u > 0.3)
            warn(warnings, "CPU %d was %.0f%% busy over %.1f s before the runs", c, 100 * u, secs);
    }
    pid_t self = getpid();
    for (size_t i = 0; i < n1; i++) {
        if (t1[i].pid == self || t1[i].cpu < 0 || t1[i].cpu >= MTB_MAX_CPUS || !in[t1[i].cpu])
            continue;
        unsigned long long before = 0;
        int found = 0;
        for (size_t j = 0; j < n0 && !found; j++)
            if (t0[j].tid == t1[i].tid) {
                before = t0[j].ticks;
                found = 1;
            }
        double share = found && secs > 0 ? (double)(t1[i].ticks - before) / (double)hz / secs : 0;
        if (share >= 0.2) {
            json_array_append_new(procs, json_pack("{s:i,s:i,s:s,s:i,s:f}", "pid", t1[i].pid, "tid", t1[i].tid, "comm",
                                                   t1[i].comm, "cpu", t1[i].cpu, "share", share));
            warn(warnings, "busy process on CPU %d: pid %d (%s) used %.0f%% of a CPU", t1[i].cpu, t1[i].pid, t1[i].comm,
                 100 * share);
        }
    }
    json_object_set_new(checks, "busiest_cpu", json_real(most));
    if (mtb_quiet_load_busy(l1, ncpu, most))
        warn(warnings, "load average %.2f on %d CPUs: something else is running", l1, ncpu);
    else if (l1 > MTB_QUIET_LOAD_PER_CPU * ncpu)
        json_object_set_new(checks, "loadavg_tail",
                            json_sprintf("load average %.2f on %d CPUs, but no CPU was %.0f%% busy over the %.1f s "
                                         "sample: the tail of work that has ended",
                                         l1, ncpu, 100 * MTB_QUIET_IDLE_CPU, secs));
    json_object_set_new(checks, "busy_cpus", busy);
    json_object_set_new(checks, "busy_processes", procs);
    json_object_set_new(checks, "sample_seconds", json_real(secs));
    free(ta);
    free(tb);
    free(t0);
    free(t1);
}

/* swap and transparent huge pages */
static void check_memory(json_t *checks, json_t *warnings)
{
    /* swap */
    char *mi = mtb_read_file("/proc/meminfo", NULL);
    long long st = 0, sf = 0;
    char *p;
    if (mi && (p = strstr(mi, "SwapTotal:")))
        sscanf(p, "SwapTotal: %lld", &st);
    if (mi && (p = strstr(mi, "SwapFree:")))
        sscanf(p, "SwapFree: %lld", &sf);
    free(mi);
    json_object_set_new(checks, "swap", json_pack("{s:I,s:I}", "total_kb", (json_int_t)st, "used_kb", (json_int_t)(st - sf)));
    if (st > 0)
        warn(warnings, "swap is on (%lld MiB, %lld MiB used): a swapped page costs milliseconds", st / 1024,
             (st - sf) / 1024);

    /* transparent huge pages */
    char *thp = bracketed("/sys/kernel/mm/transparent_hugepage/enabled");
    char *defrag = bracketed("/sys/kernel/mm/transparent_hugepage/defrag");
    json_object_set_new(checks, "thp", json_pack("{s:o,s:o}", "enabled", thp ? json_string(thp) : json_null(), "defrag",
                                                 defrag ? json_string(defrag) : json_null()));
    if (thp && !strcmp(thp, "always"))
        warn(warnings, "transparent huge pages 'always': khugepaged and compaction run during measurements");
    free(thp);
    free(defrag);

}

/* Check the machine for the profile, sampling CPU use for sample_s seconds.
 * @return {"quiet": bool, "warnings": [...], "checks": {...}}; *checks_out
 * and *warnings_out its two (borrowed), for the checks made after it */
static json_t *mtb_quiet_check(const struct mtb_machine *m, double sample_s, json_t **checks_out,
                               json_t **warnings_out)
{
    json_t *warnings = json_array(), *checks = json_object();
    char in[MTB_MAX_CPUS], svc[MTB_MAX_CPUS] = { 0 }, cli[MTB_MAX_CPUS] = { 0 };
    profile_cpus(m, in);
    for (int i = 0; i < m->nsvc; i++)
        svc[m->svc_cpus[i]] = 1;
    for (int i = 0; i < m->ncli; i++)
        cli[m->cli_cpus[i]] = 1;
    check_clock(m, in, checks, warnings);
    check_smt(m, svc, cli, checks, warnings);
    check_load(in, sample_s, checks, warnings);
    check_memory(checks, warnings);
    char cpus[512];
    int list[MTB_MAX_CPUS], nl = 0;
    for (int c = 0; c < MTB_MAX_CPUS; c++)
        if (in[c])
            list[nl++] = c;
    mtb_cpulist_format(list, nl, cpus, sizeof cpus);
    *checks_out = checks;
    *warnings_out = warnings;
    return json_pack("{s:b,s:s,s:o,s:o}", "quiet", json_array_size(warnings) == 0, "cpus", cpus, "warnings", warnings,
                     "checks", checks);
}

/* @return the sample's seconds, or -1 with e set */
static double mtb_quiet_sample_seconds(struct mtb_err *e)
{
    const char *s = getenv("MTEBENCH_QUIET_SAMPLE");
    char *end = NULL;
    double v = s && *s ? strtod(s, &end) : 0;
    if (!s || !*s)
        return MTB_QUIET_SAMPLE_S;
    if (*end || !(v >= 0.05 && v <= 10))
        return mtb_err_set(e, MTB_ERR_INPUT, "MTEBENCH_QUIET_SAMPLE=%s: seconds from 0.05 to 10 expected", s);
    return v;
}

json_t *mtb_quiet_environment(const struct mtb_machine *m, int strict, int quiet_output, int with_floor,
                              struct mtb_err *e)
{
    double sample = mtb_quiet_sample_seconds(e);
    if (sample < 0 || (with_floor && mtb_floor_enabled(e) < 0)) /* refused before the machine is changed */
        return NULL;
    json_t *changes = json_array();
    mtb_quiet_apply(m, changes);
    json_t *checks, *w;
    json_t *q = mtb_quiet_check(m, sample, &checks, &w);
    /* the machine's latency floor (run/floor.h), beside the load it was measured under */
    json_t *floor = with_floor ? mtb_floor_check(e)
                               : json_pack("{s:s}", "skipped", "a single run: a plan's quiet check measures it");
    json_object_set_new(checks, "floor", floor);
    struct mtb_floor_view fv;
    mtb_floor_view_read(floor, &fv);
    if (fv.best[MTB_FLOOR_P99].present && !quiet_output)
        fprintf(stderr, "mtebench: latency floor on loopback: p99 %.0f us at best (at %g/s; mtebench doctor)\n",
                fv.best[MTB_FLOOR_P99].us, fv.best[MTB_FLOOR_P99].rate);
    mtb_floor_view_free(&fv);
    json_object_set_new(q, "changed", changes);
    json_object_set_new(q, "strict", json_boolean(strict));
    size_t i;
    json_t *v;
    if (!quiet_output || strict)
        json_array_foreach(w, i, v) fprintf(stderr, "mtebench: not quiet: %s\n", json_string_value(v));
    if (strict && json_array_size(w)) {
        mtb_quiet_restore();
        mtb_err_set(e, MTB_ERR_INPUT, "the machine is not quiet (%zu finding%s above); refused because of --strict",
                    json_array_size(w), json_array_size(w) == 1 ? "" : "s");
        json_decref(q);
        return NULL;
    }
    json_t *env = mtb_provenance(m);
    json_object_set_new(env, "quiet", q);
    return env;
}
