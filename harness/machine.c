/* machine.c - see machine.h */
#include "machine.h"
#include "util.h"

#include <errno.h>
#include <ini.h>
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

struct ld {
    struct mtb_machine *m;
    char err[256];
};

static int on_kv(void *user, const char *section, const char *key, const char *value)
{
    struct ld *l = user;
    struct mtb_machine *m = l->m;
    if (!key || strcmp(section, "machine"))
        return 1;
    if (!strcmp(key, "name"))
        snprintf(m->name, sizeof m->name, "%s", value);
    else if (!strcmp(key, "summary"))
        snprintf(m->summary, sizeof m->summary, "%s", value);
    else if (!strcmp(key, "service_cpus") || !strcmp(key, "client_cpus")) {
        int *dst = key[0] == 's' ? m->svc_cpus : m->cli_cpus;
        int n = mtb_cpulist_parse(value, dst, MTB_MAX_CPUS);
        if (n <= 0) {
            snprintf(l->err, sizeof l->err, "%s '%s' is not a CPU list such as 0-7,16", key, value);
            return 0;
        }
        *(key[0] == 's' ? &m->nsvc : &m->ncli) = n;
    } else if (!strcmp(key, "service_threads") || !strcmp(key, "loadgen_threads")) {
        long v;
        if (mtb_parse_long(value, 1, 4096, &v) != 0) {
            snprintf(l->err, sizeof l->err, "%s '%s' is not an integer from 1 to 4096", key, value);
            return 0;
        }
        *(key[0] == 's' ? &m->service_threads : &m->loadgen_threads) = v;
    } else if (!strcmp(key, "perf_events"))
        snprintf(m->perf_events, sizeof m->perf_events, "%s", value);
    else {
        snprintf(l->err, sizeof l->err, "unknown key '%s' (accepted: name, summary, service_cpus, client_cpus, "
                 "service_threads, loadgen_threads, perf_events)", key);
        return 0;
    }
    return 1;
}

int mtb_machine_load(const char *name, struct mtb_machine *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    int ncpu = mtb_ncpus();
    if (!name || !*name || !strcmp(name, "auto")) {
        snprintf(m->name, sizeof m->name, "auto");
        snprintf(m->summary, sizeof m->summary, "service on the first half of the CPUs, client on the rest");
        int half = ncpu >= 2 ? ncpu / 2 : 1;
        for (int c = 0; c < half; c++)
            m->svc_cpus[m->nsvc++] = c;
        for (int c = ncpu >= 2 ? half : 0; c < ncpu; c++)
            m->cli_cpus[m->ncli++] = c;
        return 0;
    }
    char *path = strchr(name, '/') ? mtb_strdup(name) : mtb_asprintf("%s/configs/machines/%s.conf", mtb_root(), name);
    struct ld l = { .m = m };
    int rc = ini_parse(path, on_kv, &l);
    if (rc != 0) {
        if (rc < 0)
            snprintf(err, errlen, "unknown MACHINE '%s' (no %s; profiles are in configs/machines/, or auto)", name, path);
        else
            snprintf(err, errlen, "%s:%d: %s", path, rc, l.err[0] ? l.err : "malformed line");
        free(path);
        return -1;
    }
    if (!m->name[0])
        snprintf(m->name, sizeof m->name, "%s", name);
    if (!m->nsvc || !m->ncli) {
        snprintf(err, errlen, "%s: needs service_cpus and client_cpus", path);
        free(path);
        return -1;
    }
    for (int i = 0; i < m->nsvc + m->ncli; i++) {
        int c = i < m->nsvc ? m->svc_cpus[i] : m->cli_cpus[i - m->nsvc];
        if (c >= ncpu) {
            snprintf(err, errlen, "machine profile %s uses CPU %d, but this machine has CPUs 0-%d", m->name, c, ncpu - 1);
            free(path);
            return -1;
        }
    }
    free(path);
    return 0;
}

json_t *mtb_machine_json(const struct mtb_machine *m)
{
    char s[512], c[512];
    mtb_cpulist_format(m->svc_cpus, m->nsvc, s, sizeof s);
    mtb_cpulist_format(m->cli_cpus, m->ncli, c, sizeof c);
    return json_pack("{s:s,s:s,s:s,s:I,s:I,s:s}", "name", m->name, "service_cpus", s, "client_cpus", c,
                     "service_threads", (json_int_t)m->service_threads, "loadgen_threads",
                     (json_int_t)m->loadgen_threads, "perf_events", m->perf_events);
}
