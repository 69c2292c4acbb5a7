/* Unit tests of a counted run's work account read into a typed view
 * (harness/core/work_rows.c): each role's per-request counters by EL, the
 * account a table takes (request tasks, else the service's vCPU, else all
 * vCPUs), the tasks by name in the record's order, tag stores summed, and
 * what mtb_work_values (core/work.c) takes of it. */
#include <math.h>
#include <string.h>

#include "core/work.h"
#include "core/work_rows.h"
#include "tap.h"

int main(void)
{
    json_t *rec = json_loads(
        "{\"work\": {\"requests\": 100, \"requests_from\": \"service\", \"per_request\": {"
        "  \"service\": {\"el0\": {\"insns\": 1000, \"irg\": 1, \"ldg\": 2, \"stg\": 3, \"dc_gzva\": 4,"
        "                          \"tag_bytes\": 64, \"loads_checked\": 5, \"stores_checked\": 6, \"spin_insns\": 7},"
        "                \"el1\": {\"insns\": 2000}},"
        "  \"all\": {\"el0\": {\"insns\": 5000}}},"
        " \"by_task\": {\"memcached\": {\"per_request\": {\"el0\": {\"insns\": 900}}},"
        "              \"mc-worker\": {\"per_request\": {\"el1\": {\"insns\": 10}}}}}}",
        0, NULL);
    ok(rec != NULL, "the record parses");
    struct mtb_work_view w;
    mtb_work_view_read(rec, &w);
    ok(w.present && w.requests == 100 && w.has_requests && !strcmp(w.requests_from, "service") && w.tasks_note == NULL,
       "the account: its requests and where they were counted");
    ok(w.main == MTB_WR_service && w.role[MTB_WR_service].present && w.role[MTB_WR_all].present &&
           !w.role[MTB_WR_workers].present && !w.role[MTB_WR_client].present,
       "no request tasks: the service's vCPU is the account a table takes");
    const struct mtb_work_acct *s = &w.role[MTB_WR_service];
    ok(s->el_present[0] && s->el_present[1] && s->c[0][MTB_WC_insns] == 1000 && s->c[1][MTB_WC_insns] == 2000 &&
           s->c[1][MTB_WC_loads] == 0,
       "counters by EL; one the account lacks reads 0");
    ok(mtb_work_tag_stores(s, 0) == 7 && mtb_work_tag_stores(s, 1) == 0, "tag stores: STG and DC GZVA, IRG and LDG aside");
    ok(w.ntasks == 2 && !strcmp(w.tasks[0].name, "memcached") && w.tasks[0].per_request.c[0][MTB_WC_insns] == 900 &&
           !strcmp(w.tasks[1].name, "mc-worker") && !w.tasks[1].per_request.el_present[0],
       "the tasks by name, in the record's order");
    ok(!strcmp(mtb_work_role_keys[w.main], "service") && !strcmp(mtb_work_counter_keys[MTB_WC_spin_wfe], "spin_wfe"),
       "the keys of roles and counters");
    mtb_work_view_free(&w);

    double v[MTB_NWORK];
    const char *role = NULL;
    ok(mtb_work_values(rec, v, &role) == 0 && !strcmp(role, "service") && v[0] == 1000 && v[1] == 2000 && v[2] == 10 &&
           v[3] == 0 && v[4] == 64 && v[6] == 11,
       "the history's quantities: instructions, tag instructions (IRG, LDG, tag stores), bytes tagged, checked");

    json_object_set_new(json_object_get(json_object_get(rec, "work"), "per_request"), "workers",
                        json_pack("{s:{s:i}}", "el0", "insns", 300));
    mtb_work_view_read(rec, &w);
    ok(w.main == MTB_WR_workers, "request tasks counted: their account is the table's");
    mtb_work_view_free(&w);

    json_t *none = json_pack("{s:{}}", "work");
    mtb_work_view_read(none, &w);
    ok(!w.present && w.main == MTB_WR_all && w.ntasks == 0 && w.requests == 0, "no per-request account: nothing present");
    mtb_work_view_free(&w);
    ok(mtb_work_values(none, v, &role) == -1 && isnan(v[0]) && !strcmp(role, "all"), "... and no quantities");
    json_decref(none);
    json_decref(rec);
    /* the plugin's output as mtb_work_load keeps it, read for the account */
    json_t *out = json_loads("{\"plugin\": {\"windows\": 2, \"context_switches\": 7, \"qemu\": \"10.0.2\"},"
                             " \"totals\": [{\"vcpu\": 0, \"el\": 0, \"insns\": 5}],"
                             " \"windows\": [{\"window\": 2, \"vcpu\": 1, \"el\": 1, \"insns\": 9, \"loads\": 4}],"
                             " \"tasks\": [{\"window\": 2, \"tid\": 40, \"el\": 0, \"insns\": 3, \"note\": \"x\"}]}",
                             0, NULL);
    struct mtb_work_out o;
    mtb_work_out_read(out, &o);
    ok(o.windows == 2 && o.context_switches == 7 && o.ntotals == 1 && o.nby_vcpu == 1 && o.nby_task == 1 && o.plugin,
       "the plugin's output: its header's windows and switches, its lines apart");
    ok(o.by_vcpu[0].window == 2 && o.by_vcpu[0].vcpu == 1 && o.by_vcpu[0].el == 1 && o.by_vcpu[0].n == 2 &&
           !strcmp(o.by_vcpu[0].kv[0].key, "insns") && o.by_vcpu[0].kv[1].v == 4,
       "a line's place and its counts in order, its place keys aside");
    ok(o.by_task[0].tid == 40 && o.by_task[0].n == 2 && !strcmp(o.by_task[0].kv[0].key, "tid") &&
           o.totals[0].window == 0,
       "a task line's tid (a count it carries too); a string is no count; a total has no window");
    mtb_work_out_free(&o);
    json_decref(out);
    json_t *tasks = json_loads("[{\"tid\": 40, \"pid\": 39, \"comm\": \"mc-worker\"}, {\"tid\": 41}]", 0, NULL);
    struct mtb_svc_task *st;
    size_t nst;
    mtb_svc_tasks_read(tasks, &st, &nst);
    ok(nst == 2 && st[0].tid == 40 && !strcmp(st[0].comm, "mc-worker") && st[1].tid == 41 && !st[1].comm,
       "the service's tasks: tid and name (none: NULL)");
    free(st);
    json_decref(tasks);
    json_t *aff = json_pack("{s:s,s:s,s:b}", "service", "0", "client", "1", "shares_cpus_with_client", 1);
    struct mtb_work_affinity af;
    mtb_work_affinity_read(aff, &af);
    ok(!strcmp(af.service, "0") && !strcmp(af.client, "1") && af.shares, "the affinity");
    mtb_work_affinity_read(NULL, &af);
    ok(!af.service && !af.client && !af.shares, "no affinity");
    json_decref(aff);
    return done_testing();
}
