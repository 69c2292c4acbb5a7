/* platforms.c - see platforms.h */
#include "plan/platforms.h"
#include "core/hostfacts.h"

#include <stdio.h>
#include <string.h>

const struct mtb_platform *const mtb_platforms[] = { &mtb_platform_host, &mtb_platform_emu, &mtb_platform_vm, NULL };

const struct mtb_platform *mtb_platform_find(const char *name)
{
    mtb_for_each_platform(p) if (name && !strcmp(p->name, name)) return p;
    return NULL;
}

const char *mtb_platform_names(void)
{
    static char buf[128];
    if (!buf[0])
        mtb_for_each_platform(p)
        {
            if (buf[0])
                strcat(buf, ", ");
            strcat(buf, p->name);
        }
    return buf;
}

const struct mtb_platform *mtb_platform_default(const char **notice)
{
    if (mtb_host_has_mte()) {
        *notice = NULL;
        return mtb_platform_find("host");
    }
    *notice = "this CPU has no MTE: running under aarch64 emulation (PLATFORM=emu); "
              "figures are emulated, not hardware timings";
    return mtb_platform_find("emu");
}
