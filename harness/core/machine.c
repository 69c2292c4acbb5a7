/* machine.c - see machine.h */
#include "core/machine.h"
#include "lib/inifile.h"
#include "lib/util.h"
#include "lib/files.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int mtb_numa_bind_try(int node, char *why, size_t n);

/* ---- profile files: inih, with the line of each key (inifile.h) ----------- */

struct ld {
    struct mtb_machine *m;
    const char *path;
    struct mtb_inifile ini;   /* ini.line: the line being parsed */
    char err[512];
};

static const char *const machine_keys =
    "name, summary, cpus, service_cpus, client_cpus, allow_overlap, numa_node, numa_strict, cores, service_threads, "
    "loadgen_threads, perf_events, perf_raw, microarch, cpu_parts, governor, set_governor, boost, smt_siblings, "
    "server_host, client_hosts, server_address";

static int yesno(const char *v, int *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
        *out = 1;
    else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
        *out = 0;
    else
        return -1;
    return 0;
}

#define FAIL(...) do { snprintf(l->err, sizeof l->err, __VA_ARGS__); return 0; } while (0)

/* server_host, server_address, client_hosts. @return 0, or -1 with err */
static int hosts_key(struct mtb_machine *m, const char *key, const char *value, char *err, size_t errlen)
{
    if (strcmp(key, "client_hosts")) {
        if (!*value || strchr(value, ' ') || strchr(value, ',') || value[0] == '-') {
            snprintf(err, errlen, "%s '%s' is not one host ([user@]host[:port], or local)", key, value);
            return -1;
        }
        snprintf(key[7] == 'h' ? m->server_host : m->server_address, sizeof m->server_host, "%s", value);
        return 0;
    }
    if (!*value || strchr(value, ' ') || value[0] == '-' || strstr(value, ",,")) {
        snprintf(err, errlen, "client_hosts '%s' is not a list of hosts such as h1,user@h2,h3:2222", value);
        return -1;
    }
    snprintf(m->client_hosts, sizeof m->client_hosts, "%s", value);
    return 0;
}

/* The key handlers of a profile's [machine] section, one per meaning. Each
 * returns 1 (taken), 0 (bad value: l->err says why) or -1 (not its key). */

/* where the service and the load generator run: CPUs, sweeps, NUMA, threads */
static int cpu_key(struct ld *l, struct mtb_machine *m, const char *key, const char *value)
{
    long v;
    if (!strcmp(key, "cpus")) {
        if (mtb_parse_long(value, 1, MTB_MAX_CPUS, &v) != 0)
            FAIL("cpus '%s' is not an integer from 1 to %d", value, MTB_MAX_CPUS);
        m->cpus = (int)v;
    } else if (!strcmp(key, "sweep_cpus")) {
        if ((m->nswp = mtb_cpulist_parse(value, m->swp_cpus, MTB_MAX_CPUS)) <= 0)
            FAIL("%s '%s' is not a CPU list such as 0-7,16", key, value);
        m->swp_line = l->ini.line;
    } else if (!strcmp(key, "service_cpus") || !strcmp(key, "client_cpus")) {
        int svc = key[0] == 's';
        int n = mtb_cpulist_parse(value, svc ? m->svc_cpus : m->cli_cpus, MTB_MAX_CPUS);
        if (n <= 0)
            FAIL("%s '%s' is not a CPU list such as 0-7,16", key, value);
        *(svc ? &m->nsvc : &m->ncli) = n;
        *(svc ? &m->svc_line : &m->cli_line) = l->ini.line;
    } else if (!strcmp(key, "allow_overlap")) {
        if (yesno(value, &m->allow_overlap) != 0)
            FAIL("%s '%s' is not yes or no", key, value);
    } else if (!strcmp(key, "numa_strict")) {
        if (yesno(value, &m->numa_strict) != 0)
            FAIL("numa_strict '%s' is not yes or no", value);
    } else if (!strcmp(key, "numa_node")) {
        if (!strcmp(value, "none"))
            m->numa_node = -1;
        else if (mtb_parse_long(value, 0, 1023, &v) != 0)
            FAIL("numa_node '%s' is not a node number (0-1023) or none", value);
        else
            m->numa_node = (int)v;
    } else if (!strcmp(key, "service_threads") || !strcmp(key, "loadgen_threads")) {
        if (mtb_parse_long(value, 1, 4096, &v) != 0)
            FAIL("%s '%s' is not an integer from 1 to 4096", key, value);
        *(key[0] == 's' ? &m->service_threads : &m->loadgen_threads) = v;
    } else {
        return -1;
    }
    return 1;
}

