/* proc.h - child processes of the harness: each in its own process group,
 * registered so that Ctrl-C, SIGTERM, a timeout or a normal exit kills and
 * reaps every one of them. */
#ifndef MTB_PROC_H
#define MTB_PROC_H
#include <sys/resource.h>
#include <sys/types.h>

struct mtb_proc {
    pid_t pid;        /* also the process group id */
    int exited;       /* reaped */
    int status;       /* wait status once exited */
    struct rusage ru; /* its CPU use (the leader and the children it waited for) */
};

struct mtb_spawn {
    char *const *argv;
    char *const *env_add;   /* NAME=value entries added to the environment, or NULL */
    const char *log_path;   /* stdout+stderr appended here; NULL = inherit */
    const char *cwd;        /* NULL = inherit */
    const int *cpus;        /* CPU affinity list, or NULL */
    int ncpus;
    const char *user;       /* switch to this user (needs root), or NULL */
    int numa_bind;          /* bind memory to numa_node (set_mempolicy MPOL_BIND) */
    int numa_node;
    char *affinity_out;     /* run: the CPUs the child's tasks may use, read back from
                             * /proc/PID/task/x/status while it runs ("" if never seen) */
    size_t affinity_len;
    void (*on_start)(pid_t pid, void *arg); /* run: called once the child is started */
    void *on_start_arg;
};

/* Install SIGINT/SIGTERM/SIGHUP handlers that kill every registered process
 * group and exit(130) (but see mtb_proc_graceful), and an atexit hook that
 * does the same. */
void mtb_proc_init(void);
/* Start a child in a new process group. @return 0 or -errno. */
int mtb_proc_spawn(struct mtb_proc *p, const struct mtb_spawn *s);
/* Non-blocking check; returns 1 if the child has exited (status filled). */
int mtb_proc_poll(struct mtb_proc *p);
/* Signal the group, wait grace seconds, then SIGKILL; always reaps. */
void mtb_proc_stop(struct mtb_proc *p, int sig, double grace);
/* Human description of a wait status: "exit 0", "signal 11 (Segmentation fault)". */
const char *mtb_proc_describe(int status, char *buf, size_t n);
/* Run to completion with a timeout; output to log_path. @return wait status,
 * or -ETIMEDOUT (child group killed), or -errno when it could not start. */
int mtb_proc_run(const struct mtb_spawn *s, double timeout);
/* Same, and the child's resource use (CPU time) into *ru. */
int mtb_proc_run_ru(const struct mtb_spawn *s, double timeout, struct rusage *ru);
/* Run argv in its own process group and capture its stdout (and stderr
 * when with_stderr), for at most timeout seconds (<0: no limit). @return the
 * output and the wait status in *status; NULL when it could not start or
 * did not finish in time (*status = -ETIMEDOUT; its group is killed). */
char *mtb_proc_capture(char *const argv[], int with_stderr, double timeout, int *status);
/* The same with env_add's NAME=value entries added to its environment (NULL: none). */
char *mtb_proc_capture_env(char *const argv[], char *const *env_add, int with_stderr, double timeout, int *status);
/* A function run on exit and on Ctrl-C/SIGTERM before the harness ends (it
 * must use only async-signal-safe calls: open, write, close). */
void mtb_proc_on_exit(void (*fn)(void));
/* Set when a termination signal arrived; long loops check it. */
extern volatile int mtb_proc_interrupted;
/* on = 1: the first SIGINT kills the children and sets mtb_proc_interrupted
 * but returns, so that the caller can end its loop and report what it has
 * (REPS=auto); a second SIGINT, SIGTERM or SIGHUP exit(130) as always. */
void mtb_proc_graceful(int on);

/* A failed build's log: its last 30 lines on stderr, then kept as
 * DIR.failed.log (where the next user looks). @return that path (free). */
char *mtb_proc_keep_failed_log(const char *logp, const char *dir);

/* Run a command (argv) and capture its stdout (and stderr when
 * with_stderr); NULL on failure to start or when it did not end within
 * MTB_CAPTURE_LIMIT seconds (*status -ETIMEDOUT). Exit status into *status.
 * (mtb_proc_capture: a child under a deadline) */
#define MTB_CAPTURE_LIMIT 120
char *mtb_capture(char *const argv[], int with_stderr, int *status);
#endif
