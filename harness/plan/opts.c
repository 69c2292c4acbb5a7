/* opts.c - see opts.h */
#include "plan/opts.h"
#include "plan/platforms.h"
#include "analysis/seqstop.h"
#include "drivers/driver.h"
#include "core/kernel.h"
#include "agent/remote.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "invalid WHAT 'VAL' (accepted: ...)" */
static int bad(struct mtb_err *e, const char *what, const char *val, const char *accepted)
{
    return mtb_err_set(e, MTB_ERR_INPUT, "invalid %s '%s' (accepted: %s)", what, val, accepted);
}

int mtb_opts_fraction(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || (*end && strcmp(end, "%")) || !(v > 0))
        return -1;
    if (*end == '%' || v >= 1)
        v = round(v * 1e7) / 1e9; /* 99.9% is 0.999, not 0.9990000000000001 */
    if (v < lo - 1e-12 || v > hi + 1e-12)
        return -1;
    *out = v;
    return 0;
}

/* The platform: as given, "host" on a server host, else the default for this
 * machine (with a notice); then the kernel it boots (vm: a named kernel or
 * an Image; elsewhere only "host"). */
static int resolve_platform(struct mtb_opts *o, int remote, struct mtb_err *e)
{
    if (remote && !(o->platform && *o->platform))
        o->platform = "host"; /* the server host's own CPU; its mtebench refuses a mode it cannot prove */
    if (o->platform && *o->platform) {
        o->p = mtb_platform_find(o->platform);
        if (!o->p)
            return bad(e, "PLATFORM", o->platform, mtb_platform_names());
    } else {
        const char *notice = NULL;
        o->p = mtb_platform_default(&notice);
        if (notice && !o->quiet)
            fprintf(stderr, "mtebench: notice: %s\n", notice);
    }
    if (o->p->named_kernels) {
        if (!strcmp(o->kernel, "host")) {
            o->kernel = "stock";
            if (!o->quiet)
                fprintf(stderr, "mtebench: notice: PLATFORM=%s boots a named kernel; using KERNEL=stock\n", o->p->name);
        }
        if (!strchr(o->kernel, '/') && !mtb_kernel_known(o->kernel)) {
            char acc[600];
            snprintf(acc, sizeof acc, "%s (configs/kernel/*.conf), or the path of an arm64 Image", mtb_kernel_names());
            return bad(e, "KERNEL", o->kernel, acc);
        }
    } else if (strcmp(o->kernel, "host") != 0) {
        return bad(e, "KERNEL", o->kernel, "host (named kernels need PLATFORM=vm)");
    }
    char why[MTB_ERRLEN];
    /* on a server host, its own mtebench checks the platform and the mode */
    if (!remote && !o->p->usable(why, sizeof why))
        return mtb_err_set(e, MTB_ERR_INPUT, "PLATFORM=%s is not usable here: %s", o->p->name, why);
    if (remote && o->p->run)
        return mtb_err_set(e, MTB_ERR_INPUT, "PLATFORM=%s cannot run on a server host (accepted there: host, emu)",
                           o->p->name);
    if (!remote && o->m && !o->p->mode_ok(o->m, why, sizeof why))
        return mtb_err_set(e, MTB_ERR_INPUT, "%s", why);
    if (remote && !(o->p = mtb_remote_platform(o->p))) /* the platform placed on the server host: its runs are
                                                         * performed there */
        return mtb_err_set(e, MTB_ERR_FAIL, "PLATFORM=%s: too many platforms placed on a server host", o->platform);
    return 0;
}

/* The allocators (allocator.h): each known, and usable on the platform
 * (a server host's mtebench checks its own) */