/* the core sweep: core counts, or one CPU per core type (big.LITTLE) */
static int sweep_key(struct ld *l, struct mtb_machine *m, const char *key, const char *value)
{
    if (!strcmp(key, "cores")) {
        int c[MTB_MAX_CPUS];
        int n = mtb_cpulist_parse(value, c, MTB_MAX_CPUS);
        if (n <= 0 || n > MTB_MAX_SWEEP)
            FAIL("cores '%s' is not a list of core counts such as 8,64,128 (at most %d)", value, MTB_MAX_SWEEP);
        for (int i = 0; i < n; i++)
            if (c[i] < 1)
                FAIL("cores '%s': a core count must be at least 1", value);
        memcpy(m->cores, c, (size_t)n * sizeof *c);
        m->ncores = n;
        return 1;
    }
    if (strcmp(key, "core_types"))
        return -1;
    char *copy = mtb_strdup(value), *save = NULL;
    m->ntypes = 0;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *colon = strchr(t, ':');
        long cpu;
        if (!colon || colon == t || colon - t >= 24 || mtb_parse_long(colon + 1, 0, MTB_MAX_CPUS - 1, &cpu) != 0 ||
            m->ntypes >= MTB_MAX_SWEEP) {
            snprintf(l->err, sizeof l->err, "core_types entry '%s' is not TYPE:CPU (e.g. little:0, big:4)", t);
            free(copy);
            return 0;
        }
        snprintf(m->type_name[m->ntypes], sizeof m->type_name[0], "%.*s", (int)(colon - t), t);
        m->type_cpu[m->ntypes++] = (int)cpu;
    }
    free(copy);
    m->types_line = l->ini.line;
    return 1;
}

/* the perf events counted: generic names, and raw ones as label=rHEX */
static int perf_key(struct ld *l, struct mtb_machine *m, const char *key, const char *value)
{
    if (!strcmp(key, "perf_events")) {
        /* repeated keys join (inih cuts lines at 200 characters) */
        size_t o = strlen(m->perf_events);
        snprintf(m->perf_events + o, sizeof m->perf_events - o, "%s%s", o ? "," : "", value);
        return 1;
    }
    if (strcmp(key, "perf_raw"))
        return -1;
    char *copy = mtb_strdup(value), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *eq = strchr(t, '=');
        int good = eq && eq > t && eq[1] == 'r' && eq[2];
        for (char *p = eq ? eq + 2 : t; good && *p; p++)
            good = isxdigit((unsigned char)*p);
        if (!good) {
            snprintf(l->err, sizeof l->err, "perf_raw entry '%s' is not label=rHEX (e.g. STALL_BACKEND_MEM=r4005)", t);
            free(copy);
            return 0;
        }
    }
    free(copy);
    size_t o = strlen(m->perf_raw);
    snprintf(m->perf_raw + o, sizeof m->perf_raw - o, "%s%s", o ? "," : "", value);
    return 1;
}

/* what the quiet check expects of the machine: governor, boost, SMT siblings */
static int quiet_key(struct ld *l, struct mtb_machine *m, const char *key, const char *value)
{
    if (!strcmp(key, "governor")) {
        snprintf(m->governor, sizeof m->governor, "%s", value);
    } else if (!strcmp(key, "set_governor")) {
        if (yesno(value, &m->set_governor) != 0)
            FAIL("%s '%s' is not yes or no", key, value);
    } else if (!strcmp(key, "boost")) {
        if (!strcmp(value, "off"))
            m->boost_off = 1;
        else if (strcmp(value, "any"))
            FAIL("boost '%s' is not off or any", value);
    } else if (!strcmp(key, "smt_siblings")) {
        if (!strcmp(value, "allow"))
            m->smt_siblings_ok = 1;
        else if (strcmp(value, "forbid"))
            FAIL("smt_siblings '%s' is not allow or forbid", value);
    } else {
        return -1;
    }
    return 1;
}

