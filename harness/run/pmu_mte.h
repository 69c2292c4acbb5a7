/* pmu_mte.h - MTE's work from the PMU on MTE hardware (docs/COUNTING.md,
 * "On MTE hardware"): the Armv8.5 events MEM_ACCESS_CHECKED (0x4024), _RD
 * (0x4025) and _WR (0x4026), which Linux's arm_pmuv3 driver names
 * mem_access_checked, mem_access_checked_rd and mem_access_checked_wr
 * (listed only where the PMU's PMCEID registers advertise them) and perf's
 * vendor lists carry for Neoverse N2/V2 and AmpereOne, with INST_RETIRED
 * beside them. Where the vm platform's plugin counts Tag Checked accesses
 * under QEMU, these count them on the hardware, beside its timings. */
#ifndef MTB_PMU_MTE_H
#define MTB_PMU_MTE_H
#include <jansson.h>
#include <stddef.h>

/* the events wanted, in order: mem_access_checked, mem_access_checked_rd,
 * mem_access_checked_wr, inst_retired */
#define MTB_PMU_MTE_NEVENTS 4

/* From `perf list` output (any of its layouts: a bare name, "PMU/name/", with
 * or without a description), the perf -e list of the wanted events this
 * machine has, each as perf accepts it (the bare name where perf lists one,
 * else the PMU-qualified form), into events (n bytes, "" when none); and
 * the names of those it lacks into missing (an array, appended to). @return
 * how many were found. */
int mtb_pmu_mte_select(const char *perf_list, char *events, size_t n, json_t *missing);

/* The same from this machine's `perf list` (run once, at most 20 s; NULL
 * text when perf is absent: every event missing, why says so). */
int mtb_pmu_mte_here(char *events, size_t n, json_t *missing, char *why, size_t wn);
#endif
