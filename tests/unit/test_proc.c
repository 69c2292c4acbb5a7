/* Unit tests of proc: /proc/PID/stat, one parser for the quiet check and
 * perf's process group. */
#include <errno.h>
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

/* mtb_proc_capture_env: the child sees the entries added, in a process
 * group of its own; one past its deadline is killed, group and all, and
 * says so (-ETIMEDOUT) */
static void test_capture_env(void)
{
    char *const env[] = { "MTB_TEST_CAPTURE=seen", NULL };
    char *const argv[] = { "sh", "-c", "echo \"$MTB_TEST_CAPTURE $(cut -d' ' -f5 /proc/$$/stat) $$\"", NULL };
    int st = -1;
    char *out = mtb_proc_capture_env(argv, env, 0, 10, &st);
    if (out)
        out[strcspn(out, "\n")] = 0;
    char val[32] = "";
    long pgrp = 0, pid = -1;
    ok(out && sscanf(out, "%31s %ld %ld", val, &pgrp, &pid) == 3 && !strcmp(val, "seen") && pgrp == pid && st == 0,
       "capture_env: the child's environment has the entry, its group is its own (%s)", out ? out : "(null)");
    free(out);
    ok(!getenv("MTB_TEST_CAPTURE"), "... and the harness's environment is left alone");
    char *const slow[] = { "sh", "-c", "sleep 30 & wait", NULL };
    double t0 = mtb_mono();
    out = mtb_proc_capture_env(slow, NULL, 0, 0.5, &st);
    ok(!out && st == -ETIMEDOUT && mtb_mono() - t0 < 5, "a child past its deadline: killed, -ETIMEDOUT (%.1f s)",
       mtb_mono() - t0);
}

int main(void)
{
    test_proc_stat();
    test_capture_env();
    return done_testing();
}
