/* run.c - see run.h. A run is a sequence of named steps, each in the module
 * that owns it: header (here), prove (proof.c), set up, start, ready
 * (service.c), drive (driver_*.c, perf.c), stop (service.c), collect and
 * write (here). */
#include "run/run.h"
#include "run/faultrep.h"
#include "run/core.h"
#include "core/countmark.h"
#include "core/loadlog.h"
#include "core/load_rows.h"
#include "core/fault_rows.h"
#include "core/record_outcome.h"
#include "core/work_rows.h"
#include "drivers/driver.h"
#include "run/perf.h"
#include "run/pmu_mte.h"
#include "core/hostfacts.h"
#include "core/platform.h"
#include "lib/proc.h"
#include "lib/procfs.h"
#include "run/proof.h"
#include "run/quiet.h"
#include "run/service.h"
#include "lib/util.h"
#include "lib/files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static json_t *kernel_info(const char *name)
{
    struct utsname u;
    uname(&u);
    return json_pack("{s:s,s:s,s:s,s:s}", "name", name, "uname_r", u.release, "uname_v", u.version,
                     "machine", u.machine);
}

static json_t *platform_info(const struct mtb_platform *p)
{
    char *cpuinfo = mtb_read_file("/proc/cpuinfo", NULL);
    char model[256] = "unknown";
    if (cpuinfo) {
        char *m = strstr(cpuinfo, "model name");
        if (!m)
            m = strstr(cpuinfo, "CPU part");
        if (m && (m = strchr(m, ':'))) {
            m += 2;
            size_t l = strcspn(m, "\n");
            snprintf(model, sizeof model, "%.*s", (int)l, m);
        }
    }
    free(cpuinfo);
    struct utsname u;
    uname(&u);
    json_t *o = json_pack("{s:s,s:b,s:s,s:s,s:i}", "name", p->name, "emulated", mtb_platform_emulated(p),
                          "host_arch", u.machine, "cpu_model", model, "cpus", mtb_ncpus());
    if (mtb_platform_emulated(p)) {
        const char *q = mtb_qemu_user_version();
        json_object_set_new(o, "qemu", json_string(q ? q : "unknown"));
        json_object_set_new(o, "label", json_string("emulated: not hardware timing"));
    }
    return o;
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    return json_load_file(path, 0, &je);
}

/* The state of one run between its steps. */
struct run_ctx {
    const struct mtb_run *run;
    json_t *rec, *proof, *load;
    char why[1024];
    const struct mtb_driver *drv;
    const char *drvname;
    char *envv[10];            /* tagging, fault reporter (and the embedded smaps sampler, an allocator's
                                 tagging turned off, a stacktag variant's stacks, a detect trial's
                                 bug switch and plant), NULL-terminated */
    char *faultp, *smapsp, *stackp; /* stackp: a stacktag variant's stacks.txt (probe/mtestack.c), else NULL */
    int smaps_ok;             /* the service's smaps show `mt` here */
    int svc_cpus[MTB_MAX_CPUS];
    char cli_seen[256];
    struct mtb_service svc;
    struct mtb_drive d;
};

/* header: the record's identity (config, build, platform, kernel, machine),
 * the driver, the CPUs, the mode's environment */
static int step_header(struct run_ctx *c)
{
    const struct mtb_run *run = c->run;
    const struct mtb_recipe *r = run->recipe;
    mtb_mkdir_p(run->dir);
    c->rec = mtb_run_record(run, NULL);
    json_object_set_new(c->rec, "platform", platform_info(run->platform));
    json_object_set_new(c->rec, "kernel", kernel_info(run->kernel));
    json_object_set_new(c->rec, "machine", mtb_machine_json(run->machine));
    if (run->environment)
        json_object_set(c->rec, "environment", run->environment);
    c->drv = mtb_driver_of(run->wl, &c->drvname);
    /* the service's CPUs: a core sweep point's, else the profile's */
    const struct mtb_workload *w = run->wl;
    int nsvc = w->svc_cpus[0] ? mtb_cpulist_parse(w->svc_cpus, c->svc_cpus, MTB_MAX_CPUS) : -1;
    if (nsvc <= 0)
        nsvc = mtb_machine_svc_slice(run->machine, 0, c->svc_cpus);
    c->svc = (struct mtb_service){ .recipe = r, .wl = w, .build = run->build, .platform = run->platform,
                                   .dir = run->dir, .user = geteuid() == 0 ? r->run.user : NULL,
                                   .env = c->envv, .cpus = c->svc_cpus, .ncpus = nsvc,
                                   .numa_node = run->machine->numa_node, .port_fd = -1 };
    if (!c->drv) {
        snprintf(c->why, sizeof c->why, "%s: unknown driver '%s'", r->path, c->drvname);
        return -1;
    }
    json_object_set_new(c->rec, "driver", json_string(c->drv->name));
    return mtb_driver_check(c->drv, run->wl, c->why, sizeof c->why);
}

