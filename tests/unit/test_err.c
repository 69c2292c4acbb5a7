/* Unit tests of err (harness/lib/err.c): one way to fail below the
 * commands. The first reason stays (the root cause), where is added in
 * front, a NULL error is allowed, and the exit status is carried. Then a
 * caller of it, the plan loader: a bad plan is returned, named by file
 * and line, and nothing exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/files.h"
#include "plan/plan.h"
#include "tap.h"

/* the plan text in a file, loaded with --platform emu; rc, and e */
static int load(const char *text, struct mtb_err *e)
{
    char path[] = "/tmp/mtb-test-err-XXXXXX.conf";
    int fd = mkstemps(path, 5);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return -2;
    close(fd);
    struct mtb_opts o;
    memset(&o, 0, sizeof o);
    o.platform = "emu";
    o.kernel = "host";
    o.quiet = 1;
    struct mtb_plan p;
    int rc = mtb_plan_load(&p, path, &o, e);
    mtb_plan_free(&p);
    unlink(path);
    return rc;
}

int main(void)
{
    struct mtb_err e = { 0 };
    ok(mtb_err_set(&e, MTB_ERR_INPUT, "invalid MODE '%s'", "fast") == -1 && e.code == 2 &&
           !strcmp(e.msg, "invalid MODE 'fast'"),
       "set: -1, the code and the reason");
    mtb_err_set(&e, MTB_ERR_FAIL, "a later reason");
    ok(e.code == 2 && !strcmp(e.msg, "invalid MODE 'fast'"), "set again: the first reason stays (the root cause)");
    ok(mtb_err_prefix(&e, "plan %s: [%s]", "p.conf", "x") == -1 && !strcmp(e.msg, "plan p.conf: [x]: invalid MODE 'fast'"),
       "prefix: where, in front");
    ok(mtb_err_set(NULL, 2, "nobody listens") == -1, "a NULL error: still -1, nothing written");
    struct mtb_err lg = { 0 };
    char longhead[3000];
    memset(longhead, 'p', sizeof longhead - 1);
    longhead[sizeof longhead - 1] = 0;
    mtb_err_set(&lg, 2, "the reason, then its accepted list");
    mtb_err_prefix(&lg, "%s", longhead);
    ok(strstr(lg.msg, ": the reason, then its accepted list") != NULL, "a very long prefix is cut, never the reason");
    struct mtb_err z = { 0 };
    mtb_err_set(&z, 0, "no code");
    ok(z.code == MTB_ERR_FAIL, "a reason without a code is a failure (1)");
    /* the front's exit: the reason on stderr, the code as the status */
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        mtb_err_exit(&e);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ok(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit: the status is the error's code (2)");

    /* the plan loader fails by returning */
    struct mtb_err pe = { 0 };
    ok(load("[plan]\nreps = 3\n[a]\nservice = memcached\nmodes = async\n", &pe) == 0 && !pe.code, "a good plan loads");
    static const struct {
        const char *text, *want;
    } bad[] = {
        { "[plan]\nreps = many\n[a]\nservice = memcached\n", ":2: [plan] reps 'many' is not auto" },
        { "[a]\nservice = memcached\nmodes = fast\n", ":3: [a] unknown mode 'fast'" },
        { "[a]\nservice = memcached\ncolour = red\n", ":3: [a] unknown key 'colour'" },
        { "[a]\nservice = nosuch\n", "unknown SERVICE 'nosuch'" },
        { "[a]\nservice = memcached\nvariants = shiny\n", "[a] variants: unknown variant 'shiny'" },
        { "[a]\nservice = memcached\nworkload = nosuch\n", "invalid WORKLOAD 'nosuch'" },
        { "[plan]\n", "no entries" },
        { "not ini at all\n", ":1: malformed line" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mtb_err be = { 0 };
        int rc = load(bad[i].text, &be);
        ok(rc == -1 && be.code == 2 && strstr(be.msg, bad[i].want), "a bad plan returned, exit status 2, named: %s",
           be.msg);
    }
    return done_testing();
}
