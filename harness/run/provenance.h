/* provenance.h - where figures came from: CPU model and MIDR, microcode,
 * kernel command line, glibc and compiler versions, whether the kernel has
 * MTE enabled (arm64.nomte, HWCAP2_MTE), and mte_tcf_preferred of each CPU
 * the profile uses. Recorded in every run's environment block. */
#ifndef MTB_PROVENANCE_H
#define MTB_PROVENANCE_H
#include <jansson.h>
#include "core/machine.h"

json_t *mtb_provenance(const struct mtb_machine *m);
#endif
