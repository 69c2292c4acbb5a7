/* hosts.c - `mtebench hosts`: check remote hosts as the server and client
 * hosts are reached (the ssh transport: connect, identity, clock offset,
 * the agent put), or run the far mtebench there (--exec). */
#include "cmd/commands.h"
#include "agent/agent.h"
#include "agent/transport_ssh.h"
#include "core/host_rows.h"
#include "lib/util.h"
#include "lib/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H_EXEC = 1, H_DEADLINE, H_HELP };
static const struct mtb_opt opts[] = {
    MTB_OPT("exec", "DIR", NULL, H_EXEC, NULL, "run `mtebench COMMAND ARGS` on HOST, bring {out} back into DIR"),
    MTB_OPT("deadline", "S", NULL, H_DEADLINE, NULL, "--exec: the far command's time limit (default 600 s)"),
    MTB_OPT("help", NULL, NULL, H_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const tabs[] = { opts, mtb_ssh_opts, NULL };

static void hosts_usage(FILE *f)
{
    fprintf(f, "usage: mtebench hosts [ssh options] HOST...\n"
               "       mtebench hosts [ssh options] --exec DIR [--deadline S] HOST -- COMMAND [ARGS...]\n"
               "Connects to each HOST ([user@]host[:port]) as the remote server and client hosts are reached:\n"
               "prints its identity and clock offset and puts the agent there (only what differs).\n"
               "With --exec, runs `mtebench COMMAND ARGS` there ({root} and {out} replaced) and brings\n"
               "{out} back into DIR (with agent.log).\n"
               "options, then the ssh options (every command that reaches hosts takes them):\n");
    mtb_opt_help(f, tabs, "hosts");
}

/* --exec: the far mtebench with cmd on host, {out} into exec_dir.
 * @return 0 when it ran and exited 0, else 1 */
static int hosts_exec(const struct mtb_transport *t, const char *host, char *const *cmd, double deadline,
                      const char *exec_dir, const char *work)
{
    struct mtb_agent_target tg = { .where = host, .workdir = work };
    char err[MTB_ERRLEN];
    struct mtb_session *s = t->open(&tg, err, sizeof err);
    if (!s) {
        fprintf(stderr, "mtebench: %s\n", err);
        return 1;
    }
    struct mtb_agent_result res;
    int bad = 1;
    if (t->exec(s, cmd, deadline, exec_dir, &res, err, sizeof err) != 0) {
        fprintf(stderr, "mtebench: %s\n", err);
    } else {
        printf("%s: mtebench %s: exit %d in %.2f s; output in %s\n", host, cmd[0], res.exit_status, res.total_seconds,
               exec_dir);
        bad = res.exit_status != 0;
    }
    json_decref(res.info);
    t->close(s);
    return bad;
}

/* One host reached as the run's hosts are: its facts on one line.
 * @return 0, or 1 when it could not be reached */
static int host_check(const struct mtb_transport *t, const char *host, const char *work)
{
    struct mtb_agent_target tg = { .where = host, .workdir = work };
    char err[MTB_ERRLEN];
    struct mtb_session *s = t->open(&tg, err, sizeof err);
    if (!s) {
        printf("%s: FAILED: %s\n", host, err);
        return 1;
    }
    struct mtb_host_view in;
    mtb_host_view_read(t->info(s), &in);
    printf("%s: ok: %s %s %s, %d CPUs, clock offset %+.3f ms (rtt %.3f ms), connected in %.3f s, agent in %s\n", host,
           in.hostname, in.machine, in.uname_r, (int)in.cpus, 1e3 * in.clock_offset_s, 1e3 * in.clock_rtt_s,
           in.connect_seconds, in.root);
    t->close(s);
    return 0;
}

int mtb_cmd_hosts(int argc, char **argv)
{
    const char *exec_dir = NULL;
    double deadline = 600;
    struct mtb_optp p;
    /* the first HOST ends the options: after it, --exec's command line */
    mtb_opt_init(&p, argc, argv, "hosts", MTB_OPT_FIRST_ARG_ENDS);
    int c;
    while ((c = mtb_opt_next(&p, tabs)) > 0) {
        struct mtb_err e = { 0 };
        if (c == MTB_OPT_SSH) {
            if (mtb_ssh_option(p.name, p.val, &e) < 0)
                mtb_err_exit(&e);
        }
        else if (c == H_EXEC)
            exec_dir = p.val;
        else if (c == H_DEADLINE) {
            if (mtb_parse_duration(p.val, &deadline) != 0 || deadline <= 0) {
                fprintf(stderr, "mtebench hosts: --deadline '%s': accepted: a duration > 0 (e.g. 30, 90s, 5m)\n", p.val);
                mtb_opt_free(&p);
                return 2;
            }
        } else {
            hosts_usage(stdout);
            mtb_opt_free(&p);
            return 0;
        }
    }
    if (c == MTB_OPT_ERR || !p.npos) {
        if (c == MTB_OPT_ERR)
            fprintf(stderr, "mtebench hosts: %s\n", p.err);
        hosts_usage(stderr);
        mtb_opt_free(&p);
        return 2;
    }
    argc = p.npos; /* HOST..., or HOST [--] COMMAND ARGS */
    argv = p.pos;
    const struct mtb_transport *t = mtb_transport_find("ssh");
    char *work = mtb_strdup("/tmp/mtb-hosts-XXXXXX");
    if (!mkdtemp(work))
        mtb_die(1, "cannot make a temporary directory in /tmp");
    int bad = 0;
    if (exec_dir) {
        int dash = 1;
        if (dash < argc && !strcmp(argv[dash], "--"))
            dash++;
        if (dash >= argc) {
            fprintf(stderr, "mtebench hosts: --exec needs HOST -- COMMAND [ARGS...]\n");
            bad = 2;
        } else {
            bad = hosts_exec(t, argv[0], argv + dash, deadline, exec_dir, work);
        }
    } else {
        for (int i = 0; i < argc; i++)
            bad |= host_check(t, argv[i], work);
    }
    mtb_ssh_close_all();
    mtb_rm_rf(work);
    free(work);
    mtb_opt_free(&p);
    return bad == 2 ? 2 : bad ? 1 : 0;
}
