/* agent.h - the agent step: run `mtebench ARGS` somewhere else (a VM's
 * guest, a remote host) and bring back what it wrote.
 *
 * A transport is how we get there: four operations in a table. The console
 * transport (transport_console.c) boots qemu-system-aarch64 from a named
 * kernel with the project's guest image and gets the results back over the
 * virtio console (one boot per exec); an ssh transport reaches a remote
 * host. Adding a transport is one file and one row in the registry (transports[] in agent.c)
 * (agent.c); nothing else in the harness knows which one ran.
 *
 * The agent step (mtb_agent_exec) is always:
 *     s = t->open(target)                        reach / prepare the far side
 *     t->put(s, local, remote, sha256)           each input (a service build, ...)
 *     t->exec(s, argv, deadline, local_dir)      run mtebench there, bring {out} back
 *     t->close(s)
 *
 * The far side: the transport makes sure the agent itself is there after
 * open (mtebench, mtload, the aarch64 probes, services/<name>/ without
 * build.sh, under the far side's root, with MTEBENCH_ROOT set to it); put
 * adds the caller's inputs. In exec's argv two placeholders are replaced by
 * the transport: "{root}" (the far root, e.g. "/mtb" in the guest) and
 * "{out}" (an empty directory on the far side whose content is brought
 * back). Arguments contain no spaces (the console passes them on the kernel
 * command line).
 */
#ifndef MTB_AGENT_H
#define MTB_AGENT_H
#include "lib/argv.h"
#include "lib/err.h"
#include <jansson.h>
#include <stddef.h>

struct mtb_run;
struct mtb_argv;

/* Where to go and how; filled by the caller (a platform). */
struct mtb_agent_target {
    const char *where;        /* the transport's address. console: a named kernel or an
                                 Image path; ssh: "[user@]host[:port]" */
    const char *workdir;      /* local directory (created) for the transport's own logs:
                                 console.log, qemu.log, ssh.log ... */
    double connect_timeout;   /* seconds until the far side is up (boot, connect); 0: default */
    int cpus, mem_mb;         /* console: the guest's size (0: 2 CPUs, 2048 MB); ssh ignores */
    int quiet;                /* no progress lines on stderr */
    const char *count_out;    /* console: load the counting plugin (core/work.h), its counts to
                                 this file; NULL: no plugin */
    const char *isolate;      /* console: the guest's CPUs kept out of the scheduler's load
                                 balancing (isolcpus=domain,LIST); NULL: none */
};

/* What an exec saw. Filled by exec (zeroed first, exit_status -1). */
struct mtb_agent_result {
    int connected;            /* the far side came up (guest booted, ssh connected) */
    int finished;             /* the far mtebench ended and everything came back */
    int exit_status;          /* the far mtebench's exit status; -1 unknown */
    double connect_seconds;   /* exec start until the far side was up (vm: the boot) */
    double total_seconds;
    char uname_r[128];        /* the far side's kernel release; "" unknown */
    char guest_image[65];     /* console: the guest image's hash (its initrd's key); "" other transports */
    json_t *info;             /* facts for records: {"transport": name, ...} (console:
                                 accel, qemu, command, smp, mem_mb, boot_seconds...);
                                 owned by the caller (json_decref) */
    char far_out[512];        /* "" or: the connection was lost and the far {out} stays
                                 there (the far command goes on, or is stopped by its
                                 watchdog): what `fetch` takes later */
};

struct mtb_session;           /* a transport's own state */

struct mtb_transport {
    const char *name;         /* "console", "ssh" */
    const char *summary;
    /* Prepare a session to target->where (the console checks the kernel
     * and qemu; ssh connects and puts the agent). @return a session, or
     * NULL with err naming what is wrong. */
    struct mtb_session *(*open)(const struct mtb_agent_target *target, char *err, size_t errlen);
    /* Make the local file or directory `local` available at `remote`
     * (relative to the far root) for the following execs. sha256: a hash
     * naming local's content (a build's key will do); when the far side
     * already holds that hash at remote the copy is skipped. NULL: always
     * copy. @return 0, or -1 with err. */
    int (*put)(struct mtb_session *s, const char *local, const char *remote, const char *sha256,
               char *err, size_t errlen);
    /* Run the far mtebench with argv (argv[0] is its subcommand, e.g.
     * "run"; "{root}" and "{out}" replaced), at most deadline_s seconds
     * once the far side is up. Everything it wrote under {out}, and its
     * stdout+stderr as agent.log, is copied into local_dir (created).
     * @return 0 when it ended and everything came back (its own exit
     * status in res->exit_status), -1 otherwise with err (res says how
     * far it got; the transport's logs stay in target->workdir). */
    int (*exec)(struct mtb_session *s, char *const *argv, double deadline_s, const char *local_dir,
                struct mtb_agent_result *res, char *err, size_t errlen);
    /* End the session (stop what open started, remove the far side's
     * {out}); s may be NULL. */
    void (*close)(struct mtb_session *s);
    /* Optional (NULL: the far side takes no commands while an exec runs,
     * as the console's guest): run a shell command line on the far side, in
     * its root, during an exec too; its stdout into *out (heap, may be
     * NULL). @return its exit status, or -1 with err. */
    int (*sh)(struct mtb_session *s, const char *cmdline, double deadline_s, char **out, char *err, size_t errlen);
    /* Optional: the far side's facts once open (ssh: hostname, address,
     * clock offset, ...); borrowed. */
    json_t *(*info)(struct mtb_session *s);
    /* Optional: bring the far {out} an earlier exec left there (its
     * res->far_out: the connection was lost) into local_dir, if the far
     * command ended by itself, and remove it there. @return 0 brought back,
     * 1 nothing to bring back (err says why), -1 with err. */
    int (*fetch)(struct mtb_session *s, const char *far_out, const char *local_dir, struct mtb_agent_result *res,
                 char *err, size_t errlen);
};

