/* record_env.c - see record_env.h */
#include "core/record_env.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

void mtb_rec_env_read(json_t *rec, struct mtb_rec_env *e)
{
    memset(e, 0, sizeof *e);
    json_t *p = json_object_get(rec, "platform"), *k = json_object_get(rec, "kernel");
    json_t *b = json_object_get(rec, "build"), *env = json_object_get(rec, "environment");
    e->cpu_model = mtb_jstr(p, "cpu_model");
    e->platform = mtb_jstr(p, "name");
    e->qemu = mtb_jstr(p, "qemu");
    e->hostname = mtb_jstr(env, "hostname");
    e->accel = mtb_jstr(p, "accel");
    e->has_platform = json_object_size(p) > 0;
    e->cpus = json_is_integer(json_object_get(p, "cpus")) ? (long long)json_integer_value(json_object_get(p, "cpus")) : -1;
    e->emulated = json_is_true(json_object_get(p, "emulated"));
    e->kernel_name = mtb_jstr(k, "name");
    e->uname_r = mtb_jstr(k, "uname_r");
    e->uname_v = mtb_jstr(k, "uname_v");
    e->machine = mtb_jstr(k, "machine");
    e->build_service = mtb_jstr(b, "service");
    e->build_version = mtb_jstr(b, "version");
    e->build_variant = mtb_jstr(b, "variant");
    e->build_target = mtb_jstr(b, "target");
    e->build_key = mtb_jstr(b, "key");
    e->mtebench_version = mtb_jstr(rec, "mtebench_version");
    e->has_provenance = json_is_object(env);
    e->midr = mtb_jstr(env, "midr");
    e->microcode = mtb_jstr(env, "microcode");
    e->kernel_cmdline = mtb_jstr(env, "kernel_cmdline");
    e->glibc = mtb_jstr(env, "glibc");
    json_t *cs = json_object_get(env, "compilers"), *cv;
    const char *ck;
    e->compilers = mtb_calloc(json_object_size(cs) + 1, sizeof *e->compilers);
    json_object_foreach(cs, ck, cv) if (json_is_string(cv))
    {
        e->compilers[e->ncompilers].name = ck;
        e->compilers[e->ncompilers++].version = json_string_value(cv);
    }
    json_t *m = json_object_get(env, "mte"), *h = json_object_get(m, "hwcap2_mte");
    e->mte_enabled = json_is_true(json_object_get(m, "enabled"));
    e->arm64_nomte = json_is_true(json_object_get(m, "arm64_nomte"));
    e->hwcap2_mte = json_is_null(h) ? -1 : json_is_true(h);
    json_t *q = json_object_get(env, "quiet");
    e->has_quiet = json_is_boolean(json_object_get(q, "quiet"));
    e->quiet = json_is_true(json_object_get(q, "quiet"));
    e->quiet_warnings = json_object_get(q, "warnings");
    e->quiet_cpus = json_string_value(json_object_get(q, "cpus"));
    e->quiet_floor = json_object_get(json_object_get(q, "checks"), "floor");
    json_t *af = json_object_get(rec, "affinity");
    e->has_affinity = json_is_object(af);
    e->affinity = af;
    e->service_cpus = json_string_value(json_object_get(af, "service"));
    e->service_requested = mtb_jstr(af, "service_requested");
    e->client_cpus = json_string_value(json_object_get(af, "client"));
    e->client_requested = mtb_jstr(af, "client_requested");
    e->started = json_string_value(json_object_get(rec, "started"));
    e->finished = json_string_value(json_object_get(rec, "finished"));
    json_t *sq = json_object_get(rec, "sequential"), *rl = json_object_get(sq, "run_length");
    e->steal_share = mtb_jnum(json_object_get(rec, "steal"), "share");
    e->sequential = sq;
    e->seq_precision = mtb_jnum(sq, "precision");
    e->seq_max_time_s = mtb_jnum(sq, "max_time_s");
    e->seq_looks = mtb_jnum(sq, "looks");
    e->seq_look_conf = mtb_jnum(sq, "look_conf");
    e->has_run_length = json_is_number(json_object_get(rl, "chosen_s"));
    e->pilot_s = mtb_jnum(rl, "pilot_s");
    e->pilot_pairs = mtb_jnum(rl, "pilot_pairs");
    e->chosen_s = mtb_jnum(rl, "chosen_s");
}

void mtb_rec_env_free(struct mtb_rec_env *e)
{
    free(e->compilers);
    memset(e, 0, sizeof *e);
}

void mtb_rec_env_of_environment(json_t *env, struct mtb_rec_env *e)
{
    json_t *rec = json_pack("{s:O}", "environment", env);
    mtb_rec_env_read(rec, e);
    json_decref(rec); /* the strings are env's own, which rec only held */
}