/* what the profile says it is: name, summary, microarchitecture, CPU parts */
static int identity_key(struct mtb_machine *m, const char *key, const char *value)
{
    if (!strcmp(key, "name"))
        snprintf(m->name, sizeof m->name, "%s", value);
    else if (!strcmp(key, "summary"))
        snprintf(m->summary, sizeof m->summary, "%s", value);
    else if (!strcmp(key, "microarch"))
        snprintf(m->microarch, sizeof m->microarch, "%s", value);
    else if (!strcmp(key, "cpu_parts"))
        snprintf(m->cpu_parts, sizeof m->cpu_parts, "%s", value);
    else
        return -1;
    return 1;
}

static int on_kv(void *user, const char *section, const char *key, const char *value)
{
    struct ld *l = user;
    struct mtb_machine *m = l->m;
    if (!key)
        return strcmp(section, "machine") ? (snprintf(l->err, sizeof l->err, "unknown section [%s] (accepted: [machine])",
                                                     section), 0) : 1;
    if (strcmp(section, "machine"))
        FAIL("key '%s' outside the [machine] section", key);
    int r = identity_key(m, key, value);
    if (r < 0)
        r = cpu_key(l, m, key, value);
    if (r < 0)
        r = sweep_key(l, m, key, value);
    if (r < 0)
        r = perf_key(l, m, key, value);
    if (r < 0)
        r = quiet_key(l, m, key, value);
    if (r < 0 && (!strcmp(key, "server_host") || !strcmp(key, "server_address") || !strcmp(key, "client_hosts")))
        r = hosts_key(m, key, value, l->err, sizeof l->err) == 0;
    if (r < 0)
        FAIL("unknown key '%s' (accepted: %s)", key, machine_keys);
    return r;
}

int mtb_machine_parse(const char *path, struct mtb_machine *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->numa_node = -1;
    m->numa_strict = 1;
    snprintf(m->path, sizeof m->path, "%s", path);
    struct ld l = { .m = m, .path = path };
    int rc = mtb_inifile_parse(path, &l.ini, on_kv, &l);
    if (rc == -1) {
        snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(errno));
        return -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: %s", path, rc, l.err[0] ? l.err : "malformed line");
        return -1;
    }
    if (!m->nsvc || !m->ncli) {
        snprintf(err, errlen, "%s: needs service_cpus and client_cpus", path);
        return -1;
    }
    if (!m->nswp) {
        memcpy(m->swp_cpus, m->svc_cpus, (size_t)m->nsvc * sizeof *m->svc_cpus);
        m->nswp = m->nsvc;
        m->swp_line = m->svc_line;
    }
    /* the lists against the machine the profile describes */
    static const char *const list_names[] = { "service_cpus", "client_cpus", "sweep_cpus" };
    for (int s = 0; s < 3; s++) {
        const int *c = s == 0 ? m->svc_cpus : s == 1 ? m->cli_cpus : m->swp_cpus;
        int n = s == 0 ? m->nsvc : s == 1 ? m->ncli : m->nswp;
        int line = s == 0 ? m->svc_line : s == 1 ? m->cli_line : m->swp_line;
        for (int i = 0; m->cpus && i < n; i++)
            if (c[i] >= m->cpus) {
                snprintf(err, errlen, "%s:%d: %s uses CPU %d, out of range for the profile's cpus = %d (0-%d)", path,
                         line, list_names[s], c[i], m->cpus, m->cpus - 1);
                return -1;
            }
    }
    for (int s = 0; s < 2 && !m->allow_overlap; s++) {
        const int *c = s ? m->swp_cpus : m->svc_cpus;
        int n = s ? m->nswp : m->nsvc;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m->ncli; j++)
                if (c[i] == m->cli_cpus[j]) {
                    snprintf(err, errlen, "%s:%d: client_cpus shares CPU %d with %s (line %d); server and "
                             "client never share a core unless the profile says allow_overlap = yes", path,
                             m->cli_line, m->cli_cpus[j], list_names[s ? 2 : 0], s ? m->swp_line : m->svc_line);
                    return -1;
                }
    }
    for (int i = 0; i < m->ntypes; i++) {
        int in = 0;
        for (int j = 0; j < m->nsvc; j++)
            in |= m->svc_cpus[j] == m->type_cpu[i];
        if (!in) {
            snprintf(err, errlen, "%s:%d: core_types: CPU %d (%s) is not in service_cpus (line %d)", path, m->types_line,
                     m->type_cpu[i], m->type_name[i], m->svc_line);
            return -1;
        }
    }
    for (int i = 0; i < m->ncores; i++)
        if (m->cores[i] > m->nswp) {
            snprintf(err, errlen, "%s: cores: %d server cores asked for, but sweep_cpus has %d (line %d)", path,
                     m->cores[i], m->nswp, m->swp_line);
            return -1;
        }
    return 0;
}

