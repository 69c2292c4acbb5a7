/* ssh_opts.c - the ssh options, the ssh command line they make, and what ssh's refusals mean */
#include "agent/ssh_int.h"
#include "agent/transport_ssh.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ------------------------------------------------------------ */

static struct {
    char *config, *key, *known_hosts, *remote_dir;
    int trust_new;
    double alive; /* --ssh-alive: seconds of silence after which either side gives the other up; 0: default */
} opt;

/* How long a silent link is tolerated, either way (--ssh-alive, default
 * 15 s): our ssh gives the host up after it (ServerAliveInterval alive/3,
 * ServerAliveCountMax 3), and the far watchdog stops the far command when it
 * has heard nothing from us for as long (we send a byte every alive/5 s,
 * at most every second, on the far command's stdin). */
double mtb_ssh_alive(void) { return opt.alive > 0 ? opt.alive : 15; }

const char *mtb_ssh_remote_dir(void) { return opt.remote_dir; }

/* the ssh options, as every command that reaches hosts takes them (cmd/cli.c, hosts, load) */
const struct mtb_opt mtb_ssh_opts[] = {
    MTB_OPT("ssh-config", "FILE", NULL, MTB_OPT_SSH, NULL, "ssh -F FILE (default: your ~/.ssh/config)"),
    MTB_OPT("ssh-key", "FILE", NULL, MTB_OPT_SSH, NULL, "this key only (default: your ssh-agent and ssh config)"),
    MTB_OPT("known-hosts", "FILE", NULL, MTB_OPT_SSH, NULL, "host keys checked against FILE (default: ~/.ssh/known_hosts)"),
    MTB_OPT("trust-new-hosts", NULL, NULL, MTB_OPT_SSH, NULL, "accept and record unknown hosts' keys (trust on first use)"),
    MTB_OPT("remote-dir", "DIR", NULL, MTB_OPT_SSH, NULL, "the far root (default ~/.mtebench-agent)"),
    MTB_OPT("ssh-alive", "S", NULL, MTB_OPT_SSH, NULL,
      "a link silent for S (default 15 s) is given up: by our ssh (no answer),\n"
      "and by the far watchdog, which then stops what it runs (no heartbeat)"),
    { 0 },
};

int mtb_ssh_option(const char *name, const char *value, struct mtb_err *e)
{
    char **slot = !strcmp(name, "ssh-config") ? &opt.config : !strcmp(name, "ssh-key") ? &opt.key
                : !strcmp(name, "known-hosts") ? &opt.known_hosts : !strcmp(name, "remote-dir") ? &opt.remote_dir : NULL;
    if (slot) {
        free(*slot);
        *slot = mtb_strdup(value);
        return 1;
    }
    if (!strcmp(name, "trust-new-hosts")) {
        opt.trust_new = 1;
        return 1;
    }
    if (!strcmp(name, "ssh-alive")) {
        double v;
        if (mtb_parse_duration(value, &v) != 0 || v < 3 || v > 3600)
            return mtb_err_set(e, MTB_ERR_INPUT, "--ssh-alive '%s': a duration from 3 s to 1 h (how long a silent "
                               "link is tolerated)", value);
        opt.alive = v;
        return 1;
    }
    return 0;
}

void mtb_ssh_base(struct mtb_argv *a, const struct mtb_session *s, int master)
{
    mtb_argv_push(a, "ssh");
    if (opt.config) {
        mtb_argv_push(a, "-F");
        mtb_argv_push(a, opt.config);
    }
    mtb_argv_push(a, "-o");
    mtb_argv_push(a, "BatchMode=yes");
    mtb_argv_push(a, "-o");
    mtb_argv_push(a, opt.trust_new ? "StrictHostKeyChecking=accept-new" : "StrictHostKeyChecking=yes");
    if (opt.known_hosts) {
        mtb_argv_push(a, "-o");
        mtb_argv_pushf(a, "UserKnownHostsFile=%s", opt.known_hosts);
    }
    if (opt.key) {
        mtb_argv_push(a, "-i");
        mtb_argv_push(a, opt.key);
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "IdentitiesOnly=yes");
    }
    mtb_argv_push(a, "-o");
    mtb_argv_pushf(a, "ConnectTimeout=%d", (int)(s->connect_timeout + 0.5));
    int every = (int)(mtb_ssh_alive() / 3 + 0.5);
    mtb_argv_push(a, "-o");
    mtb_argv_pushf(a, "ServerAliveInterval=%d", every < 1 ? 1 : every);
    mtb_argv_push(a, "-o");
    mtb_argv_push(a, "ServerAliveCountMax=3");
    mtb_argv_push(a, "-o");
    mtb_argv_pushf(a, "ControlPath=%s", s->m->ctl);
    if (master) {
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "ControlMaster=yes");
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "ControlPersist=no");
        mtb_argv_push(a, "-N");
    } else {
        mtb_argv_push(a, "-o");
        mtb_argv_push(a, "ControlMaster=no");
        mtb_argv_push(a, "-T");
    }
    if (s->port) {
        mtb_argv_push(a, "-p");
        mtb_argv_push(a, s->port);
    }
    mtb_argv_push(a, s->dest);
}

/* What ssh's own messages mean, said with what to do. */
void mtb_ssh_explain(const struct mtb_session *s, const char *log, char *err, size_t errlen)
{
    char *text = log ? mtb_read_file(log, NULL) : NULL;
    int changed = text && strstr(text, "REMOTE HOST IDENTIFICATION HAS CHANGED");
    char last[256] = "";
    if (text) {
        char *save = NULL;
        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            if (*l && !strstr(l, "Warning: Permanently added"))
                snprintf(last, sizeof last, "%s", l);
    }
    if (changed)
        snprintf(err, errlen, "ssh %s: the host's key differs from the one in known_hosts (refused; if the host was "
                 "reinstalled, verify its new key and replace the old line: ssh-keygen -R HOST)", s->where);
    else if (text && (strstr(last, "Host key verification failed") || strstr(last, "host key is known")))
        snprintf(err, errlen, "ssh %s: host key not known (not in %s): refused. To trust it, check the key's "
                 "fingerprint with the host's owner and add it (ssh-keyscan HOST >> %s, or ssh once by hand), or pass "
                 "--trust-new-hosts to accept and record new hosts' keys on first use",
                 s->where, opt.known_hosts ? opt.known_hosts : "~/.ssh/known_hosts",
                 opt.known_hosts ? opt.known_hosts : "~/.ssh/known_hosts");
    else if (strstr(last, "Permission denied"))
        snprintf(err, errlen, "ssh %s: login refused (%s): no key the host accepts (keys come from your ssh-agent, "
                 "--ssh-key FILE or IdentityFile in your ssh config)", s->where, last);
    else
        snprintf(err, errlen, "ssh %s: %s", s->where, last[0] ? last : "cannot connect (no message from ssh)");
    free(text);
}
