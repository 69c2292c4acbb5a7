/* platforms.h - the platforms there are (a registry ended by NULL): host
 * and emu run here (run/), vm has its runs performed in a guest (agent/).
 * Adding a platform is its file and a row in platforms.c. */
#ifndef MTB_PLATFORMS_H
#define MTB_PLATFORMS_H
#include "core/platform.h"

/* The platforms (NULL-terminated), one per file. */
extern const struct mtb_platform mtb_platform_host, mtb_platform_emu, mtb_platform_vm;
extern const struct mtb_platform *const mtb_platforms[];
#define mtb_for_each_platform(p)                                                                   \
    for (const struct mtb_platform *const *p##_i = mtb_platforms, *p; (p = *p##_i) != NULL; p##_i++)
const struct mtb_platform *mtb_platform_find(const char *name);
const char *mtb_platform_names(void);
/* host on an MTE-capable arm64 machine, else emu; *notice explains. */
const struct mtb_platform *mtb_platform_default(const char **notice);
#endif
