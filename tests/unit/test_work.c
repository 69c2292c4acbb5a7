/* test_work.c - the work account (core/work.c) of a plugin output written
 * here: its task lines kept apart from the vCPU lines, the service's tasks,
 * the request tasks of [run] request_tasks and the kernel's interrupts (tid
 * -2) each the load's window less the idle one over the requests, and what
 * the history takes (mtb_work_values: the request tasks first). */
#include "core/work.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double pr(const json_t *acc, const char *role, const char *el, const char *k)
{
    return json_number_value(json_object_get(
        json_object_get(json_object_get(json_object_get(acc, "per_request"), role), el), k));
}

int main(void)
{
    char path[] = "/tmp/test_work.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 1;
    /* window 1 idle, window 2 the load; tasks 40 (mc-worker), 41
     * (mc-lrumaint), 50 (the load generator), -2 (interrupts); the vCPU
     * lines are the task lines' sums, as the plugin writes them */
    fputs("mtecount version=2 qemu=10.0.2 plugin_api=4 vcpus=2 windows=2 window_errors=0 context_switches=900 "
          "interrupts=70\n"
          "vcpu=0 el=0 insns=999999\n"
          "window=1 vcpu=0 el=0 insns=500 loads_checked=0\n"
          "window=1 vcpu=0 el=1 insns=3000\n"
          "window=2 vcpu=0 el=0 insns=40700 loads_checked=3000\n"
          "window=2 vcpu=0 el=1 insns=133000 loads=30000 spin_insns=20000 spin_loads=4000 wfe=2010 spin_wfe=2000\n"
          "window=2 vcpu=1 el=0 insns=60000\n"
          "window=2 vcpu=1 el=1 insns=90000\n"
          "window=1 tid=-2 el=1 insns=2000\n"
          "window=1 tid=41 el=0 insns=500\n"
          "window=1 tid=41 el=1 insns=1000\n"
          "window=2 tid=-2 el=1 insns=9000\n"
          "window=2 tid=40 el=0 insns=40000 loads_checked=3000\n"
          "window=2 tid=40 el=1 insns=120000 loads=30000 spin_insns=20000 spin_loads=4000 wfe=2010 spin_wfe=2000\n"
          "window=2 tid=41 el=0 insns=700\n"
          "window=2 tid=41 el=1 insns=4000\n"
          "window=2 tid=50 el=0 insns=60000\n"
          "window=2 tid=50 el=1 insns=90000\n",
          f);
    fclose(f);
    char err[256];
    json_t *w = mtb_work_load(path, err, sizeof err);
    unlink(path);
    ok(w && json_array_size(json_object_get(w, "tasks")) == 10 && json_array_size(json_object_get(w, "windows")) == 6 &&
           json_array_size(json_object_get(w, "totals")) == 1,
       "the plugin's lines read apart: 10 task lines, 6 window lines by vCPU, 1 total");
    json_t *tasks = json_pack("[{s:i,s:i,s:s},{s:i,s:i,s:s}]", "tid", 40, "pid", 39, "comm", "mc-worker", "tid", 41,
                              "pid", 39, "comm", "mc-lrumaint");
    json_t *aff = json_pack("{s:s,s:s,s:b}", "service", "0", "client", "1", "shares_cpus_with_client", 0);
    json_t *acc = mtb_work_account(w, 100, "test", aff, tasks, "mc-worker");
    ok(pr(acc, "workers", "el0", "insns") == 400 && pr(acc, "workers", "el0", "loads_checked") == 30 &&
           pr(acc, "workers", "el1", "insns") == 1000,
       "request tasks (mc-worker): 40000 EL0 and 120000 - 20000 (a wait loop's repeats) EL1 instructions over 100 "
       "requests, nothing idle (%g, %g)",
       pr(acc, "workers", "el0", "insns"), pr(acc, "workers", "el1", "insns"));
    ok(pr(acc, "workers", "el1", "spin_insns") == 200 && pr(acc, "workers", "el1", "loads") == 260 &&
           pr(acc, "workers", "el1", "spin_loads") == 40 && pr(acc, "workers", "el1", "wfe") == 0.1 &&
           pr(acc, "workers", "el1", "spin_wfe") == 20,
       "wait loops' repeats left out of each count per request, and shown apart (spin_insns %g, loads %g)",
       pr(acc, "workers", "el1", "spin_insns"), pr(acc, "workers", "el1", "loads"));
    ok(pr(acc, "tasks", "el0", "insns") == (40000 + 700 - 500) / 100.0 &&
           pr(acc, "tasks", "el1", "insns") == (120000 - 20000 + 4000 - 1000) / 100.0,
       "the service's tasks: both threads, the load's window less the idle one (%g EL0)",
       pr(acc, "tasks", "el0", "insns"));
    ok(pr(acc, "interrupts", "el1", "insns") == 70 && pr(acc, "interrupts", "el0", "insns") == 0,
       "the kernel's interrupts apart: (9000 - 2000) / 100");
    ok(pr(acc, "service", "el1", "insns") == 1100 && pr(acc, "client", "el0", "insns") == 600,
       "the vCPU accounts as before (service 1100 EL1 outside the wait, client 600 EL0)");
    const json_t *lru = json_object_get(json_object_get(acc, "by_task"), "mc-lrumaint");
    ok(json_integer_value(json_object_get(lru, "tasks")) == 1 &&
           json_number_value(json_object_get(json_object_get(json_object_get(lru, "per_request"), "el0"), "insns")) == 2,
       "by task name: mc-lrumaint, one task, (700 - 500) / 100 EL0");
    json_t *rec = json_pack("{s:O}", "work", acc);
    double v[MTB_NWORK];
    const char *role = NULL;
    ok(mtb_work_values(rec, v, &role) == 0 && !strcmp(role, "workers") && v[0] == 400 && v[1] == 1000 && v[6] == 30,
       "the history takes the request tasks' account (role workers)");
    json_decref(rec);
    json_decref(acc);

    /* a kernel that does not write CONTEXTIDR_EL1: no task lines, said */
    json_object_set_new(json_object_get(w, "plugin"), "context_switches", json_integer(0));
    json_array_clear(json_object_get(w, "tasks"));
    acc = mtb_work_account(w, 100, "test", aff, tasks, "mc-worker");
    rec = json_pack("{s:O}", "work", acc);
    ok(!json_object_get(json_object_get(acc, "per_request"), "workers") &&
           strstr(json_string_value(json_object_get(acc, "tasks_note")) ?: "", "CONFIG_PID_IN_CONTEXTIDR") &&
           mtb_work_values(rec, v, &role) == 0 && !strcmp(role, "service"),
       "without task lines: no request tasks' account, the note names CONFIG_PID_IN_CONTEXTIDR, the history takes "
       "the service's vCPU");
    json_decref(rec);
    json_decref(acc);
    json_decref(tasks);
    json_decref(aff);
    json_decref(w);
    return done_testing();
}
