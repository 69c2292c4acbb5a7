/* test_pmu_mte.c - the PMU's MTE events chosen from `perf list` (pmu_mte.c),
 * against listings of AmpereOne, Neoverse V2, Neoverse N1 (no MTE) and an
 * MTE machine perf has no vendor list for (tests/fixtures/perf-list/README
 * says what each is made from): the bare names where perf lists them, the
 * driver's armv8_pmuv3_0/NAME/ where only it does, every absent one named. */
#include "run/pmu_mte.h"
#include "lib/files.h"
#include "lib/util.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static char *fixture(const char *name)
{
    char *p = mtb_asprintf("tests/fixtures/perf-list/%s", name); /* the suite runs from the checkout */
    char *t = mtb_read_file(p, NULL);
    free(p);
    return t;
}

static void check(const char *file, const char *want, const char *missing_want, int nwant)
{
    char *t = fixture(file), ev[512];
    json_t *missing = json_array();
    int k = t ? mtb_pmu_mte_select(t, ev, sizeof ev, missing) : -1;
    char *m = json_dumps(missing, JSON_COMPACT);
    ok(k == nwant && !strcmp(ev, want) && !strcmp(m, missing_want), "%s: -e %s, missing %s", file, ev, m);
    free(m);
    json_decref(missing);
    free(t);
}

int main(void)
{
    check("ampereone-6.12.txt", "mem_access_checked,mem_access_checked_rd,mem_access_checked_wr,inst_retired", "[]", 4);
    check("neoverse-v2-6.12.txt", "mem_access_checked,mem_access_checked_rd,mem_access_checked_wr,inst_retired", "[]",
          4);
    check("neoverse-n1-6.12.txt", "inst_retired",
          "[\"mem_access_checked\",\"mem_access_checked_rd\",\"mem_access_checked_wr\"]", 1);
    check("sysfs-only-6.12.txt",
          "armv8_pmuv3_0/mem_access_checked/,armv8_pmuv3_0/mem_access_checked_rd/,armv8_pmuv3_0/mem_access_checked_wr/,"
          "armv8_pmuv3_0/inst_retired/", "[]", 4);
    char ev[64];
    json_t *missing = json_array();
    ok(mtb_pmu_mte_select("  mem_access_checked_rdx\n  xmem_access_checked\n", ev, sizeof ev, missing) == 0 && !*ev &&
       json_array_size(missing) == 4, "a name that only begins or ends like one is not it");
    json_decref(missing);
    return done_testing();
}
