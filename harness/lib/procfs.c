/* procfs.c - see procfs.h */
#include "lib/procfs.h"
#include "lib/cpus.h"
#include "lib/files.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mtb_proc_affinity(pid_t pid, char *buf, size_t len)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    static char seen[MTB_MAX_CPUS];
    memset(seen, 0, sizeof seen);
    struct dirent *e;
    int any = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[400];
        snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
        char *text = mtb_read_file(path, NULL);
        char *l = text ? strstr(text, "Cpus_allowed_list:") : NULL;
        if (l) {
            l += strlen("Cpus_allowed_list:");
            l[strcspn(l, "\n")] = 0;
            int c[MTB_MAX_CPUS];
            int n = mtb_cpulist_parse(l, c, MTB_MAX_CPUS);
            for (int i = 0; i < n; i++)
                seen[c[i]] = 1;
            any |= n > 0;
        }
        free(text);
    }
    closedir(d);
    int c[MTB_MAX_CPUS], n = 0;
    for (int i = 0; i < MTB_MAX_CPUS; i++)
        if (seen[i])
            c[n++] = i;
    mtb_cpulist_format(c, n, buf, len);
    return any ? 0 : -1;
}

/* Fold the CPUs pid may use now into the list in out. */
/* The inodes of the listening TCP sockets on port (IPv4 and IPv6). */
static int listen_inodes(int port, unsigned long *ino, int max)
{
    static const char *const tabs[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    int n = 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = fopen(tabs[t], "r");
        if (!f)
            continue;
        char line[512];
        if (!fgets(line, sizeof line, f)) { /* header */
            fclose(f);
            continue;
        }
        while (fgets(line, sizeof line, f) && n < max) {
            char local[64];
            unsigned st;
            unsigned long inode;
            /* sl local rem st tx:rx tr:when retr uid timeout inode */
            if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &inode) != 3 || st != 0x0A)
                continue;
            char *colon = strrchr(local, ':');
            if (colon && strtol(colon + 1, NULL, 16) == port)
                ino[n++] = inode;
        }
        fclose(f);
    }
    return n;
}

int mtb_proc_port_owned(int port, pid_t pgid, pid_t *other)
{
    unsigned long ino[16];
    int n = listen_inodes(port, ino, 16), found[16] = { 0 }, mine = 0;
    *other = 0;
    if (n == 0)
        return 0;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && (e = readdir(proc))) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0)
            continue;
        char fdp[64];
        snprintf(fdp, sizeof fdp, "/proc/%d/fd", (int)pid);
        DIR *fds = opendir(fdp);
        struct dirent *f;
        while (fds && (f = readdir(fds))) {
            char lp[320], target[64];
            snprintf(lp, sizeof lp, "%s/%s", fdp, f->d_name);
            ssize_t l = readlink(lp, target, sizeof target - 1);
            if (l <= 0)
                continue;
            target[l] = 0;
            unsigned long si;
            if (sscanf(target, "socket:[%lu]", &si) != 1)
                continue;
            for (int i = 0; i < n; i++)
                if (ino[i] == si) {
                    if (getpgid(pid) == pgid) {
                        found[i] = 1;
                        mine = 1;
                    } else if (!*other)
                        *other = pid;
                }
        }
        if (fds)
            closedir(fds);
    }
    if (proc)
        closedir(proc);
    for (int i = 0; i < n; i++)
        if (!found[i])
            return 0; /* a listener of another group, or one we cannot see */
    return mine;
}

int mtb_proc_stat_read(const char *path, struct mtb_proc_stat *st)
{
    char buf[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t r = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[r] = 0;
    char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
    if (!open_p || !close_p || close_p < open_p || !close_p[1])
        return -1;
    memset(st, 0, sizeof *st);
    st->processor = -1;
    snprintf(st->comm, sizeof st->comm, "%.*s", (int)(close_p - open_p - 1), open_p + 1);
    /* after ") ": state is field 3, ppid 4, pgrp 5; utime 14, stime 15, processor 39 */
    int field = 3;
    char *save = NULL;
    for (char *tok = strtok_r(close_p + 2, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
        switch (field) {
        case 3: st->state = tok[0]; break;
        case 4: st->ppid = atoi(tok); break;
        case 5: st->pgrp = atoi(tok); break;
        case 14: st->utime = strtoull(tok, NULL, 10); break;
        case 15: st->stime = strtoull(tok, NULL, 10); break;
        case 39: st->processor = atoi(tok); return 0;
        }
    }
    return field > 5 ? 0 : -1;
}

/* every process's pid and ppid, from /proc/PID/stat; @return how many */
static int proc_parents(int *pid, int *ppid, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end, path[300];
        long p = strtol(e->d_name, &end, 10);
        struct mtb_proc_stat st;
        snprintf(path, sizeof path, "/proc/%ld/stat", p);
        if (*end || p <= 0 || mtb_proc_stat_read(path, &st) != 0)
            continue;
        pid[n] = (int)p;
        ppid[n++] = st.ppid;
    }
    closedir(d);
    return n;
}

int mtb_proc_tree_tasks(pid_t root, struct mtb_proc_task *out, int max)
{
    enum { MAX_PROCS = 32768 };
    int *pid = mtb_calloc(MAX_PROCS, sizeof *pid), *ppid = mtb_calloc(MAX_PROCS, sizeof *ppid);
    char *in = mtb_calloc(MAX_PROCS, 1);
    int np = proc_parents(pid, ppid, MAX_PROCS), n = 0;
    /* root, then its children, theirs ... until a pass adds none */
    for (int added = 1; added;) {
        added = 0;
        for (int i = 0; i < np; i++) {
            if (in[i])
                continue;
            int parent_in = pid[i] == (int)root;
            for (int j = 0; j < np && !parent_in; j++)
                parent_in = in[j] && pid[j] == ppid[i];
            if (parent_in)
                in[i] = 1, added = 1;
        }
    }
    for (int i = 0; i < np && n < max; i++) {
        if (!in[i])
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%d/task", pid[i]);
        DIR *td = opendir(path);
        struct dirent *te;
        while (td && (te = readdir(td)) && n < max) {
            char *end, tpath[300];
            long tid = strtol(te->d_name, &end, 10);
            struct mtb_proc_stat st;
            snprintf(tpath, sizeof tpath, "/proc/%d/task/%ld/stat", pid[i], tid);
            if (*end || tid <= 0 || mtb_proc_stat_read(tpath, &st) != 0)
                continue;
            out[n].tid = (int)tid;
            out[n].pid = pid[i];
            snprintf(out[n].comm, sizeof out[n].comm, "%s", st.comm);
            n++;
        }
        if (td)
            closedir(td);
    }
    free(pid);
    free(ppid);
    free(in);
    return np < 0 ? -1 : n;
}
