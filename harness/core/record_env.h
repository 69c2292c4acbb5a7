/* record_env.h - where and how a run ran, as its record says it (the
 * record's platform, kernel, build, environment and affinity blocks, its
 * times), read once into a struct: what the summary's environment section
 * (and the history's identity columns) are made of.
 *
 * A key the record lacks reads as "" (a string), 0 (a flag, HWCAP2_MTE
 * too: "no"), -1 (cpus), NULL (the times, the CPUs affinity read back), as
 * those views showed it. The strings are the record's own: valid while it is.
 *
 *   struct mtb_rec_env e;
 *   mtb_rec_env_read(rec, &e);
 *   ... e.cpu_model, e.uname_r, e.mte_enabled ...
 *   mtb_rec_env_free(&e);
 */
#ifndef MTB_RECORD_ENV_H
#define MTB_RECORD_ENV_H
#include <jansson.h>
#include <stddef.h>

/* a compiler the build used: its name and version text */
struct mtb_rec_compiler {
    const char *name, *version;
};

struct mtb_rec_env {
    /* platform */
    const char *cpu_model, *platform, *qemu, *accel;
    int has_platform;            /* a platform block that is not empty */
    long long cpus;              /* -1: not recorded (not an integer) */
    int emulated;
    /* kernel */
    const char *kernel_name, *uname_r, *uname_v, *machine;
    /* build */
    const char *build_service, *build_version, *build_variant, *build_target, *build_key;
    const char *mtebench_version;
    /* environment (provenance) */
    int has_provenance;          /* the record has an environment block */
    const char *hostname;        /* the machine it ran on, as the environment says ("" when absent) */
    const char *midr, *microcode, *kernel_cmdline, *glibc;
    struct mtb_rec_compiler *compilers; /* in the record's order */
    size_t ncompilers;
    int mte_enabled, arm64_nomte;
    int hwcap2_mte;              /* 1, 0 (also when absent), -1: null (not an arm64 machine) */
    int has_quiet;               /* the record says whether it was quiet (a boolean) */
    int quiet;                   /* the quiet-machine check found nothing */
    json_t *quiet_warnings;      /* its findings: an array of strings (NULL: none) */
    const char *quiet_cpus;      /* the CPUs it looked at, or NULL */
    json_t *quiet_floor;         /* the latency floor it measured (core/floor_rows.h; borrowed), or NULL */
    /* affinity */
    int has_affinity;
    json_t *affinity;            /* the block (borrowed; core/work.h's account reads it), or NULL */
    const char *service_cpus, *service_requested, *client_cpus, *client_requested; /* cpus NULL: not read back */
    const char *started, *finished; /* NULL: not recorded */
    double steal_share;          /* the hypervisor's share of the run's CPUs (steal.share); NaN: not recorded */
    /* REPS=auto's rule (the record's "sequential") and the run length it chose */
    json_t *sequential;          /* the block (borrowed; NULL: a fixed REPS=N) */
    double seq_precision, seq_max_time_s; /* NaN when absent */
    double seq_looks, seq_look_conf;      /* the rule's planned looks and each look's level (NaN when absent) */
    int has_run_length;          /* run_length.chosen_s is a number */
    double pilot_s, pilot_pairs, chosen_s;
};

void mtb_rec_env_read(json_t *rec, struct mtb_rec_env *e);
/** the same of an environment block alone (mtb_quiet_environment's, not
 *  yet in a record) */
void mtb_rec_env_of_environment(json_t *env, struct mtb_rec_env *e);
void mtb_rec_env_free(struct mtb_rec_env *e);
#endif
