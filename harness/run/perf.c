/* perf.c - see perf.h */
#include "run/perf.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/procfs.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pid and every process of its process group (nginx's workers, PostgreSQL's
 * backends, qemu-aarch64's forks), as perf's "-p 1,2,3" */
static char *group_pids(pid_t pid)
{
    char *out = mtb_asprintf("%d", (int)pid);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int p = atoi(e->d_name);
        if (p <= 0 || p == pid)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", p);
        struct mtb_proc_stat ps;
        if (mtb_proc_stat_read(path, &ps) == 0 && ps.pgrp == pid) {
            char *m = mtb_asprintf("%s,%d", out, p);
            free(out);
            out = m;
        }
    }
    if (d)
        closedir(d);
    return out;
}

int mtb_perf_start(struct mtb_perf *p, pid_t pid, double delay)
{
    char *out = mtb_asprintf("%s/perf.csv", p->dir);
    char *log = mtb_asprintf("%s/perf.log", p->dir);
    char *pidarg = group_pids(pid);
    char *delay_ms = mtb_asprintf("%ld", (long)(delay * 1000 + 0.5));
    char *const argv[] = { "perf", "stat", "-x,", "-e", (char *)p->events, "-p", pidarg, "-o", out, "-D", delay_ms, NULL };
    char *const nodelay[] = { "perf", "stat", "-x,", "-e", (char *)p->events, "-p", pidarg, "-o", out, NULL };
    struct mtb_spawn s = { .argv = delay > 0 ? argv : nodelay, .log_path = log };
    memset(&p->proc, 0, sizeof p->proc);
    p->on = mtb_proc_spawn(&p->proc, &s) == 0;
    free(out);
    free(log);
    free(pidarg);
    free(delay_ms);
    return p->on;
}

void mtb_perf_attach(pid_t pid, void *arg)
{
    mtb_perf_start(arg, pid, 0);
}

json_t *mtb_perf_stop(struct mtb_perf *p, double requests)
{
    mtb_proc_stop(&p->proc, SIGINT, 5);
    p->on = 0;
    char *path = mtb_asprintf("%s/perf.csv", p->dir);
    char *text = mtb_read_file(path, NULL);
    json_t *o = json_object(), *ev = json_object(), *unsup = json_array(), *notc = json_array(), *rate = json_object();
    /* lines: value,unit,event,run-time,percent,... ; "<not supported>" and
     * "<not counted>" are null, and listed as unsupported */
    char *save = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !strchr(line, ','))
            continue;
        char val[64] = "", unit[32] = "", name[128] = "";
        if (sscanf(line, "%63[^,],%31[^,],%127[^,]", val, unit, name) == 3 ||
            sscanf(line, "%63[^,],,%127[^,]", val, name) == 2) {
            char *end;
            double v = strtod(val, &end);
            int bad = *end || end == val;
            /* raw events are reported under their rHEX name: use the profile's label */
            const char *label = name;
            char lab[64] = "";
            const char *raw = p->raw ? p->raw : "";
            char needle[140];
            snprintf(needle, sizeof needle, "=%s", name);
            const char *hit = name[0] == 'r' ? strstr(raw, needle) : NULL;
            if (hit) {
                const char *b = hit;
                while (b > raw && b[-1] != ',' && b[-1] != ' ')
                    b--;
                snprintf(lab, sizeof lab, "%.*s", (int)(hit - b), b);
                label = lab;
            }
            json_object_set_new(ev, label, bad ? json_null() : json_real(v));
            if (bad)
                json_array_append_new(strstr(val, "not counted") ? notc : unsup, json_string(label));
            else if (requests > 0)
                json_object_set_new(rate, label, json_real(v / requests));
        }
    }
    int counted = json_object_size(ev) > json_array_size(unsup) + json_array_size(notc);
    json_object_set_new(o, "status", json_string(!text ? "unavailable" : counted ? "ok"
                                                 : json_array_size(notc) ? "not counted" : "unsupported"));
    json_object_set_new(o, "not_counted", notc);
    if (!text)
        json_object_set_new(o, "reason", json_string("perf stat wrote nothing; see perf.log"));
    json_object_set_new(o, "events", ev);
    json_object_set_new(o, "unsupported", unsup);
    json_object_set_new(o, "per_request", rate);
    json_object_set_new(o, "requested", json_string(p->events));
    json_object_set_new(o, "window", json_string(p->warmup > 0 ? "measurement only (the warm-up is not counted)"
                                                                     : "measurement only (no warm-up)"));
    json_object_set_new(o, "file", json_string("perf.csv"));
    if (p->emulated)
        json_object_set_new(o, "note", json_string("under emu perf counts qemu-aarch64 running the service"));
    free(text);
    free(path);
    return o;
}

json_t *mtb_perf_unavailable(const char *events, const char *reason)
{
    return json_pack("{s:s,s:s,s:s}", "status", "unavailable", "requested", events, "reason", reason);
}
