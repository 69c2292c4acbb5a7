/* cpus.c - see cpus.h */
#include "lib/cpus.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtb_cpulist_parse(const char *s, int *cpus, int max)
{
    int n = 0;
    if (!s)
        return -1;
    char *copy = mtb_strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *end;
        errno = 0;
        long a = strtol(t, &end, 10), b = a;
        if (end == t || a < 0 || errno)
            goto bad;
        if (*end == '-') {
            char *e2;
            b = strtol(end + 1, &e2, 10);
            if (e2 == end + 1 || *e2 || b < a)
                goto bad;
        } else if (*end) {
            goto bad;
        }
        for (long c = a; c <= b; c++) {
            if (n >= max || c >= MTB_MAX_CPUS)
                goto bad;
            cpus[n++] = (int)c;
        }
    }
    free(copy);
    return n;
bad:
    free(copy);
    return -1;
}

void mtb_cpulist_format(const int *cpus, int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n && o < len; i++) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        int w = j > i ? snprintf(buf + o, len - o, "%s%d-%d", o ? "," : "", cpus[i], cpus[j])
                      : snprintf(buf + o, len - o, "%s%d", o ? "," : "", cpus[i]);
        if (w < 0)
            break;
        o += (size_t)w;
        i = j;
    }
}

static int read_stat(struct mtb_cpu_tick *cs)
{
    memset(cs, 0, MTB_MAX_CPUS * sizeof *cs);
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        int cpu;
        unsigned long long v[10] = { 0 };
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]) >= 5 && cpu >= 0 && cpu < MTB_MAX_CPUS) {
            unsigned long long tot = 0;
            for (int i = 0; i < 8; i++)
                tot += v[i];
            cs[cpu].total = tot;
            cs[cpu].busy = tot - v[3] - v[4]; /* all but idle and iowait */
            cs[cpu].steal = v[7];
        }
    }
    fclose(f);
    return 0;
}

struct mtb_cpu_ticks *mtb_cpu_ticks_read(void)
{
    struct mtb_cpu_ticks *t = mtb_calloc(1, sizeof *t);
    if (read_stat(t->c) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

double mtb_cpu_steal_share(const struct mtb_cpu_ticks *a, const struct mtb_cpu_ticks *b, const char *in)
{
    if (!a || !b)
        return -1;
    unsigned long long steal = 0, total = 0;
    for (int c = 0; c < MTB_MAX_CPUS; c++) {
        if ((in && !in[c]) || b->c[c].total <= a->c[c].total)
            continue;
        total += b->c[c].total - a->c[c].total;
        steal += b->c[c].steal >= a->c[c].steal ? b->c[c].steal - a->c[c].steal : 0;
    }
    return total ? (double)steal / (double)total : -1;
}
