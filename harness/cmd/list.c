/* list.c - `mtebench list`: the services, variants, modes, platforms,
 * kernels and machine profiles there are. */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "core/kernel.h"
#include "core/machine.h"
#include "core/mode.h"
#include "core/recipe.h"
#include "lib/files.h"
#include "lib/util.h"
#include "plan/platforms.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtb_cmd_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct mtb_recipe *all;
    size_t n;
    char err[MTB_ERRLEN];
    if (mtb_recipes_all(&all, &n, err, sizeof err) != 0)
        mtb_die(1, "%s", err);
    printf("services:\n");
    for (size_t i = 0; i < n; i++) {
        printf("  %-10s %s %s: %s\n", all[i].name, all[i].source_package, all[i].source_version,
               all[i].summary ? all[i].summary : "");
        for (size_t v = 0; v < all[i].nvariants; v++)
            printf("    variant %-7s %s\n", all[i].vars[v].name, all[i].vars[v].summary ? all[i].vars[v].summary : "");
    }
    printf("modes:\n");
    mtb_for_each_mode(m) printf("  %-6s glibc.mem.tagging=%d  %s\n", m->name, m->tunable, m->summary);
    printf("platforms:\n");
    mtb_for_each_platform(p) printf("  %-6s %s\n", p->name, p->summary);
    printf("kernels:\n  host   the running kernel (platforms host, emu)\n");
    fflush(stdout);
    char *kl[] = { "kernel", "list", NULL };
    printf("  named, for PLATFORM=vm (mtebench kernel list):\n");
    fflush(stdout);
    mtb_cmd_kernel(2, kl);
    return 0;
}