static int resolve_allocators(struct mtb_opts *o, int remote, struct mtb_err *e)
{
    char why[MTB_ERRLEN];
    o->nallocs = mtb_allocator_list(o->allocator && *o->allocator ? o->allocator : "glibc", o->allocs,
                                    MTB_MAX_ALLOCATORS, why, sizeof why);
    if (!o->nallocs)
        return mtb_err_set(e, MTB_ERR_INPUT, "ALLOCATOR: %s", why);
    for (size_t i = 0; i < o->nallocs && !remote; i++)
        if (!mtb_allocator_usable(o->allocs[i], o->p->name, o->p->target(), why, sizeof why))
            return mtb_err_set(e, MTB_ERR_INPUT, "ALLOCATOR=%s cannot run on PLATFORM=%s: %s", o->allocs[i]->name,
                               o->p->name, why);
    return 0;
}

/* A variant the service's recipe lacks: refused naming the services that
 * have it (stacktag: memcached's alone so far), else the accepted ones */
static int bad_variant(const struct mtb_recipe *r, const char *t, struct mtb_err *e)
{
    char names[256], have[256] = "", err[MTB_ERRLEN];
    struct mtb_recipe *all = NULL;
    size_t n = 0;
    mtb_recipe_variant_names(r, names, sizeof names);
    if (mtb_recipes_all(&all, &n, err, sizeof err) == 0) {
        for (size_t i = 0; i < n; i++) {
            if (mtb_recipe_has_variant(&all[i], t))
                snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", have[0] ? ", " : "", all[i].name);
            mtb_recipe_free(&all[i]);
        }
        free(all);
    }
    if (have[0])
        return mtb_err_set(e, MTB_ERR_INPUT,
                           "variant %s is not built for %s (its recipe has no [variant %s]; the services that have "
                           "it: %s); accepted for %s: %s", t, r->name, t, have, r->name, names);
    return bad(e, "variant", t, names);
}

/* the variants named: one, or a comma list of them (bench) */
static int resolve_variants(struct mtb_opts *o, struct mtb_err *e)
{
    char *copy = mtb_strdup(o->variant), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save))
        if (!mtb_recipe_has_variant(o->recipe, t))
            rc = bad_variant(o->recipe, t, e);
        else if (mtb_recipe_variant_bugs(o->recipe, t) && (!o->cmd || strcmp(o->cmd, "build") != 0) &&
                 !(o->bug && !strcmp(o->cmd, "run")))
            rc = mtb_err_set(e, MTB_ERR_INPUT, "variant %s of %s carries re-introduced bugs: detection trials only "
                             "(mtebench detect), never measured", t, o->recipe->name);
    free(copy);
    return rc;
}

/* the workload's driver can honour it, and the hosts can run it */
static int check_driver(struct mtb_opts *o, struct mtb_err *e)
{
    struct mtb_workload *w = &o->wl;
    char why[MTB_ERRLEN];
    const char *dname;
    const struct mtb_driver *drv = mtb_driver_of(w, &dname);
    if (!drv)
        return mtb_err_set(e, MTB_ERR_INPUT, "%s: unknown driver '%s'", o->recipe->path, dname);
    if (drv->embedded && o->mach.client_hosts[0])
        return mtb_err_set(e, MTB_ERR_INPUT, "%s runs in process (its driver %s is the measured program and its own "
                           "load; no server to reach): client hosts (%s) cannot load it; drop CLIENT_HOSTS / "
                           "--client-hosts (or the profile's client_hosts with --client-hosts=none)", o->recipe->name,
                           dname, o->mach.client_hosts);
    if (o->mach.client_hosts[0] && !o->recipe->run.protocol && !drv->client_hosts)
        return mtb_err_set(e, MTB_ERR_INPUT, "%s cannot be loaded from client hosts (%s): client hosts run mtload "
                           "(memcache or http) or pgbench, and %s's recipe names no mtload protocol ([run] protocol) "
                           "and its driver %s runs on no client host; drop CLIENT_HOSTS / --client-hosts",
                           o->recipe->name, o->mach.client_hosts, o->recipe->name, dname);
    if (drv->arrival && (o->wset.set & (1u << MTB_WL_arrival)) && strcmp(w->arrival, drv->arrival))
        return mtb_err_set(e, MTB_ERR_INPUT, "%s's open loop draws %s arrivals only: ARRIVAL=%s cannot be honoured "
                           "(leave ARRIVAL out or give %s)", dname, drv->arrival, w->arrival, drv->arrival);
    if (mtb_driver_check(drv, w, why, sizeof why) != 0) /* every field honoured or refused, before any run */
        return mtb_err_set(e, MTB_ERR_INPUT, "%s", why);
    if (drv->arrival) /* the record says what the driver draws (with a rate: in closed loop none is recorded) */
        snprintf(w->arrival, sizeof w->arrival, "%s", drv->arrival);
    return 0;
}

