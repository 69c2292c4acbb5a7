/* procfs.h - what /proc says of processes: the CPUs a process's tasks may
 * use, the fields of a stat file, and who listens on a TCP port. */
#ifndef MTB_PROCFS_H
#define MTB_PROCFS_H
#include <stddef.h>
#include <sys/types.h>

/* 1 when every TCP socket listening on port belongs to a process of the
 * process group pgid (and there is one), from /proc/net/tcp{,6} and
 * /proc/PID/fd; else 0, with *other a process holding one of them (0 if
 * none is visible). */
int mtb_proc_port_owned(int port, pid_t pgid, pid_t *other);
/* The union of Cpus_allowed_list over the tasks of pid, as "0-3,8", read
 * from /proc/PID/task/x/status. @return 0, or -1 when pid is gone. */
int mtb_proc_affinity(pid_t pid, char *buf, size_t len);
/* The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) we use. */
struct mtb_proc_stat {
    char comm[64];
    char state;
    int ppid, pgrp;
    unsigned long long utime, stime;   /* clock ticks */
    int processor;                     /* the CPU it last ran on */
};
/* Read and parse one stat file (comm may hold spaces and parentheses).
 * @return 0, or -1 when it is gone or malformed. */
int mtb_proc_stat_read(const char *path, struct mtb_proc_stat *st);
/* One task (thread) of a process: its thread ID, its process's, its name. */
struct mtb_proc_task {
    int tid, pid;
    char comm[64];
};
/* The tasks of root and of every process descended from it, up to max,
 * from /proc/PID/stat and /proc/PID/task (descent, not the process group:
 * PostgreSQL's children each start a session of their own). @return how
 * many, or -1 without /proc. */
int mtb_proc_tree_tasks(pid_t root, struct mtb_proc_task *out, int max);
#endif