static int machine_load(const char *name, const char *server_host, struct mtb_machine *m, char *err, size_t errlen);

int mtb_machine_load(const char *name, struct mtb_machine *m, char *err, size_t errlen)
{
    return machine_load(name, NULL, m, err, errlen);
}

int mtb_machine_load_hosts(const char *name, const char *server_host, const char *client_hosts, struct mtb_machine *m,
                           char *err, size_t errlen)
{
    if (machine_load(name, server_host, m, err, errlen) != 0)
        return -1;
    if (server_host)
        snprintf(m->server_host, sizeof m->server_host, "%s", server_host);
    if (client_hosts)
        snprintf(m->client_hosts, sizeof m->client_hosts, "%s", !strcmp(client_hosts, "none") ? "" : client_hosts);
    return 0;
}

static int machine_load(const char *name, const char *server_host, struct mtb_machine *m, char *err, size_t errlen)
{
    int ncpu = mtb_ncpus();
    if (!name || !*name || !strcmp(name, "auto")) {
        memset(m, 0, sizeof *m);
        m->numa_node = -1;
        snprintf(m->name, sizeof m->name, "auto");
        snprintf(m->summary, sizeof m->summary, "service on the first half of the CPUs, client on the rest");
        int half = ncpu >= 2 ? ncpu / 2 : 1;
        for (int c = 0; c < half; c++)
            m->svc_cpus[m->nsvc++] = c;
        for (int c = ncpu >= 2 ? half : 0; c < ncpu; c++)
            m->cli_cpus[m->ncli++] = c;
        memcpy(m->swp_cpus, m->svc_cpus, (size_t)m->nsvc * sizeof *m->svc_cpus);
        m->nswp = m->nsvc;
        m->allow_overlap = ncpu < 2;
        m->smt_siblings_ok = 1;
        return 0;
    }
    char *path = strchr(name, '/') ? mtb_strdup(name) : mtb_asprintf("%s/configs/machines/%s.conf", mtb_root(), name);
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen, "unknown MACHINE '%s' (no %s; profiles are in configs/machines/, or auto)", name, path);
        free(path);
        return -1;
    }
    int rc = mtb_machine_parse(path, m, err, errlen);
    if (rc == 0 && !m->name[0])
        snprintf(m->name, sizeof m->name, "%s", name);
    /* a profile of a remote server host is checked there, not here */
    int remote = server_host ? strcmp(server_host, "local") != 0 : mtb_machine_remote(m);
    for (int s = 0; rc == 0 && !remote && s < 3; s++) {
        const int *c = s == 0 ? m->svc_cpus : s == 1 ? m->cli_cpus : m->swp_cpus;
        int n = s == 0 ? m->nsvc : s == 1 ? m->ncli : m->nswp;
        for (int i = 0; i < n; i++)
            if (c[i] >= ncpu) {
                snprintf(err, errlen, "%s:%d: %s uses CPU %d, out of range: this machine has CPUs 0-%d (profile %s; "
                         "`mtebench doctor` suggests one)", path, s == 0 ? m->svc_line : s == 1 ? m->cli_line : m->swp_line,
                         s == 0 ? "service_cpus" : s == 1 ? "client_cpus" : "sweep_cpus", c[i], ncpu - 1, m->name);
                rc = -1;
                break;
            }
    }
    if (rc == 0 && m->numa_node >= 0 && mtb_numa_bind_try(m->numa_node, err, errlen) != 0) {
        if (m->numa_strict) {
            size_t l = strlen(err);
            snprintf(err + l, errlen - l, " (profile %s: set numa_strict = no to run unbound with a warning, "
                     "or numa_node = none)", path);
            rc = -1;
        } else {
            snprintf(m->numa_warning, sizeof m->numa_warning, "%s: memory NOT bound (numa_strict = no)", err);
            fprintf(stderr, "mtebench: warning: %s\n", m->numa_warning);
            m->numa_node = -1;
            err[0] = 0;
        }
    }
    free(path);
    return rc;
}

int mtb_machine_remote(const struct mtb_machine *m)
{
    return m->server_host[0] && strcmp(m->server_host, "local");
}

