/* Unit tests of proc: /proc/PID/stat, one parser for the quiet check and
 * perf's process group. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/procfs.h"

/* /proc/PID/stat: one parser for the quiet check and perf's process group */
static void test_proc_stat(void)
{
    struct mtb_proc_stat st;
    ok(mtb_proc_stat_read("/proc/self/stat", &st) == 0, "own /proc/self/stat parsed");
    /* the fields are checked on a stopped child, as the quiet check and perf
     * read other processes: qemu-user (make rehearse-arm64) makes up a
     * process's own /proc/self/stat, pgrp 0 among the made-up fields */
    pid_t child = fork();
    if (child == 0) {
        raise(SIGSTOP);
        _exit(0);
    }
    int wst = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)child);
    int stopped = child > 0 && waitpid(child, &wst, WUNTRACED) == child && WIFSTOPPED(wst);
    int read_ok = stopped && mtb_proc_stat_read(path, &st) == 0;
    ok(read_ok && !strcmp(st.comm, "test_proc") && st.pgrp == getpgrp() && st.ppid == getpid() && st.state == 'T',
       "comm, state, ppid and pgrp of a stopped child");
    if (!read_ok)
        diag("child %d stopped %d, %s unread", (int)child, stopped, path);
    else if (strcmp(st.comm, "test_proc") || st.pgrp != getpgrp() || st.ppid != getpid() || st.state != 'T')
        diag("read comm '%s' state %c ppid %d pgrp %d; expected test_proc T %d %d", st.comm, st.state,
             (int)st.ppid, (int)st.pgrp, (int)getpid(), (int)getpgrp());
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    char tmpl[] = "/tmp/mtb-stat.XXXXXX";
    int fd = mkstemp(tmpl);
    const char *line = "42 (a (b) c) S 7 9 9 0 -1 0 0 0 0 0 123 45 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 3 0\n";
    ok(fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line), "synthetic stat written");
    close(fd);
    ok(mtb_proc_stat_read(tmpl, &st) == 0 && !strcmp(st.comm, "a (b) c") && st.ppid == 7 && st.pgrp == 9 &&
           st.utime == 123 && st.stime == 45 && st.processor == 3,
       "a comm with spaces and parentheses; utime, stime, processor");
    unlink(tmpl);
    ok(mtb_proc_stat_read("/proc/0/nonexistent", &st) == -1, "a vanished task is -1");
}

int main(void)
{
    test_proc_stat();
    return done_testing();
}