/* The environment shared by the probe and the measured program. */
static void mode_env(struct run_ctx *c)
{
    const struct mtb_run *run = c->run;
    c->faultp = mtb_asprintf("%s/fault.txt", run->dir);
    c->smapsp = mtb_asprintf("%s/smaps-mt.txt", run->dir);
    c->envv[0] = mtb_mode_env(run->mode);
    /* MTEBENCH_EXTRA_PRELOAD: a test hook (tests/shim/mtbplant.c) preloaded
     * after the fault reporter; the record names it, so such a run is never
     * mistaken for a measurement */
    const char *extra = getenv("MTEBENCH_EXTRA_PRELOAD");
    if (extra && *extra)
        json_object_set_new(c->rec, "extra_preload", json_string(extra));
    /* an allocator in glibc's place (allocator.h) comes first: its malloc serves the program */
    const char *alloc = run->allocator ? run->allocator->preload : NULL;
    /* a stacktag variant: its stacks made PROT_MTE before main (probe/mtestack.c) */
    const struct mtb_recipe_variant *rv = mtb_recipe_variant(run->recipe, run->variant);
    c->stackp = rv && mtb_recipe_yes(rv->stack_tagging)
                    ? mtb_asprintf("%s/stacks.txt", run->dir) : NULL;
    char *stk = c->stackp ? mtb_asprintf("%s/build/%s/libmtestack.so:", mtb_root(), run->platform->target())
                          : mtb_strdup("");
    /* a fault report's allocation record (probe/mtealloc.c) first of all:
     * its malloc passes each call on to the allocator after it */
    char *rec = run->fault_report ? mtb_asprintf("%s/build/%s/libmtealloc.so:", mtb_root(), run->platform->target())
                                  : mtb_strdup("");
    if (run->fault_report)
        json_object_set_new(c->rec, "fault_report", json_true());
    c->envv[1] = mtb_asprintf("LD_PRELOAD=%s%s%s%s%s/build/%s/libmtefault.so%s%s", rec, alloc ? alloc : "", alloc ? ":" : "",
                              stk, mtb_root(), run->platform->target(), extra && *extra ? ":" : "",
                              extra && *extra ? extra : "");
    free(rec);
    free(stk);
    c->envv[2] = mtb_asprintf("MTEBENCH_FAULT_FILE=%s", c->faultp);
    /* an embedded service (db_bench) has no server process to inspect: it
     * samples its own smaps (libmtefault.so) where the kernel shows tags */
    c->smaps_ok = run->platform->smaps_proof && mtb_host_is_arm64();
    int k = 3;
    if (c->drv && c->drv->embedded && c->smaps_ok)
        c->envv[k++] = mtb_asprintf("MTEBENCH_SMAPS_FILE=%s", c->smapsp);
    /* Scudo tags whenever the CPU has MTE, whatever the mode asks: in mode off
     * the fault reporter turns its tagging off before main (mtefault.c), so
     * that its plain/off is the allocator alone */
    if (alloc && !run->mode->tagged)
        c->envv[k++] = mtb_strdup("MTEBENCH_ALLOCATOR_UNTAGGED=1");
    if (c->stackp)
        c->envv[k++] = mtb_asprintf("MTEBENCH_STACK_FILE=%s", c->stackp);
    /* a detect trial's bug: its switch and plant are the service's to read
     * (the -bugs and -plant builds' patches) */
    if (run->bug_switch)
        c->envv[k++] = mtb_asprintf("MTEBENCH_BUG=%s", run->bug_switch);
    if (run->plant)
        c->envv[k++] = mtb_asprintf("MTEBENCH_PLANT=%s", run->plant);
}

