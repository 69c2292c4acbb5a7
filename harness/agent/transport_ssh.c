/* transport_ssh.c - see transport_ssh.h */
#include "agent/transport_ssh.h"
#include "agent/ssh_int.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/hash.h"
#include "lib/argv.h"

#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *shq(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *o = malloc(n), *q = o;
    *q++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(q, "'\\''", 4);
            q += 4;
        } else
            *q++ = *p;
    }
    *q++ = '\'';
    *q = 0;
    return o;
}

static int put_ex(struct mtb_session *s, const char *local, const char *remote, const char *sha256,
                  const char *exclude, char *err, size_t errlen);

/* the agent for the host's architecture */
static int put_agent(struct mtb_session *s, char *err, size_t errlen)
{
    const char *R = mtb_root();
    int arm = !strcmp(s->m->machine, "aarch64") || !strcmp(s->m->machine, "arm64");
    if (!arm && strcmp(s->m->machine, "x86_64")) {
        snprintf(err, errlen, "ssh %s: host architecture %s: builds exist for x86_64 and aarch64 only", s->where,
                 s->m->machine);
        return -1;
    }
    const char *items[][2] = {
        { arm ? "build/aarch64/mtebench" : "build/mtebench", "build/mtebench" },
        { arm ? "build/aarch64/mtload" : "build/mtload", "build/mtload" },
        { "build/aarch64/mteprobe", "build/aarch64/mteprobe" },
        { "build/aarch64/libmtefault.so", "build/aarch64/libmtefault.so" },
        { "build/aarch64/libmtealloc.so", "build/aarch64/libmtealloc.so" }, /* fault reports' allocation record */
        { "build/aarch64/libmtestack.so", "build/aarch64/libmtestack.so" }, /* stacktag variants' stack set-up */
        { arm ? "build/aarch64/libmtefault.so" : "build/native/libmtefault.so", "build/native/libmtefault.so" },
        { arm ? "build/aarch64/libmtealloc.so" : "build/native/libmtealloc.so", "build/native/libmtealloc.so" },
        { "services", "services" },
        { "configs/machines", "configs/machines" },
        { "loadgen/wrk-report.lua", "loadgen/wrk-report.lua" },
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        char *l = mtb_asprintf("%s/%s", R, items[i][0]);
        if (!mtb_file_exists(l)) {
            snprintf(err, errlen, "ssh %s: %s is missing here (make all builds it)", s->where, l);
            free(l);
            return -1;
        }
        int r = put_ex(s, l, items[i][1], NULL, !strcmp(items[i][0], "services") ? "build.sh" : NULL, err, errlen);
        free(l);
        if (r != 0)
            return -1;
    }
    s->m->agent_ok = 1;
    return 0;
}

static struct mtb_session *ssh_open(const struct mtb_agent_target *t, char *err, size_t errlen)
{
    if (!t->where || !*t->where || strchr(t->where, ' ') || t->where[0] == '-') {
        snprintf(err, errlen, "ssh: bad host '%s' (accepted: [user@]host[:port])", t->where ? t->where : "");
        return NULL;
    }
    struct mtb_session *s = mtb_calloc(1, sizeof *s);
    s->where = mtb_strdup(t->where);
    s->dest = mtb_strdup(t->where);
    char *c = strrchr(s->dest, ':');
    if (c && !strchr(s->dest, '[') && strchr(s->dest, ':') == c) {
        *c = 0;
        s->port = mtb_strdup(c + 1);
    }
    s->workdir = mtb_strdup(t->workdir ? t->workdir : ".");
    mtb_mkdir_p(s->workdir);
    s->sshlog = mtb_asprintf("%s/ssh.log", s->workdir);
    s->connect_timeout = t->connect_timeout > 0 ? t->connect_timeout : 15;
    s->quiet = t->quiet;
    struct mtb_ssh_master *m = mtb_ssh_master_of(s, err, errlen);
    if (!m)
        goto fail;
    s->m = m;
    if (!mtb_ssh_master_alive(m) && mtb_ssh_master_start(s, m, err, errlen) != 0)
        goto fail;
    if (!m->agent_ok && put_agent(s, err, errlen) != 0)
        goto fail;
    return s;
fail:
    free(s->where);
    free(s->dest);
    free(s->port);
    free(s->workdir);
    free(s->sshlog);
    free(s);
    return NULL;
}
static int safe_path(const char *p)
{
    if (!*p || p[0] == '/' || strstr(p, ".."))
        return 0;
    for (const char *c = p; *c; c++)
        if (!(('a' <= *c && *c <= 'z') || ('A' <= *c && *c <= 'Z') || ('0' <= *c && *c <= '9') || strchr("._-/+", *c)))
            return 0;
    return 1;
}

