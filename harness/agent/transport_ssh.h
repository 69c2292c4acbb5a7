/* transport_ssh.h - the agent step's OpenSSH transport (`mtebench hosts`: hosts.c).
 *
 * OpenSSH as users have it: `ssh -o BatchMode=yes`, keys from the user's
 * agent or a named key file, host keys checked against known_hosts (an
 * unknown host is refused with a message saying how to trust it;
 * trust-on-first-use only when asked, --trust-new-hosts), one multiplexed
 * master connection per host per process (ControlMaster, closed at exit and
 * on Ctrl-C). The far root is a directory under the login's home (default
 * ~/.mtebench-agent) holding the agent for the host's architecture (uname -m:
 * x86_64 or aarch64), copied only when its sha256 differs. Every call has a
 * deadline; the far command runs in a session of its own under a watchdog
 * that kills that session when the deadline passes, the controller goes
 * away (its ssh's stdin closes) or falls silent (a cut link: no heartbeat
 * for --ssh-alive seconds, which is also how long our ssh waits for an
 * answer before it gives the host up), so nothing of ours stays running
 * there. The output of a far command whose connection was lost stays there
 * (res->far_out) until `fetch` brings it back or finds it unfinished. */
#ifndef MTB_TRANSPORT_SSH_H
#define MTB_TRANSPORT_SSH_H
#include <jansson.h>
#include "agent/agent.h"
#include "lib/opttab.h"
#include "lib/err.h"

/* The ssh options (--ssh-config, --ssh-key, --known-hosts,
 * --trust-new-hosts, --remote-dir, --ssh-alive) as an option table
 * (lib/opttab.h), every row's id MTB_OPT_SSH, and one of them taken: name
 * without dashes. @return 1 when it was one of them, 0 otherwise; -1
 * with e set when its value is refused. */
#define MTB_OPT_SSH 900
extern const struct mtb_opt mtb_ssh_opts[];
int mtb_ssh_option(const char *name, const char *value, struct mtb_err *e);

extern const struct mtb_transport mtb_transport_ssh;

/* Its info (the transport's `info`): the far host's facts from an open
 * session: {"transport":"ssh", "where", "hostname", "machine", "uname_r",
 * "machine_id", "cpus", "root", "clock_offset_s" (far wall clock minus ours,
 * measured at connect), "clock_rtt_s", "connect_seconds", "master"}. Its
 * `sh`: a shell command line on the far side (in its root) with a deadline,
 * during an exec too. */

/* Close every master connection now (also done at exit). */
void mtb_ssh_close_all(void);
#endif
