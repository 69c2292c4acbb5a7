/* hosts.c - `mtebench hosts`: check remote hosts as the server and client
 * hosts are reached (the ssh transport: connect, identity, clock offset,
 * the agent put), or run the far mtebench there (--exec). */
#include "cmd/hosts.h"
#include "agent/agent.h"
#include "agent/transport_ssh.h"
#include "lib/util.h"
#include "lib/files.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hosts_usage(FILE *f)
{
    fprintf(f, "usage: mtebench hosts [ssh options] HOST...\n"
               "       mtebench hosts [ssh options] --exec DIR [--deadline S] HOST -- COMMAND [ARGS...]\n"
               "Connects to each HOST ([user@]host[:port]) as the remote server and client hosts are reached:\n"
               "prints its identity and clock offset and puts the agent there (only what differs).\n"
               "With --exec, runs `mtebench COMMAND ARGS` there ({root} and {out} replaced) and brings\n"
               "{out} back into DIR (with agent.log).\n"
               "ssh options:\n"
               "  --ssh-config FILE    ssh -F FILE (default: your ~/.ssh/config)\n"
               "  --ssh-key FILE       this key only (default: your ssh-agent and ssh config)\n"
               "  --known-hosts FILE   host keys checked against FILE (default: ~/.ssh/known_hosts)\n"
               "  --trust-new-hosts    accept and record unknown hosts' keys (trust on first use)\n"
               "  --remote-dir DIR     the far root (default ~/.mtebench-agent)\n"
               "  --ssh-alive S        a link silent for S (default 15 s) is given up: by our ssh (no answer),\n"
               "                       and by the far watchdog, which then stops what it runs (no heartbeat)\n");
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
    json_t *in = t->info(s);
    printf("%s: ok: %s %s %s, %d CPUs, clock offset %+.3f ms (rtt %.3f ms), connected in %.3f s, agent in %s\n", host,
           json_string_value(json_object_get(in, "hostname")), json_string_value(json_object_get(in, "machine")),
           json_string_value(json_object_get(in, "uname_r")), (int)json_integer_value(json_object_get(in, "cpus")),
           1e3 * json_real_value(json_object_get(in, "clock_offset_s")),
           1e3 * json_real_value(json_object_get(in, "clock_rtt_s")),
           json_real_value(json_object_get(in, "connect_seconds")), json_string_value(json_object_get(in, "root")));
    t->close(s);
    return 0;
}

int mtb_cmd_hosts(int argc, char **argv)
{
    static const struct option lo[] = { { "ssh-config", required_argument, 0, 1 },
                                        { "ssh-key", required_argument, 0, 2 },
                                        { "known-hosts", required_argument, 0, 3 },
                                        { "trust-new-hosts", no_argument, 0, 4 },
                                        { "remote-dir", required_argument, 0, 5 },
                                        { "ssh-alive", required_argument, 0, 6 },
                                        { "exec", required_argument, 0, 'e' },
                                        { "deadline", required_argument, 0, 'd' },
                                        { "help", no_argument, 0, 'h' },
                                        { 0, 0, 0, 0 } };
    const char *exec_dir = NULL;
    double deadline = 600;
    int c, idx;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", lo, &idx)) != -1) {
        if (c >= 1 && c <= 6)
            mtb_ssh_option(lo[idx].name, optarg);
        else if (c == 'e')
            exec_dir = optarg;
        else if (c == 'd') {
            if (mtb_parse_duration(optarg, &deadline) != 0 || deadline <= 0) {
                fprintf(stderr, "mtebench hosts: --deadline '%s': accepted: a duration > 0 (e.g. 30, 90s, 5m)\n", optarg);
                return 2;
            }
        } else if (c == 'h') {
            hosts_usage(stdout);
            return 0;
        } else {
            hosts_usage(stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        hosts_usage(stderr);
        return 2;
    }
    const struct mtb_transport *t = mtb_transport_find("ssh");
    char *work = mtb_strdup("/tmp/mtb-hosts-XXXXXX");
    if (!mkdtemp(work))
        mtb_die(1, "cannot make a temporary directory in /tmp");
    int bad = 0;
    if (exec_dir) {
        int dash = optind + 1;
        if (dash < argc && !strcmp(argv[dash], "--"))
            dash++;
        if (dash >= argc) {
            fprintf(stderr, "mtebench hosts: --exec needs HOST -- COMMAND [ARGS...]\n");
            bad = 2;
        } else {
            bad = hosts_exec(t, argv[optind], argv + dash, deadline, exec_dir, work);
        }
    } else {
        for (int i = optind; i < argc; i++)
            bad |= host_check(t, argv[i], work);
    }
    mtb_ssh_close_all();
    mtb_rm_rf(work);
    free(work);
    return bad == 2 ? 2 : bad ? 1 : 0;
}
