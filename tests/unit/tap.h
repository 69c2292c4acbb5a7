/* tap.h - a minimal TAP producer for the C unit tests (run by prove). */
#ifndef MTEBENCH_TAP_H
#define MTEBENCH_TAP_H
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_n++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return cond;
}
#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))
/* Print the plan at the end and return the exit status for main(). */
/* a test that ran no check fails (a bare "1..0" is a skip to prove) */
static inline int done_testing(void)
{
    if (tap_n == 0) {
        printf("not ok 1 - the test ran no check\n");
        tap_n = 1;
        tap_failed = 1;
    }
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}
#endif
