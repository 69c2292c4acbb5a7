/* summary_env.h - the summary's environment section (analysis/summary.c
 * makes the summary; this its "environment"). */
#ifndef MTB_SUMMARY_ENV_H
#define MTB_SUMMARY_ENV_H
#include <jansson.h>

/** what the records say of where and how they ran, each text once: lists
 *  (cpu_model, cpus, kernels, platforms, qemu, builds, mtebench_versions,
 *  midr, microcode, kernel_cmdline, glibc, compilers, mte, pinning, quiet),
 *  first_started and last_finished (null when no record says). New reference. */
json_t *mtb_summary_environment(json_t *records);
#endif
