/* build_cli.c - `mtebench build`: a service's variants built (or found
 * cached) for a platform's target. */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "core/build.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtb_cmd_build(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "build");
    o.quiet = 1; /* no platform notice */
    if (!o.mode)
        o.mode = "off";
    mtb_cli_resolve(&o);
    char err[MTB_ERRLEN];
    int rc = 0;
    for (size_t i = 0; i < o.recipe->nvariants; i++) {
        const char *v = o.recipe->variants[i];
        if (o.variant ? strcmp(v, o.variant) != 0 : mtb_recipe_yes(o.recipe->vars[i].test_only))
            continue; /* without --variant: the measured variants, not test-only ones */
        struct mtb_build b;
        if (mtb_build_ensure(o.recipe, v, mtb_cli_target(&o), o.force, 0, &b, err, sizeof err) != 0) {
            mtb_warn("%s", err);
            rc = 1;
            continue;
        }
        printf("%s %s %s %s %s\n", o.recipe->name, v, mtb_cli_target(&o), b.cached ? "cached" : "built", b.binary);
    }
    return rc;
}
