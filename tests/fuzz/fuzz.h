/* fuzz.h - shared by the libFuzzer targets in tests/fuzz/ (make fuzz).
 * A harness error ends in mtb_die (exit): the targets link with
 * -Wl,--wrap=mtb_die, so that it jumps back here instead, and the input
 * counts as refused, not as a crash. */
#ifndef MTB_FUZZ_H
#define MTB_FUZZ_H
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jmp_buf fuzz_jmp;
static int fuzz_armed;

void __wrap_mtb_die(int code, const char *fmt, ...);
void __wrap_mtb_die(int code, const char *fmt, ...)
{
    (void)code;
    (void)fmt;
    if (fuzz_armed)
        longjmp(fuzz_jmp, 1);
    abort();
}

/* The input as a file (the parsers under test read files). */
static const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[256];
    if (!path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/mtb-fuzz-%d%s", tmp ? tmp : "/tmp", (int)getpid(), suffix);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
}

/* The input as a NUL-terminated string. */
static char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}
#endif