/* The variants named and the workload: the recipe's, the machine profile's
 * threads, then the options given */
static int resolve_load(struct mtb_opts *o, struct mtb_err *e)
{
    if (o->variant && resolve_variants(o, e) != 0)
        return -1;
    if (mtb_workload_defaults(o->recipe, o->workload, &o->wl, e) != 0)
        return -1;
    struct mtb_workload *w = &o->wl;
    if (o->params) /* the far run of a trial whose workload sets params (an embedded service's bug) */
        w->params = o->params;
    if (o->mach.service_threads)
        w->service_threads = o->mach.service_threads;
    if (o->mach.loadgen_threads)
        w->threads = o->mach.loadgen_threads;
    mtb_workload_set_apply(&o->wset, w);
    if (w->conns < w->threads)
        return mtb_err_set(e, MTB_ERR_INPUT, "CONNS=%ld is fewer than THREADS=%ld (each thread needs a connection)",
                           w->conns, w->threads);
    if (check_driver(o, e) != 0)
        return -1;
    /* emulated figures are not the published ones: aim at what emulation can give */
    if (mtb_platform_emulated(o->p) && !o->precision_given) {
        o->precision = MTB_EMU_PRECISION;
        o->emu_aims = 1;
    }
    return 0;
}

void mtb_opts_note_emu(const struct mtb_opts *o, long reps)
{
    if (o->emu_aims && reps == MTB_REPS_AUTO)
        fprintf(stderr, "mtebench: emulated: REPS=auto aims at +-%.0f%% (hardware's default is +-2%%, which "
                        "emulation's pair noise puts beyond MAX_TIME; emulated figures are not the published ones; "
                        "PRECISION= to choose)\n", 100 * MTB_EMU_PRECISION);
}

int mtb_opts_resolve(struct mtb_opts *o, struct mtb_err *e)
{
    char err[MTB_ERRLEN];
    if (!o->service || !*o->service)
        return mtb_err_set(e, MTB_ERR_INPUT, "no SERVICE given (e.g. SERVICE=memcached; see mtebench list)");
    o->recipe = mtb_recipe_find(o->service, err, sizeof err);
    if (!o->recipe)
        return mtb_err_set(e, MTB_ERR_INPUT, "%s", err);
    if (o->mode) {
        o->m = mtb_mode_find(o->mode);
        if (!o->m)
            return bad(e, "MODE", o->mode, mtb_mode_names());
    }
    if (mtb_machine_load_hosts(o->machine, o->server_host, o->client_hosts, &o->mach, err, sizeof err) != 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "%s", err);
    if (o->server_address)
        snprintf(o->mach.server_address, sizeof o->mach.server_address, "%s", o->server_address);
    int remote = mtb_machine_remote(&o->mach);
    if (resolve_platform(o, remote, e) || resolve_allocators(o, remote, e) || resolve_load(o, e))
        return -1;
    if (o->mach.client_hosts[0] && !remote)
        return mtb_err_set(e, MTB_ERR_INPUT, "client hosts (%s) need a server host (--server-host or the profile's "
                           "server_host): the clients must reach the service over the network", o->mach.client_hosts);
    return 0;
}

int mtb_opts_kernel_ensure(const struct mtb_opts *o, struct mtb_err *e)
{
    if (!o->p->named_kernels)
        return 0;
    struct mtb_kernel k;
    char err[MTB_ERRLEN];
    if (mtb_kernel_ensure(o->kernel, NULL, 0, o->quiet, &k, err, sizeof err) != 0)
        return mtb_err_set(e, MTB_ERR_FAIL, "%s", err);
    mtb_kernel_free(&k);
    return 0;
}
