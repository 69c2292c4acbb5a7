/* summary_env.c - the summary's environment section (summary_env.h):
 * everything the records say of where and how they ran (machine,
 * platform, kernel, build, provenance, the quiet check, pinning), each
 * text once, and the first start and last finish. */
#include "analysis/summary_env.h"
#include "core/record_env.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* the environment's lists, each text once */
#define ENV_LISTS(X)                                                                                        \
    X(cpu_model) X(cpus) X(kernels) X(platforms) X(qemu) X(builds) X(mtebench_versions) X(midr) X(microcode) \
    X(kernel_cmdline) X(glibc) X(compilers) X(mte) X(pinning) X(quiet)
enum env_list {
#define X(k) ENV_##k,
    ENV_LISTS(X)
#undef X
    ENV_N
};
struct env_lists {
    json_t *l[ENV_N];
};

/* text, once, into the environment's list k */
static void env_add(struct env_lists *env, enum env_list k, const char *text) { mtb_jadd_unique(env->l[k], text); }

/* what a record says of its machine, platform, kernel and build */
static void env_machine(struct env_lists *env, const struct mtb_rec_env *e)
{
    env_add(env, ENV_cpu_model, e->cpu_model);
    if (e->cpus >= 0) {
        char *s = mtb_asprintf("%lld", e->cpus);
        env_add(env, ENV_cpus, s);
        free(s);
    }
    char *ks = mtb_asprintf("%s: %s %s (%s)", *e->kernel_name ? e->kernel_name : "?", e->uname_r, e->uname_v, e->machine);
    env_add(env, ENV_kernels, ks);
    free(ks);
    char *ps = mtb_asprintf("%s%s", e->platform, e->emulated ? " (emulated: not hardware timing)" : "");
    env_add(env, ENV_platforms, ps);
    free(ps);
    env_add(env, ENV_qemu, e->qemu);
    if (*e->build_key) {
        char *bs = mtb_asprintf("%s %s %s %s: %.12s", e->build_service, e->build_version, e->build_variant,
                                e->build_target, e->build_key);
        env_add(env, ENV_builds, bs);
        free(bs);
    }
    env_add(env, ENV_mtebench_versions, e->mtebench_version);
}

/* a run's environment block: provenance and the quiet check */
static void env_provenance(struct env_lists *env, const struct mtb_rec_env *e)
{
    env_add(env, ENV_midr, e->midr);
    env_add(env, ENV_microcode, e->microcode);
    env_add(env, ENV_kernel_cmdline, e->kernel_cmdline);
    env_add(env, ENV_glibc, e->glibc);
    for (size_t i = 0; i < e->ncompilers; i++) {
        char *cs = mtb_asprintf("%s: %s", e->compilers[i].name, e->compilers[i].version);
        env_add(env, ENV_compilers, cs);
        free(cs);
    }
    char *ms = mtb_asprintf("MTE %s (arm64.nomte %s, HWCAP2_MTE %s)",
                            e->mte_enabled ? "enabled" : "not enabled in this kernel", e->arm64_nomte ? "set" : "not set",
                            e->hwcap2_mte < 0 ? "n/a" : e->hwcap2_mte ? "yes" : "no");
    env_add(env, ENV_mte, ms);
    free(ms);
    if (e->quiet)
        env_add(env, ENV_quiet, "quiet (no finding)");
    size_t wi;
    json_t *wv;
    json_array_foreach(e->quiet_warnings, wi, wv) env_add(env, ENV_quiet, json_string_value(wv));
}

/* Everything the records say of where and how they ran, each text once. */
json_t *mtb_summary_environment(json_t *records)
{
    static const char *const keys[ENV_N] = {
#define X(k) #k,
        ENV_LISTS(X)
#undef X
    };
    struct env_lists lists, *env = &lists;
    for (int k = 0; k < ENV_N; k++)
        lists.l[k] = json_array();
    const char *first = NULL, *last = NULL;
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        struct mtb_rec_env e;
        mtb_rec_env_read(rec, &e);
        env_machine(env, &e);
        if (e.has_provenance)
            env_provenance(env, &e);
        if (e.has_affinity) {
            char *as = mtb_asprintf("service on CPUs %s (asked %s), client on %s (asked %s)",
                                    e.service_cpus ? e.service_cpus : "?", e.service_requested,
                                    e.client_cpus ? e.client_cpus : "?", e.client_requested);
            env_add(env, ENV_pinning, as);
            free(as);
        }
        if (e.started && (!first || strcmp(e.started, first) < 0))
            first = e.started;
        if (e.finished && (!last || strcmp(e.finished, last) > 0))
            last = e.finished;
        mtb_rec_env_free(&e);
    }
    json_t *out = json_object();
    for (int k = 0; k < ENV_N; k++)
        json_object_set_new(out, keys[k], lists.l[k]);
    json_object_set_new(out, "first_started", first ? json_string(first) : json_null());
    json_object_set_new(out, "last_finished", last ? json_string(last) : json_null());
    return out;
}

