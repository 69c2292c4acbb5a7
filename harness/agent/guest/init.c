/*
 * mtbinit - /init of the mtebench guest (PLATFORM=vm), an aarch64 program.
 *
 * Mounts /proc, /sys, /dev, /tmp, brings up the loopback interface, prints
 * "mtebench-guest: up" on the console, then runs the guest's mtebench with
 * the arguments the host put after "--" on the kernel command line:
 *     /mtb/build/mtebench ARGS...   (MTEBENCH_ROOT=/mtb, output in /tmp/out)
 * When it ends, every file under /tmp/out is handed back on the dedicated
 * virtio console /dev/hvc0 (the serial console stays for kernel messages),
 * except directories the harness marked as a service's working data with a
 * CACHEDIR.TAG (PostgreSQL's data directory, RocksDB's database: tens of MB
 * that took a minute through the console under TCG):
 *     MTB-FILE <relative path> <size>\n<size bytes>\n ... MTB-EXIT <status>\nMTB-END\n
 * and the guest powers off. The host side is harness/transport_console.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define OUT_DIR "/tmp/out"
static int chan = -1;

static void say(const char *fmt, const char *a)
{
    printf("mtebench-guest: ");
    printf(fmt, a);
    printf("\n");
    fflush(stdout);
}

static void mnt(const char *src, const char *dst, const char *type, const char *opts)
{
    mkdir(dst, 0755);
    if (mount(src, dst, type, 0, opts) != 0 && errno != EBUSY)
        printf("mtebench-guest: mount %s on %s: %s\n", type, dst, strerror(errno));
}

static void loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
        say("no loopback interface: %s", strerror(errno));
    } else {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
            say("cannot bring lo up: %s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
}

static void put_all(const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(chan, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static int send_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_D) {
        char tag[4200];
        snprintf(tag, sizeof tag, "%s/CACHEDIR.TAG", path);
        return access(tag, F_OK) == 0 ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
    }
    if (type != FTW_F || !S_ISREG(st->st_mode))
        return FTW_CONTINUE;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return FTW_CONTINUE;
    char head[4200];
    int hn = snprintf(head, sizeof head, "MTB-FILE %s %lld\n", path + strlen(OUT_DIR) + 1,
                      (long long)st->st_size);
    put_all(head, (size_t)hn);
    char buf[65536];
    long long left = st->st_size;
    while (left > 0) {
        ssize_t r = read(fd, buf, sizeof buf < (size_t)left ? sizeof buf : (size_t)left);
        if (r <= 0) {
            memset(buf, 0, sizeof buf); /* keep the promised size */
            r = sizeof buf < (size_t)left ? (ssize_t)sizeof buf : (ssize_t)left;
        }
        put_all(buf, (size_t)r);
        left -= r;
    }
    put_all("\n", 1);
    close(fd);
    return FTW_CONTINUE;
}

int main(int argc, char **argv)
{
    mnt("proc", "/proc", "proc", NULL);
    mnt("sysfs", "/sys", "sysfs", NULL);
    mnt("devtmpfs", "/dev", "devtmpfs", NULL);
    mnt("tmpfs", "/tmp", "tmpfs", "mode=1777");
    mnt("tmpfs", "/run", "tmpfs", "mode=755");
    mnt("tmpfs", "/dev/shm", "tmpfs", "mode=1777");
    loopback_up();
    mkdir(OUT_DIR, 0755);
    /* a run with --core (a detect trial's) finds a faulting process's core
     * here (run.c's keep_core); nothing dumps one unless its RLIMIT_CORE,
     * 0 by default, is raised */
    mkdir("/tmp/cores", 01777);
    chmod("/tmp/cores", 01777);
    int cp = open("/proc/sys/kernel/core_pattern", O_WRONLY | O_CLOEXEC);
    if (cp >= 0) {
        if (write(cp, "/tmp/cores/core.%p", 18) != 18)
            say("cannot set core_pattern: %s", strerror(errno));
        close(cp);
    }

    struct utsname u;
    uname(&u);
    char up[64] = "?";
    FILE *f = fopen("/proc/uptime", "r");
    if (f) {
        if (!fgets(up, sizeof up, f))
            snprintf(up, sizeof up, "?");
        up[strcspn(up, " \n")] = 0;
        fclose(f);
    }
    printf("mtebench-guest: up uname_r=%s uptime=%s\n", u.release, up);
    fflush(stdout);

    chan = open("/dev/hvc0", O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (chan < 0) {
        say("cannot open /dev/hvc0 (no virtio console): %s", strerror(errno));
    } else {
        struct termios t;
        if (tcgetattr(chan, &t) == 0) {
            cfmakeraw(&t);
            tcsetattr(chan, TCSANOW, &t);
        }
    }

    int status = 255;
    if (argc < 2) {
        say("%s", "no arguments after -- on the kernel command line: nothing to run");
    } else {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("PATH", "/mtb/build:/usr/local/bin:/usr/bin:/bin", 1);
            setenv("HOME", "/root", 1);
            setenv("MTEBENCH_ROOT", "/mtb", 1);
            setenv("MTEBENCH_CACHE", "/tmp/cache", 1);
            setenv("MTEBENCH_SEED", "/mtb/seed", 1); /* setup copies the host put into the image */
            int lf = open(OUT_DIR "/agent.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (lf >= 0) {
                dup2(lf, 1);
                dup2(lf, 2);
            }
            argv[0] = "/mtb/build/mtebench";
            execv(argv[0], argv);
            fprintf(stderr, "mtebench-guest: cannot run %s: %s\n", argv[0], strerror(errno));
            _exit(127);
        }
        int ws = 0;
        while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        char sbuf[16];
        snprintf(sbuf, sizeof sbuf, "%d", status);
        say("agent exited with status %s", sbuf);
    }

    if (chan >= 0) {
        nftw(OUT_DIR, send_file, 16, FTW_PHYS | FTW_ACTIONRETVAL);
        char tail[64];
        int n = snprintf(tail, sizeof tail, "MTB-EXIT %d\nMTB-END\n", status);
        put_all(tail, (size_t)n);
        tcdrain(chan);
        close(chan);
    }
    say("%s", "powering off");
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