/* The transports, by name ("console", "ssh"), or NULL. */
const struct mtb_transport *mtb_transport_find(const char *name);
/* Put t in the registry in place of the transport of its name (or beside
 * them): how the tests put a recording transport where a run looks for
 * its own. @return 1 it replaced one, 0 it was added, -1 the registry is
 * full (8: nothing registered). */
int mtb_transport_register(const struct mtb_transport *t);

/* One input to put before exec. */
struct mtb_agent_put {
    const char *local, *remote, *sha256;
};

/* What the agent step does there: the inputs put, the far command run. */
struct mtb_agent_job {
    const struct mtb_agent_put *puts; /* put before exec (nputs of them), or NULL */
    int nputs;
    char *const *argv;                /* the far mtebench's arguments (NULL-terminated) */
    double deadline_s;                /* exec's limit */
    const char *local_dir;            /* where the far {out} comes back */
};
/* The agent step: open, put each input, exec, close.
 * @return exec's result, or -1 with e set when open, a put or exec failed. */
int mtb_agent_exec(const struct mtb_transport *t, const struct mtb_agent_target *target,
                   const struct mtb_agent_job *job, struct mtb_agent_result *res, struct mtb_err *e);

/* What differs between the far sides of a run (a vm's guest, a server
 * host); everything else about the agent step is one. */
struct mtb_agent_far {
    const char *platform;     /* the far run's --platform: "host" in a guest; the run's own on a server host */
    const char *kernel;       /* the record's config.kernel (NULL: the run's) */
    const char *dir;          /* where the far {out} comes back, under run->dir: "guest", "server" */
    const char *name;         /* the far side in errors ("server host h1"), or NULL */
    char *const *args;        /* more arguments of the far `mtebench run` (NULL-terminated), or NULL */
    const char *seed;         /* NULL, or a directory of the controller's setup cache
                                 (mtb_build_setup_dir) put at seed/setup/<its name>: the far
                                 run copies it instead of running the setup (MTEBENCH_SEED) */
    /* NULL, or called in this thread while the far run executes in another
     * (from just after it starts until *ended or it returns): a server
     * host's client hosts load the far service. */
    void (*during)(const struct mtb_transport *t, struct mtb_session *s, const volatile int *ended, void *arg);
    void *arg;
};


/* One run performed by the far side's `mtebench run` (the agent step: open,
 * put the run's build at builds/<service>/<variant> and far->seed, exec the far run,
 * close). *record: the far record brought back under run->dir/far->dir,
 * or, when none came back, an error record saying why; either way with the
 * run's identity (mtb_run_identify: set here, once). err: what went wrong
 * ("" when nothing). @return 0 when the far run ended and its record came
 * back, -1 otherwise (the record's status is then an error, unless the far
 * side's record already says it failed). */
int mtb_agent_run(const struct mtb_transport *t, const struct mtb_agent_target *target, const struct mtb_run *run,
                  const struct mtb_agent_far *far, struct mtb_agent_result *res, json_t **record, char *err,
                  size_t errlen);

/* An earlier run whose connection was lost while its far side went on
 * (its res.far_out): open, the transport's fetch of far_out into
 * run->dir/far->dir, close; *record: the far record with the run's
 * identity (NULL unless brought back). @return 0 brought back, 1 nothing
 * to bring back (it did not finish there, or the transport cannot fetch:
 * why in e), -1 with e. */
int mtb_agent_fetch(const struct mtb_transport *t, const struct mtb_agent_target *target, const struct mtb_run *run,
                    const struct mtb_agent_far *far, const char *far_out, struct mtb_agent_result *res,
                    json_t **record, struct mtb_err *e);
#endif