/* prove: the service's user can run it, the mode is set and proved */
static int step_prove(struct run_ctx *c)
{
    const struct mtb_run *run = c->run;
    if (mtb_service_check_user(&c->svc, c->why, sizeof c->why) != 0)
        return -1;
    if (mtb_mode_prefer(run->mode, c->why, sizeof c->why) != 0)
        return -1;
    int proved = mtb_proof_run(run->platform, run->mode, c->envv, &c->proof, c->why, sizeof c->why);
    /* the probe's deliberate faults are its own, proved or not: the fault
     * file starts afresh (left, a failed proof read as the service's fault) */
    unlink(c->faultp);
    json_object_set_new(c->rec, "proof", c->proof);
    if (proved)
        proved = mtb_proof_allocator(c->proof, run->allocator ? run->allocator : mtb_allocator_default(), run->mode,
                                     c->why, sizeof c->why);
    if (!proved) {
        char *m = mtb_asprintf("mode %s not proved on %s: %s", run->mode->name, run->platform->name, c->why);
        snprintf(c->why, sizeof c->why, "%s", m);
        free(m);
        return -1;
    }
    unlink(c->smapsp);
    if (c->stackp)
        unlink(c->stackp);
    return 0;
}

/* set up, start, ready: a server's life until it answers (none for an
 * embedded service); then what its smaps show */
static int step_service(struct run_ctx *c)
{
    if (c->run->core) { /* the service (and what it starts) may dump a core; raised after the proof, whose
                         * probe faults on purpose, and kept for the rest of this process (one run) */
        struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
        if (setrlimit(RLIMIT_CORE, &rl) != 0)
            mtb_warn("--core: cannot raise RLIMIT_CORE: %s", strerror(errno));
    }
    const struct mtb_run *run = c->run;
    const struct mtb_machine *mach = run->machine;
    const struct mtb_workload *w = run->wl;
    c->d = (struct mtb_drive){ .recipe = run->recipe, .wl = w, .build = run->build, .platform = run->platform,
                               .rundir = run->dir, .svc_cpus = c->svc_cpus, .nsvc = c->svc.ncpus, .svc_env = c->envv,
                               .user = c->svc.user, .timeout = w->warmup + w->duration + 300,
                               .numa_node = mach->numa_node, .ncli = mach->ncli, .client_seen = c->cli_seen,
                               .service_seen = c->svc.seen, .trigger = run->trigger };
    mtb_cpulist_format(mach->cli_cpus, mach->ncli, c->d.client_cpus, sizeof c->d.client_cpus);
    const char *lin = run->recipe->run.listen_in;
    if (run->external_load && (c->drv->embedded || (!strstr(run->recipe->run.args ? run->recipe->run.args : "", "{listen}") &&
                                                    !(lin && !strcmp(lin, "setup"))))) {
        snprintf(c->why, sizeof c->why, "%s cannot take load from client hosts: %s", run->recipe->name,
                 c->drv->embedded ? "the measured program is its own load"
                                  : "its recipe's [run] args have no {listen} and no listen_in = setup (it listens on 127.0.0.1 only)");
        return -1;
    }
    c->svc.listen = run->external_load ? "0.0.0.0" : NULL;
    if (!c->drv->embedded) {
        if (mtb_service_setup(&c->svc, &c->d, c->rec, c->why, sizeof c->why) != 0 ||
            mtb_service_start(&c->svc, c->rec, c->why, sizeof c->why) != 0 ||
            mtb_service_ready(&c->svc, c->rec, c->why, sizeof c->why) != 0)
            return -1;
        c->d.port = c->svc.port;
        if (c->smaps_ok) {
            int sh = -1;
            json_t *names = json_array();
            json_object_set_new(c->proof, "smaps_mt", json_integer(mtb_proof_smaps_mt(c->svc.proc.pid, &sh, names)));
            json_object_set_new(c->proof, "smaps_mt_shared", json_integer(sh));
            json_object_set_new(c->proof, "smaps_mt_shared_maps", names);
        }
    }
    if (!c->smaps_ok) {
        json_object_set_new(c->proof, "smaps_mt", json_null());
        json_object_set_new(c->proof, "smaps_note",
                            json_string(mtb_platform_emulated(run->platform)
                                            ? "not visible under qemu-user (tags live in qemu's own memory)"
                                            : "no MTE on this host"));
    }
    return 0;
}

/* perf's record object once the driver returned */
static json_t *perf_result(struct mtb_perf *perf, const char *events, const char *perfbin, int embedded, json_t *load)
{
    if (perf->on) {
        struct mtb_load_view l;
        mtb_load_view_read(load, &l);
        return mtb_perf_stop(perf, isfinite(l.requests) ? l.requests : 0);
    }
    if (!*events)
        return NULL;
    return mtb_perf_unavailable(events, !perfbin ? "perf is not installed (Debian: linux-perf)"
                                        : embedded ? "perf stat could not be attached to the embedded service"
                                                   : "perf stat could not be started");
}

