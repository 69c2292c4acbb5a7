/* ssh_int.h - what the files of the ssh transport share: transport_ssh.c
 * (the transport's calls: open, put, exec, fetch, sh, close), ssh_opts.c (the
 * options and the ssh command line), ssh_master.c (the master connection per
 * host and our ssh processes under it), ssh_host.c (the host's facts learnt on
 * connecting). Private to them; transport_ssh.h is the transport's face. */
#ifndef MTB_SSH_INT_H
#define MTB_SSH_INT_H
#include "agent/agent.h"
#include "lib/strmap.h"
#include "lib/util.h"
#include "lib/argv.h"
#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* the one master connection to a host (ControlMaster), shared by its sessions */
struct mtb_ssh_master {
    char where[256];
    char ctl[108];           /* the control socket */
    volatile pid_t pid;
    char *log;               /* the master's stderr */
    struct mtb_strmap hashes; /* far root: what is there (its .mtb-hashes), remote path -> sha256 */
    json_t *info;
    char root[512];
    char machine[32], uname_r[128];
    int agent_ok;
};

/* an open session to a host (the transport's handle) */
struct mtb_session {
    struct mtb_ssh_master *m;
    char *where, *dest, *port, *workdir, *sshlog;
    double connect_timeout, connect_seconds;
    int quiet;
};

/* a far command's stdin: /dev/null, a file, or a pipe we hold open (the heartbeat) */
enum { MTB_SSH_IN_NULL, MTB_SSH_IN_FILE, MTB_SSH_IN_HOLD };

/* guards the tables of our ssh processes and of the masters, and exec's count */
extern pthread_mutex_t mtb_ssh_mu;

/* ssh_opts.c */
/* how long a silent link is tolerated, either way (--ssh-alive; 15 s) */
double mtb_ssh_alive(void);
/* --remote-dir, or NULL */
const char *mtb_ssh_remote_dir(void);
/* ssh and its options to s's host into a: the master's (master 1) or a
 * session's over it */
void mtb_ssh_base(struct mtb_argv *a, const struct mtb_session *s, int master);
/* what ssh's messages in log mean, into err */
void mtb_ssh_explain(const struct mtb_session *s, const char *log, char *err, size_t errlen);

/* ssh_master.c */
/* one far command line over the master; its exit status, 255 ssh's failure,
 * -1 deadline passed */
int mtb_ssh_run(struct mtb_session *s, const char *cmdline, int in_mode, const char *in_path, const char *out_path,
                double deadline);
/* the far command's stdout (NULL on failure), *status as mtb_ssh_run's */
char *mtb_ssh_out(struct mtb_session *s, const char *cmdline, double deadline, int *status);
/* 1 while m's ssh runs and its control socket is there */
int mtb_ssh_master_alive(struct mtb_ssh_master *m);
/* the master of s's host (claimed when new), NULL with err */
struct mtb_ssh_master *mtb_ssh_master_of(struct mtb_session *s, char *err, size_t errlen);
/* m connected afresh and its host's facts learnt: 0, or -1 with err */
int mtb_ssh_master_start(struct mtb_session *s, struct mtb_ssh_master *m, char *err, size_t errlen);

/* ssh_host.c */
/* s->m's machine, uname_r, root, info and hashes learnt: 0, or -1 with err */
int mtb_ssh_learn_host(struct mtb_session *s, char *err, size_t errlen);
#endif