/* Whether memory can be bound to NUMA node `node` here (set_mempolicy
 * MPOL_BIND, tried and undone). @return 0, or -1 with "binding memory to
 * NUMA node N failed (...)" in why. */
static int mtb_numa_bind_try(int node, char *why, size_t n)
{
    /* what the service's child does before exec (proc.c): bind, here on
     * this thread, then back to the default policy */
    unsigned long mask[1024 / (8 * sizeof(unsigned long))] = { 0 };
    if (node < 0 || node >= 1024) {
        snprintf(why, n, "binding memory to NUMA node %d failed: not a node number (0-1023)", node);
        return -1;
    }
    mask[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
    if (syscall(SYS_set_mempolicy, 2 /* MPOL_BIND */, mask, (unsigned long)1024) != 0) {
        int e = errno;
        char *online = mtb_read_file("/sys/devices/system/node/online", NULL);
        if (online)
            online[strcspn(online, "\n")] = 0;
        snprintf(why, n, "binding memory to NUMA node %d failed (set_mempolicy: %s; this machine's nodes: %s)", node,
                 strerror(e), online && *online ? online : "unknown");
        free(online);
        return -1;
    }
    syscall(SYS_set_mempolicy, 0 /* MPOL_DEFAULT */, NULL, 0UL);
    return 0;
}

int mtb_machine_svc_slice(const struct mtb_machine *m, long cores, int *cpus)
{
    if (cores <= 0) {
        memcpy(cpus, m->svc_cpus, (size_t)m->nsvc * sizeof *cpus);
        return m->nsvc;
    }
    int n = cores < m->nswp ? (int)cores : m->nswp;
    memcpy(cpus, m->swp_cpus, (size_t)n * sizeof *cpus);
    return n;
}

char *mtb_machine_perf_list(const struct mtb_machine *m)
{
    char *out = mtb_strdup(m->perf_events);
    char *copy = mtb_strdup(m->perf_raw), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *eq = strchr(t, '=');
        char *n = mtb_asprintf("%s%s%s", out, *out ? "," : "", eq ? eq + 1 : t);
        free(out);
        out = n;
    }
    free(copy);
    return out;
}

json_t *mtb_machine_json(const struct mtb_machine *m)
{
    char s[512], c[512], w[512];
    mtb_cpulist_format(m->swp_cpus, m->nswp, w, sizeof w);
    mtb_cpulist_format(m->svc_cpus, m->nsvc, s, sizeof s);
    mtb_cpulist_format(m->cli_cpus, m->ncli, c, sizeof c);
    json_t *cores = json_array();
    for (int i = 0; i < m->ncores; i++)
        json_array_append_new(cores, json_integer(m->cores[i]));
    json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:s}", "name", m->name, "service_cpus", s, "client_cpus", c,
                          "service_threads", (json_int_t)m->service_threads, "loadgen_threads",
                          (json_int_t)m->loadgen_threads, "perf_events", m->perf_events);
    json_object_set_new(o, "perf_raw", json_string(m->perf_raw));
    json_object_set_new(o, "microarch", json_string(m->microarch));
    json_object_set_new(o, "numa_node", m->numa_node >= 0 ? json_integer(m->numa_node) : json_null());
    if (m->numa_warning[0])
        json_object_set_new(o, "numa_warning", json_string(m->numa_warning));
    json_object_set_new(o, "cores", cores);
    json_object_set_new(o, "sweep_cpus", json_string(w));
    json_t *types = json_object();
    for (int i = 0; i < m->ntypes; i++)
        json_object_set_new(types, m->type_name[i], json_integer(m->type_cpu[i]));
    json_object_set_new(o, "core_types", types);
    json_object_set_new(o, "allow_overlap", json_boolean(m->allow_overlap));
    json_object_set_new(o, "governor", json_string(m->governor));
    json_object_set_new(o, "file", json_string(m->path));
    if (mtb_machine_remote(m) || m->client_hosts[0])
        json_object_set_new(o, "hosts", json_pack("{s:s,s:s}", "server", mtb_machine_remote(m) ? m->server_host : "local",
                                                  "clients", m->client_hosts));
    return o;
}

/* ---- which profile suits this machine ------------------------------------ */

