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


int mtb_proc_group_tasks(pid_t pgid, struct mtb_proc_task *out, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[300];
        struct mtb_proc_stat st;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (mtb_proc_stat_read(path, &st) != 0 || st.pgrp != (int)pgid)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/task", pid);
        DIR *td = opendir(path);
        struct dirent *te;
        while (td && (te = readdir(td)) && n < max) {
            long tid = strtol(te->d_name, &end, 10);
            char tpath[300];
            snprintf(tpath, sizeof tpath, "/proc/%ld/task/%ld/stat", pid, tid);
            if (*end || tid <= 0 || mtb_proc_stat_read(tpath, &st) != 0)
                continue;
            out[n].tid = (int)tid;
            out[n].pid = (int)pid;
            snprintf(out[n].comm, sizeof out[n].comm, "%s", st.comm);
            n++;
        }
        if (td)
            closedir(td);
    }
    closedir(d);
    return n;
}