static int hash_local(const char *local, const char *exclude, char hex[65])
{
    struct stat st;
    if (stat(local, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return mtb_sha256_file(local, hex);
    char *script = mtb_asprintf("cd \"$1\" && find . -type f ! -name '%s' | LC_ALL=C sort | xargs -r -d '\\n' sha256sum",
                                exclude ? exclude : "/");
    char *const argv[] = { "sh", "-c", script, "sh", (char *)local, NULL };
    int status;
    char *o = mtb_capture(argv, 0, &status);
    free(script);
    if (!o || status != 0) {
        free(o);
        return -1;
    }
    struct mtb_hash *h = mtb_hash_new();
    mtb_hash_str(h, "tree", o);
    mtb_hash_final(h, hex);
    free(o);
    return 0;
}

static int put_ex(struct mtb_session *s, const char *local, const char *remote, const char *sha256,
                  const char *exclude, char *err, size_t errlen)
{
    struct mtb_ssh_master *m = s->m;
    char hex[65];
    if (!safe_path(remote)) {
        snprintf(err, errlen, "ssh put: bad far path '%s' (relative, letters, digits, ._-/+)", remote);
        return -1;
    }
    if (sha256)
        snprintf(hex, sizeof hex, "%.64s", sha256);
    else if (hash_local(local, exclude, hex) != 0) {
        snprintf(err, errlen, "ssh put: cannot read %s: %s", local, strerror(errno));
        return -1;
    }
    const char *have = mtb_strmap_get(&m->hashes, remote);
    if (have && !strcmp(have, hex))
        return 0;
    char *ldup = mtb_strdup(local), *ldup2 = mtb_strdup(local), *rdup = mtb_strdup(remote);
    const char *ldir = dirname(ldup), *lbase = basename(ldup2), *rdir = dirname(rdup);
    char *tar = mtb_asprintf("%s/.put.%d.%lx.tar", s->workdir, (int)getpid(), (unsigned long)pthread_self());
    struct mtb_argv ta = { 0 };
    mtb_argv_push(&ta, "tar");
    mtb_argv_push(&ta, "-cf");
    mtb_argv_push(&ta, tar);
    if (exclude)
        mtb_argv_pushf(&ta, "--exclude=%s", exclude);
    mtb_argv_push(&ta, "-C");
    mtb_argv_push(&ta, ldir);
    mtb_argv_push(&ta, lbase);
    struct mtb_spawn sp = { .argv = ta.v, .log_path = s->sshlog };
    int rc = mtb_proc_run(&sp, 120);
    mtb_argv_free(&ta);
    int ret = -1;
    if (rc != 0) {
        snprintf(err, errlen, "ssh put: cannot pack %s (see %s)", local, s->sshlog);
        goto out;
    }
    char *qb = shq(lbase);
    char *cmd = mtb_asprintf("set -e; mkdir -p %1$s && cd %1$s; rm -rf .mtb-put; mkdir .mtb-put; tar -xf - -C .mtb-put; "
                             "mkdir -p %2$s; rm -rf %3$s; mv .mtb-put/%4$s %3$s; rmdir .mtb-put; "
                             "{ grep -v '^%3$s ' .mtb-hashes 2>/dev/null || true; echo '%3$s %5$s'; } > .mtb-hashes.new; "
                             "mv .mtb-hashes.new .mtb-hashes",
                             m->root, rdir, remote, qb, hex);
    free(qb);
    double t0 = mtb_mono();
    rc = mtb_ssh_run(s, cmd, MTB_SSH_IN_FILE, tar, NULL, 600);
    free(cmd);
    if (rc != 0) {
        if (rc == -1)
            snprintf(err, errlen, "ssh %s: copying %s did not end within 600 s", s->where, remote);
        else
            mtb_ssh_explain(s, s->sshlog, err, errlen);
        goto out;
    }
    mtb_strmap_set(&m->hashes, remote, hex);
    if (!s->quiet)
        fprintf(stderr, "mtebench: ssh %s: put %s (%.2f s)\n", s->where, remote, mtb_mono() - t0);
    ret = 0;
out:
    unlink(tar);
    free(tar);
    free(ldup);
    free(ldup2);
    free(rdup);
    return ret;
}

static int ssh_put(struct mtb_session *s, const char *local, const char *remote, const char *sha256, char *err,
                   size_t errlen)
{
    return put_ex(s, local, remote, sha256, NULL, err, errlen);
}

/* The far wrapper: the command in a session of its own; when the deadline
 * passes, our ssh goes away (its stdin closes) or nothing comes from us for
 * `alive` seconds (the heartbeat: a byte every second or so; a cut link
 * closes nothing, and sshd may not notice for hours), TERM to the command,
 * a grace, then KILL to everything left in its session. The exit status
 * goes to $out.rc (the command's own, or 124 deadline, 125 controller gone,
 * 126 controller silent), so that a later session can tell whether {out}
 * holds what the command finished. The command appends to $out.log as the
 * watchdog does (written at its own offset, its last words after the TERM
 * would overwrite the watchdog's reason). bash >= 5.1. */
static const char agent_sh[] =
    "d=$1 out=$2 root=$3 alive=$4; shift 5\n"
    "export MTEBENCH_ROOT=$root\n"
    "rm -rf \"$out\" \"$out.log\" \"$out.rc\"; mkdir -p \"$out\" || exit 125\n"
    "setsid \"$@\" </dev/null >>\"$out.log\" 2>&1 & p=$!\n"
    "echo $p > \"$out.pid\"\n"
    "exec 3<&0; ( while :; do IFS= read -r -t \"$alive\" -N 1 _ <&3 || exit $?; done ) >/dev/null 2>&1 & c=$!; exec 3<&-\n"
    "sleep \"$d\" & t=$!\n"
    "wait -n -p w $p $c $t; rc=$?\n"
    "g=\n"
    "if [ \"$w\" != \"$p\" ]; then\n"
    "  if [ \"$w\" = \"$t\" ]; then why=\"its deadline ($d s) passed\"; rc=124\n"
    "  elif [ $rc -gt 128 ]; then why=\"nothing heard from the controller for $alive s\"; rc=126\n"
    "  else why='the controller went away'; rc=125; fi\n"
    "  echo \"mtebench agent: $why: stopping it\" >>\"$out.log\"\n"
    "  kill -TERM -- -$p 2>/dev/null\n"
    "  sleep 5 & g=$!; wait -n $p $g\n"
    "fi\n"
    "pkill -KILL -s $p 2>/dev/null\n"
    "kill $c $t $g 2>/dev/null\n"
    "echo $rc > \"$out.rc\"\n"
    "exit $rc\n";

/* The far command line: the agent's watchdog script around the far
 * mtebench with argv, "{root}" and "{out}" replaced, each word quoted. */
static char *far_line(const struct mtb_ssh_master *m, const char *out, char *const *argv, double deadline_s)
{
    char *q = shq(agent_sh);
    char *line = mtb_asprintf("bash -c %s mtb-agent %d %s %s %d --", q, (int)(deadline_s + 0.999), out, m->root,
                              (int)(mtb_ssh_alive() + 0.5));
    free(q);
    char *mb = mtb_asprintf("%s/build/mtebench", m->root);
    q = shq(mb);
    char *l2 = mtb_asprintf("%s %s", line, q);
    free(q);
    free(line);
    free(mb);
    line = l2;
    for (char *const *a = argv; *a; a++) {
        char *v = mtb_strdup(*a), *r;
        while ((r = strstr(v, "{root}")) || (r = strstr(v, "{out}"))) {
            int isroot = !strncmp(r, "{root}", 6);
            *r = 0;
            char *nv = mtb_asprintf("%s%s%s", v, isroot ? m->root : out, r + (isroot ? 6 : 5));
            free(v);
            v = nv;
        }
        q = shq(v);
        l2 = mtb_asprintf("%s %s", line, q);
        free(q);
        free(v);
        free(line);
        line = l2;
    }
    return line;
}

/* The far {out} (a tar over the master) and the far log (as agent.log)
 * into local_dir. @return 0, or -1 when something did not come back */
static int bring_back(struct mtb_session *s, const char *out, int n, const char *local_dir)
{
    char *tar = mtb_asprintf("%s/.out.%d.tar", s->workdir, n);
    char *tc = mtb_asprintf("cd %s && tar -cf - .", out);
    int r1 = mtb_ssh_run(s, tc, MTB_SSH_IN_NULL, NULL, tar, 300);
    free(tc);
    char *logp = mtb_asprintf("%s/agent.log", local_dir);
    char *lc = mtb_asprintf("cat %s.log", out);
    int r2 = mtb_ssh_run(s, lc, MTB_SSH_IN_NULL, NULL, logp, 60);
    free(lc);
    free(logp);
    int r3 = -1;
    if (r1 == 0) {
        char *const xa[] = { "tar", "-xf", tar, "-C", (char *)local_dir, NULL };
        struct mtb_spawn sp = { .argv = xa, .log_path = s->sshlog };
        r3 = mtb_proc_run(&sp, 120);
    }
    unlink(tar);
    free(tar);
    return r1 == 0 && r2 == 0 && r3 == 0 ? 0 : -1;
}

static int ssh_exec(struct mtb_session *s, char *const *argv, double deadline_s, const char *local_dir,
                    struct mtb_agent_result *res, char *err, size_t errlen)
{
    struct mtb_ssh_master *m = s->m;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    double t0 = mtb_mono();
    static int seq;
    pthread_mutex_lock(&mtb_ssh_mu);
    int n = ++seq;
    pthread_mutex_unlock(&mtb_ssh_mu);
    if (!mtb_ssh_master_alive(m)) {
        snprintf(err, errlen, "ssh %s: the connection was lost", s->where);
        return -1;
    }
    res->connected = 1;
    res->connect_seconds = s->connect_seconds;
    snprintf(res->uname_r, sizeof res->uname_r, "%s", m->uname_r);
    res->info = json_deep_copy(m->info);
    char *out = mtb_asprintf("%s/out/%d-%d", m->root, (int)getpid(), n);
    char *line = far_line(m, out, argv, deadline_s);
    mtb_mkdir_p(local_dir);
    int rc = mtb_ssh_run(s, line, MTB_SSH_IN_HOLD, NULL, NULL, deadline_s + 20);
    free(line);
    int ret = -1, stopped = rc == 124 || rc == 125 || rc == 126;
    if (rc == -1) {
        /* ours gave up first: stop it over the master too */
        char *k = mtb_asprintf("p=$(cat %s.pid 2>/dev/null) && kill -TERM -- -$p; sleep 2; pkill -KILL -s $p; true", out);
        mtb_ssh_run(s, k, MTB_SSH_IN_NULL, NULL, NULL, 10);
        free(k);
        snprintf(err, errlen, "ssh %s: mtebench %s did not end within %.0f s (stopped)", s->where, argv[0], deadline_s);
    } else if (rc == 255 && !mtb_ssh_master_alive(m)) {
        /* the far command goes on, or is stopped by its watchdog within --ssh-alive: what it finishes stays there */
        snprintf(res->far_out, sizeof res->far_out, "%s", out);
        snprintf(err, errlen, "ssh %s: the connection was lost during mtebench %s (no answer for %.0f s; what it "
                 "finishes there stays in %s)", s->where, argv[0], mtb_ssh_alive(), out);
    } else {
        res->exit_status = stopped ? -1 : rc;
        if (rc == 124)
            snprintf(err, errlen, "ssh %s: mtebench %s did not end within %.0f s (stopped there)", s->where, argv[0],
                     deadline_s);
        else if (rc == 125)
            snprintf(err, errlen, "ssh %s: mtebench %s was stopped there: its ssh session ended early", s->where,
                     argv[0]);
        else if (rc == 126)
            snprintf(err, errlen, "ssh %s: mtebench %s was stopped there: it heard nothing from us for %.0f s",
                     s->where, argv[0], mtb_ssh_alive());
        /* bring {out} and the log back */
        int back = bring_back(s, out, n, local_dir) == 0;
        if (back) {
            res->finished = !stopped;
            ret = res->finished ? 0 : -1;
        } else if (rc != 124) {
            snprintf(err, errlen, "ssh %s: the results of mtebench %s could not be brought back (see %s)", s->where,
                     argv[0], s->sshlog);
        }
        if (back || stopped || mtb_ssh_master_alive(m)) {
            char *rm = mtb_asprintf("rm -rf %1$s %1$s.log %1$s.pid %1$s.rc", out);
            mtb_ssh_run(s, rm, MTB_SSH_IN_NULL, NULL, NULL, 30);
            free(rm);
        } else { /* lost while bringing it back: it stays there for a later fetch */
            snprintf(res->far_out, sizeof res->far_out, "%s", out);
        }
    }
    free(out);
    res->total_seconds = mtb_mono() - t0;
    return ret;
}

/* The {out} an earlier exec left on the far side when its connection was
 * lost (exec's res->far_out): brought back into local_dir when the far
 * command ended by itself (its watchdog wrote its own exit status to
 * $out.rc), then removed there; one that was stopped, or is still running
 * after --ssh-alive and the watchdog's grace, is removed (stopped) and not
 * brought back. @return 0 brought back (res->exit_status: the far
 * command's), 1 nothing to bring back (err says why), -1 with err. */
static int ssh_fetch(struct mtb_session *s, const char *far_out, const char *local_dir, struct mtb_agent_result *res,
                     char *err, size_t errlen)
{
    struct mtb_ssh_master *m = s->m;
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    char *mine = mtb_asprintf("%s/out/", m->root);
    int ours = !strncmp(far_out, mine, strlen(mine)) && safe_path(far_out + strlen(mine));
    free(mine);
    if (!ours) { /* never touch what is not an output of ours */
        snprintf(err, errlen, "ssh %s: %s is not an output directory of the agent (%s/out/...)", s->where, far_out,
                 m->root);
        return -1;
    }
    res->connected = 1;
    res->info = json_deep_copy(m->info);
    /* the far command's end: its exit status, once its watchdog wrote it (it stops it within --ssh-alive) */
    char *q = mtb_asprintf("for i in $(seq %1$d); do [ -e %2$s.rc ] && break; sleep 0.2; done 2>/dev/null; "
                           "cat %2$s.rc 2>/dev/null || { [ -d %2$s ] && echo running || echo gone; }",
                           (int)(5 * (mtb_ssh_alive() + 10)), far_out);
    int st;
    char *o = mtb_ssh_out(s, q, mtb_ssh_alive() + 30, &st);
    free(q);
    if (st != 0 || !o) {
        mtb_ssh_explain(s, s->sshlog, err, errlen);
        free(o);
        return -1;
    }
    int rc = -1, ret = 1;
    if (!strncmp(o, "gone", 4))
        snprintf(err, errlen, "ssh %s: %s is gone there (brought back, or removed, already)", s->where, far_out);
    else if (!strncmp(o, "running", 7))
        snprintf(err, errlen, "ssh %s: the far command of %s has not ended (stopped now, not brought back)", s->where,
                 far_out);
    else if (sscanf(o, "%d", &rc) != 1 || rc == 124 || rc == 125 || rc == 126)
        snprintf(err, errlen, "ssh %s: the far command of %s was stopped there (exit %d): nothing finished to bring "
                 "back", s->where, far_out, rc);
    else {
        mtb_mkdir_p(local_dir);
        static int seq;
        if (bring_back(s, far_out, 1000000 + ++seq, local_dir) == 0) {
            res->exit_status = rc;
            res->finished = 1;
            ret = 0;
        } else {
            snprintf(err, errlen, "ssh %s: %s could not be brought back (see %s)", s->where, far_out, s->sshlog);
            free(o);
            return -1;
        }
    }
    free(o);
    char *rm = mtb_asprintf("p=$(cat %1$s.pid 2>/dev/null) && { kill -TERM -- -$p; pkill -KILL -s $p; }; "
                            "rm -rf %1$s %1$s.log %1$s.pid %1$s.rc; true", far_out);
    mtb_ssh_run(s, rm, MTB_SSH_IN_NULL, NULL, NULL, 30);
    free(rm);
    return ret;
}

static void ssh_close(struct mtb_session *s)
{
    if (!s)
        return;
    free(s->where);
    free(s->dest);
    free(s->port);
    free(s->workdir);
    free(s->sshlog);
    free(s);
}

static json_t *ssh_info(struct mtb_session *s)
{
    return s->m->info;
}

static int ssh_sh(struct mtb_session *s, const char *cmdline, double deadline_s, char **out, char *err, size_t errlen)
{
    char *full = mtb_asprintf("cd %s && %s", s->m->root, cmdline);
    int st;
    char *o = mtb_ssh_out(s, full, deadline_s, &st);
    free(full);
    if (out)
        *out = o;
    else
        free(o);
    if (st < 0)
        snprintf(err, errlen, "ssh %s: command did not end within %.0f s", s->where, deadline_s);
    else if (st == 255 && !mtb_ssh_master_alive(s->m))
        snprintf(err, errlen, "ssh %s: the connection was lost", s->where);
    return st == 255 && !mtb_ssh_master_alive(s->m) ? -1 : st;
}

const struct mtb_transport mtb_transport_ssh = {
    .name = "ssh",
    .summary = "OpenSSH to [user@]host[:port]: BatchMode, known_hosts checked, one multiplexed connection per host",
    .open = ssh_open,
    .put = ssh_put,
    .exec = ssh_exec,
    .close = ssh_close,
    .sh = ssh_sh,
    .info = ssh_info,
    .fetch = ssh_fetch,
};
