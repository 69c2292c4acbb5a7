/* cpus.h - CPUs as numbers: lists written "0-3,8" (machine profiles,
 * /proc's Cpus_allowed_list, sysfs siblings) and each CPU's tick counts from
 * /proc/stat (how busy a CPU was, and the share the hypervisor took). */
#ifndef MTB_CPUS_H
#define MTB_CPUS_H
#include <stddef.h>

#define MTB_MAX_CPUS 1024

/* Parse "0-3,8,10-11" into cpus. @return count, or -1 when malformed. */
int mtb_cpulist_parse(const char *s, int *cpus, int max);
/* "0-3,8" from a list. */
void mtb_cpulist_format(const int *cpus, int n, char *buf, size_t len);

/* One CPU's ticks since boot: all but idle and iowait, all, stolen. */
struct mtb_cpu_tick { unsigned long long busy, total, steal; };
struct mtb_cpu_ticks { struct mtb_cpu_tick c[MTB_MAX_CPUS]; };
/* The hypervisor's share of CPUs over an interval (the steal column of
 * /proc/stat): a cloud VM's vCPUs wait while the host runs other guests, and
 * a run then measures a slower machine, not slower code. Read the ticks
 * before and after (NULL: /proc/stat unreadable); the share is steal over
 * all ticks of the CPUs c with in[c] set (in: MTB_MAX_CPUS flags, or NULL:
 * every CPU), -1 when unknown (no ticks passed, or a reading missing). 0 on
 * bare metal. */
struct mtb_cpu_ticks *mtb_cpu_ticks_read(void);
double mtb_cpu_steal_share(const struct mtb_cpu_ticks *a, const struct mtb_cpu_ticks *b, const char *in);
#endif