/* steal: the hypervisor's share of the run's CPUs (the service's and the
 * client's) while it was driven, warm-up included (quiet.h) */
static void steal_json(struct run_ctx *c, struct mtb_cpu_ticks *t0)
{
    struct mtb_cpu_ticks *t1 = mtb_cpu_ticks_read();
    const struct mtb_machine *m = c->run->machine;
    char in[MTB_MAX_CPUS] = { 0 };
    for (int i = 0; i < c->svc.ncpus; i++)
        if (c->svc_cpus[i] >= 0 && c->svc_cpus[i] < MTB_MAX_CPUS)
            in[c->svc_cpus[i]] = 1;
    for (int i = 0; i < m->ncli; i++)
        if (m->cli_cpus[i] >= 0 && m->cli_cpus[i] < MTB_MAX_CPUS)
            in[m->cli_cpus[i]] = 1;
    int cpus[MTB_MAX_CPUS], n = 0;
    for (int i = 0; i < MTB_MAX_CPUS; i++)
        if (in[i])
            cpus[n++] = i;
    double share = mtb_cpu_steal_share(t0, t1, n ? in : NULL);
    if (share >= 0) {
        char list[256];
        mtb_cpulist_format(cpus, n, list, sizeof list);
        json_object_set_new(c->rec, "steal",
                            json_pack("{s:f,s:s,s:s}", "share", share, "cpus", n ? list : "all", "source",
                                      "/proc/stat: steal ticks over all ticks of these CPUs while the load ran "
                                      "(the hypervisor running other work; 0 on bare metal)"));
    }
    free(t0);
    free(t1);
}

/* The perf events of a run: the machine profile's, and on MTE hardware
 * (host platform, not emulated) the PMU's MTE events this machine lists
 * (pmu_mte.c), with those it lacks named in *mte ({events, missing, why});
 * NULL *mte elsewhere. */
static char *perf_events_of(const struct mtb_run *run, json_t **mte)
{
    char *events = mtb_machine_perf_list(run->machine);
    *mte = NULL;
    if (mtb_platform_emulated(run->platform) || strcmp(run->platform->name, "host") || !mtb_host_has_mte())
        return events;
    char ev[512], why[256];
    json_t *missing = json_array();
    mtb_pmu_mte_here(ev, sizeof ev, missing, why, sizeof why);
    *mte = json_pack("{s:s,s:o,s:s}", "events", ev, "missing", missing, "why", why);
    if (*ev) {
        char *all = mtb_asprintf("%s%s%s", events, *events ? "," : "", ev);
        free(events);
        events = all;
    }
    return events;
}

/* The service's tasks now ({tid, pid, comm}: every thread of it and of
 * every process descended from it), added to had (tasks already listed stay): the
 * counting plugin counts by task (CONTEXTIDR_EL1), and the host gives the
 * service's own work from these (core/work.c). NULL when it is not started
 * here (an embedded service runs in its driver). */
static json_t *service_tasks(const struct mtb_service *svc, json_t *had)
{
    enum { MAX_TASKS = 4096 };
    if (!svc->started)
        return had;
    struct mtb_proc_task *t = mtb_calloc(MAX_TASKS, sizeof *t);
    int n = mtb_proc_tree_tasks(svc->proc.pid, t, MAX_TASKS);
    json_t *a = had ? had : json_array();
    struct mtb_svc_task *old;
    size_t nold;
    mtb_svc_tasks_read(a, &old, &nold);
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (size_t k = 0; k < nold && !seen; k++)
            seen = old[k].tid == t[i].tid;
        for (int k = 0; k < i && !seen; k++)
            seen = t[k].tid == t[i].tid;
        if (!seen)
            json_array_append_new(a, json_pack("{s:i,s:i,s:s}", "tid", t[i].tid, "pid", t[i].pid, "comm", t[i].comm));
    }
    free(old);
    free(t);
    return a;
}

/* While a counted load runs, the service's tasks listed every 100 ms: a
 * task that lives only while the load runs (PostgreSQL's backend, which
 * ends with its connection) is listed too. The thread inherits this
 * process's CPUs, the load generator's, at its start. */
struct task_sampler {
    const struct mtb_service *svc;
    json_t *tasks;
    pthread_mutex_t lock;
    pthread_cond_t stop_cond;
    int stop;
    pthread_t th;
};

static void *task_sampler_main(void *arg)
{
    struct task_sampler *ts = arg;
    pthread_mutex_lock(&ts->lock);
    while (!ts->stop) {
        ts->tasks = service_tasks(ts->svc, ts->tasks);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&ts->stop_cond, &ts->lock, &until);
    }
    pthread_mutex_unlock(&ts->lock);
    return NULL;
}