/* The distinct "implementer:part" pairs of /proc/cpuinfo (arm64). */
static int cpu_parts(const char *cpuinfo, char parts[][16], int max)
{
    int n = 0;
    long impl = -1;
    for (const char *p = cpuinfo; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        long v;
        if (sscanf(p, "CPU implementer : %li", &v) == 1 || sscanf(p, "CPU implementer\t: %li", &v) == 1)
            impl = v;
        else if ((sscanf(p, "CPU part : %li", &v) == 1 || sscanf(p, "CPU part\t: %li", &v) == 1) && impl >= 0) {
            char buf[16];
            snprintf(buf, sizeof buf, "0x%02x:0x%03x", (unsigned)(impl & 0xff), (unsigned)(v & 0xfff));
            int seen = 0;
            for (int i = 0; i < n; i++)
                seen |= !strcmp(parts[i], buf);
            if (!seen && n < max)
                snprintf(parts[n++], 16, "%s", buf);
        }
    }
    return n;
}

/* how many CPUs a shipped profile needs: its highest CPU + 1 (0: unreadable) */
static int profile_needs(const char *name)
{
    char *path = mtb_asprintf("%s/configs/machines/%s.conf", mtb_root(), name);
    char err[MTB_ERRLEN];
    struct mtb_machine *m = mtb_calloc(1, sizeof *m);
    int need = 0;
    if (mtb_machine_parse(path, m, err, sizeof err) == 0) {
        need = m->cpus;
        for (int s = 0; s < 3; s++) {
            const int *c = s == 0 ? m->svc_cpus : s == 1 ? m->cli_cpus : m->swp_cpus;
            int n = s == 0 ? m->nsvc : s == 1 ? m->ncli : m->nswp;
            for (int i = 0; i < n; i++)
                if (c[i] + 1 > need)
                    need = c[i] + 1;
        }
    }
    free(m);
    free(path);
    return need;
}

const char *mtb_machine_suggest(int ncpus, const char *cpuinfo, int nnodes, char *why, size_t whylen)
{
    char parts[8][16];
    int np = cpuinfo ? cpu_parts(cpuinfo, parts, 8) : 0;
    /* a profile written for a kind of machine is suggested only where its
     * CPU lists fit; otherwise a smaller one, or auto (the halves) */
    char nofit[256] = "";
    for (int i = 0; i < np; i++)
        if (!strncmp(parts[i], "0xc0:", 5)) {
            int need = profile_needs("ampereone");
            if (need > 0 && ncpus >= need) {
                snprintf(why, whylen, "Ampere CPU (MIDR implementer:part %s), %d CPUs, %d NUMA node%s", parts[i],
                         ncpus, nnodes, nnodes == 1 ? "" : "s");
                return "ampereone";
            }
            snprintf(nofit, sizeof nofit, "; Ampere CPU (MIDR %.15s), but ampereone needs %d CPUs", parts[i], need);
            np = 1; /* one core type, as far as the rest is concerned */
            break;
        }
    if (np >= 2) {
        int need = profile_needs("pixel");
        if (need > 0 && ncpus >= need) {
            snprintf(why, whylen, "%d core types (MIDR parts %s, %s%s): a big.LITTLE layout, one core of each type", np,
                     parts[0], parts[1], np > 2 ? ", ..." : "");
            return "pixel";
        }
        snprintf(nofit, sizeof nofit, "; %d core types, but pixel needs %d CPUs", np, need);
    }
    if (ncpus <= 4) {
        snprintf(why, whylen, "%d CPUs: the service on CPU 0, the load generator on CPU 1%s", ncpus, nofit);
        return "local";
    }
    if (np == 1 && !nofit[0]) {
        int need = profile_needs("arm64-server");
        if (need > 0 && ncpus >= need) {
            snprintf(why, whylen, "one core type (MIDR part %s), %d CPUs, %d NUMA node%s: a generic arm64 server",
                     parts[0], ncpus, nnodes, nnodes == 1 ? "" : "s");
            return "arm64-server";
        }
        snprintf(nofit, sizeof nofit, "; one core type (MIDR part %s), but arm64-server needs %d CPUs", parts[0], need);
    }
    if (nofit[0])
        snprintf(why, whylen, "%d CPUs: halves of the CPUs%s", ncpus, nofit);
    else
        snprintf(why, whylen, "%d CPUs, no arm64 MIDR in /proc/cpuinfo: halves of the CPUs", ncpus);
    return "auto";
}
