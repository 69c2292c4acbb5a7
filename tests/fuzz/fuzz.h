/* fuzz.h - shared by the libFuzzer targets in tests/fuzz/ (make fuzz).
 * The parsers under test refuse bad input by returning it (lib/err.h),
 * never by exiting, so a target calls them as the commands do: an exit
 * is a finding, as a crash is. */
#ifndef MTB_FUZZ_H
#define MTB_FUZZ_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libFuzzer writes what it finds (crash-*, leak-*, oom-*, timeout-*) to
 * the current directory unless -artifact_prefix says otherwise; two landed
 * in the repository's root once. Without one, they go next to the binary
 * (build/fuzz/<target>-crash-..., which git ignores), as make fuzz has it. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int i = 1; i < *argc; i++)
        if (!strncmp((*argv)[i], "-artifact_prefix=", 17) || !strncmp((*argv)[i], "-exact_artifact_path=", 21))
            return 0;
    static char exe[4096], prefix[4096 + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = 0;
    snprintf(prefix, sizeof prefix, "-artifact_prefix=%s-", exe);
    char **args = calloc((size_t)*argc + 2, sizeof *args); /* kept: libFuzzer reads it to the end */
    if (!args)
        abort();
    memcpy(args, *argv, (size_t)*argc * sizeof *args);
    args[(*argc)++] = prefix;
    *argv = args;
    return 0;
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
