/* kernel_cli.c - `mtebench kernel build NAME... | info NAME | list`: the
 * named arm64 kernels of PLATFORM=vm (core/kernel.c builds them). */
#include "cmd/commands.h"
#include "core/kernel.h"
#include "lib/argv.h"
#include "lib/opttab.h"
#include "lib/util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_SOURCE = 1, O_FORCE, O_HELP };
static const struct mtb_opt opts[] = {
    MTB_OPT("source", "V", "KERNEL_SOURCE", O_SOURCE, NULL, "the kernel source version (" MTB_KERNEL_SOURCES ")"),
    MTB_OPT("force", NULL, NULL, O_FORCE, NULL, "build again even when the cache has it"),
    MTB_OPT("help", NULL, NULL, O_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const tabs[] = { opts, NULL };

static void usage(FILE *f)
{
    fprintf(f, "usage: mtebench kernel build NAME... [--source V] [--force]\n"
               "       mtebench kernel info NAME [--source V]   (builds when missing; prints JSON)\n"
               "       mtebench kernel list\n"
               "named kernels: %s (configs/kernel/*.conf); sources: %s (default %s, or $KERNEL_SOURCE)\n"
               "options:\n",
            mtb_kernel_names(), MTB_KERNEL_SOURCES, MTB_KERNEL_SOURCE_DEFAULT);
    mtb_opt_help(f, tabs, "kernel");
}

static int list(void)
{
    struct mtb_argv names = { 0 };
    mtb_argv_split(&names, mtb_kernel_names());
    for (int i = 0; i < names.n; i++) {
        char *n = names.v[i];
        n[strcspn(n, ",")] = 0;
        char *summary = mtb_kernel_summary(n);
        if (summary)
            printf("  %-8s %s\n", n, summary);
        free(summary);
    }
    mtb_argv_free(&names);
    return 0;
}

int mtb_cmd_kernel(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "list"))
        return list();
    if (strcmp(sub, "build") && strcmp(sub, "info"))
        mtb_die(2, "kernel: unknown subcommand '%s' (accepted: build, info, list)", sub);
    const char *source = NULL;
    int force = 0, c;
    struct mtb_optp p;
    mtb_opt_init(&p, argc - 1, argv + 1, "kernel", 0);
    while ((c = mtb_opt_next(&p, tabs)) > 0)
        if (c == O_SOURCE)
            source = p.val;
        else if (c == O_FORCE)
            force = 1;
        else {
            usage(stdout);
            mtb_opt_free(&p);
            return 0;
        }
    if (c == MTB_OPT_ERR)
        mtb_die(2, "kernel %s: %s", sub, p.err);
    if (!p.npos)
        mtb_die(2, "kernel %s: no kernel name given (accepted: %s)", sub, mtb_kernel_names());
    int rc = 0;
    for (int i = 0; i < p.npos; i++) {
        struct mtb_kernel k;
        char err[MTB_ERRLEN];
        if (mtb_kernel_ensure(p.pos[i], source, force, 0, &k, err, sizeof err) != 0) {
            mtb_warn("%s", err);
            rc = 1;
            continue;
        }
        if (!strcmp(sub, "info")) {
            json_dumpf(k.info, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
            printf("\n");
        } else {
            printf("kernel %s %s %s %s %s\n", k.name, k.source[0] ? k.source : "-", k.release ? k.release : "-",
                   k.cached ? "cached" : "built", k.image);
        }
        mtb_kernel_free(&k);
    }
    mtb_opt_free(&p);
    return rc;
}
