/* platform.c - see platform.h: what every platform shares */
#include "core/platform.h"
#include "lib/argv.h"

int mtb_platform_emulated(const struct mtb_platform *p)
{
    return p->emulated_now ? p->emulated_now() : p->emulated;
}

void mtb_platform_wrap_native(struct mtb_argv *argv, struct mtb_argv *env_out, const char *prog,
                      char *const *env)
{
    mtb_argv_push(argv, prog);
    for (char *const *e = env; e && *e; e++)
        mtb_argv_push(env_out, *e);
}