/* @return 0, or -1 when no thread could be started (the tasks are then
 * listed at the windows' ends only) */
static int task_sampler_start(struct task_sampler *ts, const struct mtb_service *svc, json_t *tasks)
{
    ts->svc = svc;
    ts->tasks = tasks;
    ts->stop = 0;
    pthread_mutex_init(&ts->lock, NULL);
    pthread_cond_init(&ts->stop_cond, NULL);
    return pthread_create(&ts->th, NULL, task_sampler_main, ts) == 0 ? 0 : -1;
}

static json_t *task_sampler_stop(struct task_sampler *ts)
{
    pthread_mutex_lock(&ts->lock);
    ts->stop = 1;
    pthread_cond_signal(&ts->stop_cond);
    pthread_mutex_unlock(&ts->lock);
    pthread_join(ts->th, NULL);
    pthread_mutex_destroy(&ts->lock);
    pthread_cond_destroy(&ts->stop_cond);
    return ts->tasks;
}

/* A counted run's windows around its load (core/countmark.h): this
 * process on the load generator's CPUs meanwhile, the service's tasks
 * listed before, during and after */
struct counting {
    cpu_set_t self_cpus;
    int pinned, sampling;
    struct task_sampler sampler;
    json_t *tasks;
};

static void counting_open(struct run_ctx *c, struct counting *k)
{
    const struct mtb_run *run = c->run;
    /* this process polls its children while the load runs: on the load
     * generator's CPUs, so that the plugin's counts of the service's
     * vCPUs hold the service's work and the kernel's, not the harness's */
    cpu_set_t cli;
    CPU_ZERO(&cli);
    for (int i = 0; i < run->machine->ncli; i++)
        if (run->machine->cli_cpus[i] >= 0 && run->machine->cli_cpus[i] < CPU_SETSIZE)
            CPU_SET(run->machine->cli_cpus[i], &cli);
    k->pinned = CPU_COUNT(&cli) > 0 && sched_getaffinity(0, sizeof k->self_cpus, &k->self_cpus) == 0 &&
                sched_setaffinity(0, sizeof cli, &cli) == 0;
    /* window 1: the service idle for as long as the load will run (its
     * timers, its background threads, the kernel's ticks); window 2: the
     * load. The work account is window 2 less window 1, per request
     * (core/work.c): time-driven work is not per-request work */
    double idle = run->wl->warmup + run->wl->duration;
    mtb_count_mark(MTB_COUNT_OPEN); /* the vm's counting plugin counts from here (core/countmark.h) */
    struct timespec ts = { (time_t)idle, (long)((idle - (double)(time_t)idle) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !mtb_proc_interrupted)
        ;
    mtb_count_mark(MTB_COUNT_CLOSE);
    k->tasks = service_tasks(&c->svc, NULL);
    mtb_count_mark(MTB_COUNT_OPEN);
    k->sampling = c->svc.started && task_sampler_start(&k->sampler, &c->svc, k->tasks) == 0;
}

static void counting_close(struct run_ctx *c, struct counting *k)
{
    mtb_count_mark(MTB_COUNT_CLOSE);
    if (k->sampling)
        k->tasks = task_sampler_stop(&k->sampler);
    k->tasks = service_tasks(&c->svc, k->tasks);
    if (k->pinned)
        sched_setaffinity(0, sizeof k->self_cpus, &k->self_cpus);
    /* the vm's host replaces this with the plugin's counts, and reads the
     * service's tasks from it (core/work.c) */
    json_object_set_new(c->rec, "work", json_pack("{s:s,s:o}", "note", "the measured window was marked for the vm "
                                                  "platform's counting plugin; nothing counted it here",
                                                  "tasks", k->tasks ? k->tasks : json_array()));
}

/* drive: preload so that reads hit, then warm-up + measurement, with the
 * machine profile's perf events counted on the service and the service's
 * own counters read before and after */
static int step_drive(struct run_ctx *c)
{
    const struct mtb_run *run = c->run;
    if (c->drv->preload(&c->d, c->why, sizeof c->why) != 0)
        return -1;
    json_t *mte = NULL;
    char *events = perf_events_of(run, &mte);
    char *perfbin = *events ? mtb_which("perf") : NULL;
    struct mtb_perf perf = { .dir = run->dir, .events = events, .raw = run->machine->perf_raw,
                             .warmup = run->wl->warmup, .emulated = mtb_platform_emulated(run->platform) };
    /* a service that does not answer its counter query (stopped, or not
     * ours) ends the run: the query has a time limit */
    json_t *before = mtb_service_counters(&c->svc);
    if (c->svc.counters_hung) {
        snprintf(c->why, sizeof c->why, "no answer to the counter query in %d s (is %s stopped?)",
                 MTB_SERVICE_COUNTERS_LIMIT, run->recipe->name);
        free(perfbin);
        free(events);
        return -1;
    }
    if (c->svc.started && perfbin)
        mtb_perf_start(&perf, c->svc.proc.pid, run->wl->warmup);
    if (c->drv->embedded && perfbin) {
        c->d.measured_start = mtb_perf_attach;
        c->d.measured_arg = &perf;
    }
    c->d.external = run->external_load;
    json_t *own = NULL;
    c->d.own_counters = &own;
    struct mtb_cpu_ticks *t0 = mtb_cpu_ticks_read();
    struct counting cnt = { 0 };
    if (run->count)
        counting_open(c, &cnt);
    c->load = (run->external_load ? &mtb_driver_external : c->drv)->measure(&c->d, c->why, sizeof c->why);
    if (run->count)
        counting_close(c, &cnt);
    steal_json(c, t0);
    mtb_service_seen_update(&c->svc); /* the threads it runs during the load */
    mtb_hlog_from_load(run->dir, c->load); /* wrk, pgbench, db_bench: their histogram as an .hlog */
    json_t *po = perf_result(&perf, events, perfbin, c->drv->embedded, c->load);
    if (!po && mte) /* no event to count at all: the MTE events it lacks are still named */
        po = mtb_perf_unavailable("", "no perf event asked of this machine: the profile names none and perf list "
                                      "shows none of the PMU's MTE events");
    if (po && mte) /* the MTE events asked of the PMU, and those it lacks */
        json_object_set(po, "mte", mte);
    json_decref(mte);
    if (po)
        json_object_set_new(c->rec, "perf", po);
    free(perfbin);
    free(events);
    if (before)
        json_object_set_new(c->rec, "service_counters", mtb_service_counters_since(&c->svc, before));
    else if (own) { /* an embedded service's, from its own output */
        json_object_set_new(c->rec, "service_counters",
                            json_pack("{s:O,s:s}", "delta", own, "note",
                                      "printed by the measured program itself, over its measured benchmark"));
    }
    json_decref(own);
    if (c->svc.counters_hung) { /* the load is kept in the record, but the run is not ok */
        snprintf(c->why, sizeof c->why, "no answer to the counter query in %d s (is %s stopped?)",
                 MTB_SERVICE_COUNTERS_LIMIT, run->recipe->name);
        return -1;
    }
    return 0;
}

/* The CPUs asked for and those the tasks could use, read back. */
static json_t *affinity_json(const struct run_ctx *c)
{
    const struct mtb_machine *mach = c->run->machine;
    char req_s[256], req_c[256];
    mtb_cpulist_format(c->svc_cpus, c->svc.ncpus, req_s, sizeof req_s);
    mtb_cpulist_format(mach->cli_cpus, mach->ncli, req_c, sizeof req_c);
    int shared = 0;
    for (int i = 0; i < c->svc.ncpus; i++)
        for (int j = 0; j < mach->ncli; j++)
            shared |= c->svc_cpus[i] == mach->cli_cpus[j];
    return json_pack("{s:b,s:s,s:o,s:s,s:o,s:o,s:s}", "shares_cpus_with_client", shared && !c->drv->embedded,
                     "service_requested", req_s, "service", c->svc.seen[0] ? json_string(c->svc.seen) : json_null(),
                     "client_requested", req_c, "client", c->cli_seen[0] ? json_string(c->cli_seen) : json_null(),
                     "numa_node", mach->numa_node >= 0 ? json_integer(mach->numa_node) : json_null(), "source",
                     "Cpus_allowed_list of every task in /proc/PID/task/*/status, read while running");
}

/* collect: smaps of an embedded service, affinity, the load and its
 * summary, the preload's totals; a service that died fails the run */
static int step_collect(struct run_ctx *c)
{
    const struct mtb_run *run = c->run;
    if (c->drv->embedded && c->smaps_ok) {
        int sh = -1;
        json_object_set_new(c->proof, "smaps_mt", json_integer(mtb_proof_smaps_max(c->smapsp, &sh)));
        json_object_set_new(c->proof, "smaps_mt_shared", json_integer(sh));
        json_object_set_new(c->proof, "smaps_scope", json_string("the embedded program's own /proc/self/smaps, "
                                                                 "largest count sampled every 0.2 s"));
    }
    int died = c->svc.started && mtb_proc_poll(&c->svc.proc);
    json_object_set_new(c->rec, "affinity", affinity_json(c));
    if (c->load) {
        json_object_set_new(c->rec, "summary", mtb_run_summary(c->load));
        json_object_set_new(c->rec, "load", c->load);
        struct mtb_load_view l;
        mtb_load_view_read(c->load, &l);
        if (l.errors_over_limit && !run->quiet)
            mtb_warn("run %d/%d (%s %s/%s): %.3f%% of the requests were answered with an error, lost or never sent "
                     "(limit %.3g%%; see load.totals.accounting in the record)", run->index, run->total,
                     run->recipe->name, run->variant, run->mode->name,
                     100 * l.error_rate, 100 * l.error_limit);
    }
    char *prep = mtb_asprintf("%s/preload.json", run->dir);
    json_t *pre = load_json(prep);
    if (pre) {
        struct mtb_load_view pv; /* the preload's own load (mtload/1) */
        mtb_load_view_read(pre, &pv);
        json_object_set_new(c->rec, "preload", json_pack("{s:O}", "totals", pv.totals));
    }
    json_decref(pre);
    free(prep);
    if (died) {
        char dsc[64];
        snprintf(c->why, sizeof c->why, "%s died during the run (%s)", run->recipe->name,
                 mtb_proc_describe(c->svc.proc.status, dsc, sizeof dsc));
        return -1;
    }
    return c->load ? 0 : -1;
}

/* a stacktag variant: the stacks its set-up made PROT_MTE (probe/mtestack.c),
 * into proof.stack_tagging; a served run without its main stack is an error */
static enum mtb_run_status stack_proof(struct run_ctx *c, enum mtb_run_status status)
{
    FILE *f = fopen(c->stackp, "r");
    char line[128];
    int main_ok = 0, threads = 0;
    while (f && fgets(line, sizeof line, f)) {
        main_ok |= !strncmp(line, "main ", 5);
        threads += !strncmp(line, "thread ", 7);
    }
    if (f)
        fclose(f);
    json_object_set_new(c->proof, "stack_tagging",
                        json_pack("{s:b,s:i,s:s}", "main_stack", main_ok, "thread_stacks", threads, "how",
                                  "libmtestack.so: [stack] and each thread's stack mprotect'ed PROT_MTE before they "
                                  "run instrumented code (stacks.txt)"));
    if (status == MTB_RUN_OK && !main_ok) {
        snprintf(c->why, sizeof c->why, "variant %s: its stack was not made PROT_MTE (no main line in %s): stack "
                 "tagging checked nothing", c->run->variant, c->stackp);
        return MTB_RUN_ERROR;
    }
    return status;
}

/* --core: the faulting process's core, where core_pattern put it (a path
 * whose only specifier is %p, as a vm guest's /init sets it), slimmed into
 * the run's directory as `core` (run/core.h) and the original removed;
 * the record's core object says what was kept, or why nothing */
static void keep_core(struct run_ctx *c, json_t *fault)
{
    char pat[512] = "", why[MTB_ERRLEN];
    FILE *pf = fopen("/proc/sys/kernel/core_pattern", "r"); /* a proc file: its size says 0 */
    if (pf && fgets(pat, sizeof pat, pf))
        pat[strcspn(pat, "\n")] = 0;
    if (pf)
        fclose(pf);
    struct mtb_fault_view fv;
    mtb_fault_view_read(fault, &fv);
    int pid = (int)fv.pid;
    const char *ps = strstr(pat, "%p");
    json_t *o;
    if (pat[0] != '/' || !ps || strchr(ps + 2, '%') || memchr(pat, '%', (size_t)(ps - pat)))
        o = json_pack("{s:o}", "error", json_sprintf("core_pattern is '%s': --core needs a path whose only specifier "
                                                     "is %%p (a vm guest's)", pat));
    else {
        char *src = mtb_asprintf("%.*s%d%s", (int)(ps - pat), pat, pid, ps + 2), *dst = mtb_asprintf("%s/core", c->run->dir);
        struct stat st;
        for (int i = 0; i < 20 && stat(src, &st) != 0; i++) /* the kernel has written it by the time the parent reaps */
            usleep(100000);
        uint64_t addr = strtoull(*fv.addr ? fv.addr : "0", NULL, 16);
        if (stat(src, &st) != 0)
            o = json_pack("{s:o}", "error", json_sprintf("no core at %s (the process's RLIMIT_CORE, or the kernel's "
                                                         "refusal: suid_dumpable)", src));
        else if (mtb_core_slim(src, dst, addr, why, sizeof why) != 0)
            o = json_pack("{s:s}", "error", why);
        else {
            struct mtb_core k;
            struct stat ds;
            int segs = mtb_core_open(dst, &k, why, sizeof why) == 0 ? mtb_core_tag_segments(&k) : -1;
            int tag = segs >= 0 ? mtb_core_tag(&k, addr) : -1;
            mtb_core_close(&k);
            o = json_pack("{s:s,s:I,s:I,s:i,s:s}", "file", "core", "bytes", (json_int_t)(stat(dst, &ds) == 0 ? ds.st_size : 0),
                          "kernel_bytes", (json_int_t)st.st_size, "tag_segments", segs, "from", src);
            if (tag >= 0)
                json_object_set_new(o, "memory_tag", json_integer(tag));
            unlink(src);
        }
        free(src);
        free(dst);
    }
    json_object_set_new(c->rec, "core", o);
    mtb_fault_view_free(&fv);
}

/* write: a fault overrides the status; the record written atomically */
static enum mtb_run_status step_write(struct run_ctx *c, enum mtb_run_status status)
{
    const struct mtb_run *run = c->run;
    if (c->stackp && c->proof)
        status = stack_proof(c, status);
    json_t *fault = c->faultp ? mtb_fault_read(c->faultp) : NULL;
    if (fault && c->run->core)
        keep_core(c, fault);
    if (fault) {
        status = MTB_RUN_FAULT;
        json_object_set_new(c->rec, "fault", fault);
        struct mtb_fault_view fv;
        mtb_fault_view_read(fault, &fv);
        snprintf(c->why, sizeof c->why, "%s: %s at %s (signal %d, si_code %d)", run->recipe->name, fv.kind, fv.addr,
                 (int)fv.signal, (int)fv.si_code);
        mtb_fault_view_free(&fv);
    }
    json_object_set_new(c->rec, "status",
                        json_string(status == MTB_RUN_OK ? "ok" : status == MTB_RUN_FAULT ? "fault" : "error"));
    if (status != MTB_RUN_OK)
        json_object_set_new(c->rec, "error", json_string(c->why));
    json_object_set_new(c->rec, "logs", json_pack("{s:s,s:s}", "service", "service.log", "driver", "mtload.log"));
    if (mtb_record_warnings_add(c->rec) && !run->quiet) {
        size_t wi;
        json_t *wv;
        struct mtb_rec_outcome ro;
        mtb_rec_outcome_read(c->rec, &ro);
        json_array_foreach(ro.warnings, wi, wv)
            mtb_warn("run %d/%d: %s", run->index, run->total, json_string_value(wv));
    }
    if (mtb_record_end(c->rec, run->dir) != status) { /* not written */
        status = MTB_RUN_ERROR;
        struct mtb_rec_outcome ro;
        mtb_rec_outcome_read(c->rec, &ro);
        snprintf(c->why, sizeof c->why, "%s", ro.error ? ro.error : "(null)");
    }
    if (status != MTB_RUN_OK && !run->quiet) {
        mtb_warn("run %d/%d (%s %s/%s): %s", run->index, run->total, run->recipe->name, run->variant,
                 run->mode->name, c->why);
        if (status == MTB_RUN_ERROR && c->svc.started) {
            char *svclog = mtb_asprintf("%s/service.log", run->dir);
            mtb_service_log_tail(svclog, 20);
            free(svclog);
        }
    }
    return status;
}

enum mtb_run_status mtb_run_one(const struct mtb_run *run, json_t **record)
{
    if (run->platform->run) /* performed elsewhere: a vm's guest, a server host */
        return run->platform->run(run, record);
    struct run_ctx c = { .run = run };
    enum mtb_run_status status = MTB_RUN_ERROR;
    int ok = step_header(&c) == 0;
    mode_env(&c);
    if (ok && step_prove(&c) == 0 && step_service(&c) == 0) {
        int drove = step_drive(&c) == 0; /* a failed preload: no load, why says so */
        if (step_collect(&c) == 0 && drove)
            status = MTB_RUN_OK;
    }
    mtb_service_stop(&c.svc, c.rec);
    mtb_mode_restore();
    status = step_write(&c, status);
    for (char **e = c.envv; *e; e++)
        free(*e);
    free(c.faultp);
    free(c.smapsp);
    free(c.stackp);
    *record = c.rec;
    return status;
}
