/* pmu_mte.c - see pmu_mte.h */
#include "run/pmu_mte.h"
#include "lib/files.h"
#include "lib/proc.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mtb_pmu_mte_events[MTB_PMU_MTE_NEVENTS] = { "mem_access_checked", "mem_access_checked_rd",
                                                               "mem_access_checked_wr", "inst_retired" };

/* how perf list shows event ev in the line starting at l (its first word,
 * leading blanks skipped): 2 as a bare name, 1 as PMU/ev/ (its PMU into
 * pmu), 0 not at all */
static int listed_as(const char *l, const char *ev, char *pmu, size_t pn)
{
    while (*l == ' ' || *l == '\t')
        l++;
    size_t w = strcspn(l, " \t\n["), el = strlen(ev);
    if (w == el && !strncasecmp(l, ev, el))
        return 2;
    const char *s = memchr(l, '/', w);
    if (s && (size_t)(l + w - s) == el + 2 && !strncasecmp(s + 1, ev, el) && s[el + 1] == '/') {
        snprintf(pmu, pn, "%.*s", (int)(s - l), l);
        return 1;
    }
    return 0;
}

int mtb_pmu_mte_select(const char *perf_list, char *events, size_t n, json_t *missing)
{
    int found = 0;
    events[0] = 0;
    for (int e = 0; e < MTB_PMU_MTE_NEVENTS; e++) {
        const char *ev = mtb_pmu_mte_events[e];
        int best = 0;
        char pmu[128] = "", p[128];
        for (const char *l = perf_list; l && *l;) {
            int how = listed_as(l, ev, p, sizeof p);
            if (how > best) {
                best = how;
                snprintf(pmu, sizeof pmu, "%s", p);
            }
            l = strchr(l, '\n');
            if (l)
                l++;
        }
        if (!best) {
            json_array_append_new(missing, json_string(ev));
            continue;
        }
        size_t o = strlen(events);
        if (best == 2)
            snprintf(events + o, n - o, "%s%s", o ? "," : "", ev);
        else
            snprintf(events + o, n - o, "%s%s/%s/", o ? "," : "", pmu, ev);
        found++;
    }
    return found;
}

int mtb_pmu_mte_here(char *events, size_t n, json_t *missing, char *why, size_t wn)
{
    static char *text;
    static int done, status;
    if (!done) {
        done = 1;
        char *perf = mtb_which("perf");
        if (perf) {
            char *const argv[] = { perf, "list", "--no-desc", NULL };
            text = mtb_proc_capture(argv, 0, 20, &status);
        }
        free(perf);
    }
    why[0] = 0;
    if (!text) {
        snprintf(why, wn, "no perf here (linux-perf)");
        events[0] = 0;
        for (int e = 0; e < MTB_PMU_MTE_NEVENTS; e++)
            json_array_append_new(missing, json_string(mtb_pmu_mte_events[e]));
        return 0;
    }
    int k = mtb_pmu_mte_select(text, events, n, missing);
    if (k < MTB_PMU_MTE_NEVENTS)
        snprintf(why, wn, "perf list does not show every MTE event: the PMU does not advertise them, or the kernel "
                 "predates their names (Linux 5.x arm_pmuv3)");
    return k;
}
