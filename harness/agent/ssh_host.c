/* ssh_host.c - what a new connection learns of its host: identity, far root, clock offset, far hashes */
#include "agent/ssh_int.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* identity, home, and the clock offset (min-RTT of 5 samples) */
int mtb_ssh_learn_host(struct mtb_session *s, char *err, size_t errlen)
{
    struct mtb_ssh_master *m = s->m;
    int st;
    char *o = mtb_ssh_out(s, "uname -m; uname -r; uname -n; cat /etc/machine-id 2>/dev/null || echo -; echo \"$HOME\"; "
                         "nproc; command -v bash >/dev/null && echo bash || echo nobash; echo \"ssh $SSH_CONNECTION\"",
                      30, &st);
    if (st != 0 || !o) {
        mtb_ssh_explain(s, s->sshlog, err, errlen);
        free(o);
        return -1;
    }
    char *f[9] = { 0 }, *save = NULL;
    int n = 0;
    for (char *l = strtok_r(o, "\n", &save); l && n < 9; l = strtok_r(NULL, "\n", &save))
        f[n++] = l;
    if (n < 8) {
        snprintf(err, errlen, "ssh %s: unexpected answer to uname/nproc (a POSIX shell is needed there)", s->where);
        free(o);
        return -1;
    }
    if (strcmp(f[6], "bash")) {
        snprintf(err, errlen, "ssh %s: no bash on the host (Debian's bash package is needed there)", s->where);
        free(o);
        return -1;
    }
    snprintf(m->machine, sizeof m->machine, "%s", f[0]);
    snprintf(m->uname_r, sizeof m->uname_r, "%s", f[1]);
    const char *rd = mtb_ssh_remote_dir() ? mtb_ssh_remote_dir() : ".mtebench-agent";
    if (rd[0] == '/')
        snprintf(m->root, sizeof m->root, "%s", rd);
    else
        snprintf(m->root, sizeof m->root, "%s/%s", f[4], rd);
    double best_rtt = 1e9, best_off = 0;
    for (int i = 0; i < 5; i++) {
        double t0, t1;
        t0 = mtb_wall();
        char *d = mtb_ssh_out(s, "date +%s.%N", 10, &st);
        t1 = mtb_wall();
        if (st == 0 && d) {
            double far = atof(d);
            if (t1 - t0 < best_rtt) {
                best_rtt = t1 - t0;
                best_off = far - (t0 + t1) / 2;
            }
        }
        free(d);
    }
    m->info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:s,s:f,s:f,s:f}", "transport", "ssh", "where", s->where,
                        "hostname", f[2], "machine", f[0], "uname_r", f[1], "machine_id", f[3], "cpus", atoi(f[5]),
                        "root", m->root, "clock_offset_s", best_off, "clock_rtt_s", best_rtt, "connect_seconds",
                        s->connect_seconds);
    /* the address ssh reached it at (SSH_CONNECTION: client port server port) */
    char a1[64], a2[64], a3[64];
    if (sscanf(f[7], "ssh %63s %63s %63s", a1, a2, a3) == 3)
        json_object_set_new(m->info, "address", json_string(a3));
    free(o);
    /* what the far root already holds */
    char *cmd = mtb_asprintf("cat %s/.mtb-hashes 2>/dev/null; true", m->root);
    char *h = mtb_ssh_out(s, cmd, 30, &st);
    free(cmd);
    mtb_strmap_clear(&m->hashes);
    char *save2 = NULL;
    for (char *l = h ? strtok_r(h, "\n", &save2) : NULL; l; l = strtok_r(NULL, "\n", &save2)) {
        char *sp = strchr(l, ' ');
        if (sp) {
            *sp = 0;
            mtb_strmap_set(&m->hashes, l, sp + 1);
        }
    }
    free(h);
    return 0;
}
