/* Unit tests of a summary read into rows (harness/core/summary_rows.c):
 * every field typed, each configuration joined to its overhead row by the
 * same rule the reports used (workload by value), and a summary of an
 * earlier version (keys absent) read as "", NaN, 0 and not present. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/summary_rows.h"
#include "tap.h"

static const char *sum_text =
    "{\"emulated\": true, \"warnings\": [\"w1\"],"
    " \"configs\": ["
    "  {\"service\": \"memcached\", \"platform\": \"emu\", \"kernel\": \"host\", \"variant\": \"plain\", \"mode\": \"off\","
    "   \"runs\": 6, \"workload\": {\"mix\": \"1:10\", \"conns\": 16, \"duration_s\": 2, \"name\": \"default\", \"value_size\": \"100\"},"
    "   \"ops_per_sec\": {\"median\": 1000, \"lo\": 900, \"hi\": 1100, \"conf\": 0.97, \"method\": \"order statistics\"}},"
    "  {\"service\": \"memcached\", \"platform\": \"emu\", \"kernel\": \"host\", \"variant\": \"tagged\", \"mode\": \"sync\","
    "   \"host\": \"h1\", \"runs\": 2, \"client_bound\": true, \"noisy\": true,"
    "   \"workload\": {\"mix\": \"1:10\", \"conns\": 16.0, \"duration_s\": 2, \"cores\": 4, \"service_cpus\": \"0-3\"},"
    "   \"run_length\": {\"pilot_s\": 1, \"pilot_pairs\": 3, \"chosen_s\": 5},"
    "   \"ops_per_sec\": {\"median\": 500, \"lo\": 400, \"hi\": 600, \"conf\": 0.5},"
    "   \"p99_us\": {\"median\": 70}, \"perf_per_request\": {\"instructions\": 1234.5}}],"
    " \"overheads\": ["
    "  {\"service\": \"memcached\", \"platform\": \"emu\", \"kernel\": \"host\", \"variant\": \"tagged\", \"mode\": \"sync\","
    "   \"host\": \"h1\", \"pairs\": 2, \"workload\": {\"mix\": \"1:10\", \"conns\": 16, \"duration_s\": 2.0, \"cores\": 4,"
    "   \"service_cpus\": \"0-3\"},"
    "   \"slowdown\": {\"median\": 2.0, \"lo\": 1.5, \"hi\": 2.5, \"conf\": 0.5, \"rel_halfwidth\": 0.25},"
    "   \"mann_whitney_p\": 0.03, \"sequential\": {\"reached\": true, \"max_time_s\": 900}}],"
    " \"geomeans\": [{\"variant\": \"tagged\", \"mode\": \"sync\", \"n\": 3, \"of\": [\"a\", \"b\"],"
    "   \"slowdown\": {\"geomean\": 1.5, \"lo\": 1.2, \"hi\": 1.9, \"conf\": 0.95}}],"
    " \"allocators\": [{\"service\": \"nginx\", \"allocator\": \"scudo\","
    "   \"allocator_alone\": {\"slowdown\": {\"median\": 1.1}, \"pairs\": 4},"
    "   \"tagging\": [{\"variant\": \"tagged\", \"mode\": \"async\", \"pairs\": 4, \"difference\": {\"median\": 0.9}}]}],"
    " \"kernels\": [{\"service\": \"nginx\", \"kernel_a\": \"stock\", \"kernel_b\": \"tcma1\", \"runs_a\": 3,"
    "   \"runs_b\": 4, \"ops_a\": 10, \"significant\": true, \"note\": \"n1\", \"delta\": {\"median\": -0.1},"
    "   \"pairs\": 3, \"ops_ratio\": {\"median\": 0.9}, \"p99_ratio\": {\"median\": 1.2}}],"
    " \"cores\": [{\"service\": \"nginx\", \"cores\": 8, \"core_type\": \"big\", \"ops_per_sec\": {\"median\": 5}}],"
    " \"environment\": {\"cpus\": [\"2\"], \"builds\": [\"b1\", \"b2\"], \"first_started\": \"T0\"}}";

int main(void)
{
    json_error_t je;
    json_t *sum = json_loads(sum_text, 0, &je);
    ok(sum != NULL, "the summary parses (%s)", sum ? "" : je.text);
    struct mtb_sum_rows r;
    mtb_sum_rows_read(sum, &r);
    ok(r.emulated && r.nconfigs == 2 && r.noverheads == 1 && r.ngeomeans == 1 && r.nallocators == 1 &&
           r.nkernels == 1 && r.ncores == 1 && json_array_size(r.warnings) == 1,
       "every array read, with its length");

    const struct mtb_sum_config *b = &r.configs[0], *t = &r.configs[1];
    ok(!strcmp(b->service, "memcached") && b->baseline && !t->baseline && b->runs == 6 && t->runs == 2,
       "the configurations' identity: baseline plain/off, runs");
    ok(!b->has_host && !strcmp(b->host, "") && t->has_host && !strcmp(t->host, "h1"), "a host said where there is one");
    ok(b->metric[MTB_M_ops_per_sec].present && b->metric[MTB_M_ops_per_sec].median == 1000 &&
           !strcmp(b->metric[MTB_M_ops_per_sec].method, "order statistics") && !mtb_ci_low_conf(&b->metric[MTB_M_ops_per_sec]),
       "an interval typed: median, method, 97%% is not low confidence");
    ok(mtb_ci_low_conf(&t->metric[MTB_M_ops_per_sec]), "... 50%% is");
    ok(!b->metric[MTB_M_p99_us].present && isnan(b->metric[MTB_M_p99_us].median) && !mtb_ci_low_conf(&b->metric[MTB_M_p99_us]),
       "an interval the summary lacks: not present, NaN");
    ok(t->metric[MTB_M_p99_us].present && t->metric[MTB_M_p99_us].median == 70 && isnan(t->metric[MTB_M_p99_us].lo),
       "one with a median alone: its bounds NaN");
    ok(!b->workload.has_cores && t->workload.has_cores && t->workload.cores == 4 && t->workload.conns == 16 &&
           !strcmp(b->workload.name, "default") && !strcmp(t->workload.name, ""),
       "the workload typed: cores only at a point of a core sweep, a name absent is \"\"");
    ok(!b->has_run_length && t->has_run_length && t->pilot_pairs == 3 && t->chosen_s == 5, "REPS=auto's run length");
    ok(t->client_bound && t->noisy && !t->errors_over_limit && !b->client_bound, "flags");
    ok(t->per_request[MTB_PR_perf] && !t->per_request[MTB_PR_tag_ops] && !b->per_request[MTB_PR_perf],
       "figures per request where a configuration has them");
    ok(t->overhead == &r.overheads[0] && b->overhead == NULL,
       "the tagged configuration joined to its overhead (16 and 16.0 conns the same workload), the baseline to none");

    const struct mtb_sum_overhead *o = &r.overheads[0];
    ok(o->pairs == 2 && o->metric[MTB_P_slowdown].median == 2.0 && o->metric[MTB_P_slowdown].rel_halfwidth == 0.25 &&
           !o->metric[MTB_P_p99_ratio].present && fabs(o->mann_whitney_p - 0.03) < 1e-12 && !strcmp(o->baseline, ""),
       "the overhead typed: pairs, its intervals, p, baseline \"\" (plain/off)");
    ok(o->sequential && o->reached && !o->stopped_by_user && o->max_time_s == 900, "REPS=auto's stop");

    const struct mtb_sum_geomean *g = &r.geomeans[0];
    ok(isnan(g->slowdown.median) && mtb_ci_estimate(&g->slowdown) == 1.5 && g->n == 3 && json_array_size(g->of) == 2,
       "a geometric mean: its estimate the geomean where no median");
    const struct mtb_sum_allocator *a = &r.allocators[0];
    ok(a->alone.median == 1.1 && a->alone_pairs == 4 && a->ntagging == 1 && a->tagging[0].difference.median == 0.9 &&
           !a->tagging[0].slowdown.present,
       "an allocator alone and tagging under it");
    const struct mtb_sum_kernel *k = &r.kernels[0];
    ok(k->runs_a == 3 && k->runs_b == 4 && k->ops_a == 10 && isnan(k->ops_b) && k->significant &&
           isnan(k->mann_whitney_p) && k->delta.median == -0.1 && !k->slowdown_a.present && !strcmp(k->note, "n1"),
       "a kernel comparison");
    ok(k->pairs == 3 && k->ops_ratio.present && k->ops_ratio.median == 0.9 && k->metric[MTB_P_p99_ratio].median == 1.2 &&
           !k->metric[MTB_P_slowdown].present && k->ops_ratio.j && !k->metric[MTB_P_slowdown].j,
       "its pairs, throughput ratio and pair metrics, each interval's object kept for writers");
    ok(t->workload.j && !strcmp(t->workload.service_cpus, "0-3") && !strcmp(t->workload.core_type, "") &&
           json_real_value(json_object_get(t->metric[MTB_M_ops_per_sec].j, "conf")) == 0.5,
       "a sweep point's CPUs; an interval's object as the summary holds it");
    ok(r.cores[0].cores == 8 && !strcmp(r.cores[0].core_type, "big") && !r.cores[0].slowdown.present,
       "a core sweep point");
    ok(r.has_environment && json_array_size(r.env[MTB_ENV_cpus]) == 1 && json_array_size(r.env[MTB_ENV_builds]) == 2 &&
           r.env[MTB_ENV_qemu] == NULL && !strcmp(r.first_started, "T0") && !strcmp(r.last_finished, "") &&
           !strcmp(mtb_sum_env_labels[MTB_ENV_cpus], "cores"),
       "the environment's lists, by key, with their labels");
    mtb_sum_rows_free(&r);

    json_t *empty = json_object();
    mtb_sum_rows_read(empty, &r);
    ok(!r.emulated && r.nconfigs == 0 && r.noverheads == 0 && !r.has_environment && json_array_size(r.warnings) == 0,
       "an empty summary: no rows, no environment");
    mtb_sum_rows_free(&r);
    json_decref(empty);
    json_decref(sum);

    json_t *prot = json_loads("[{\"service\": \"memcached\", \"variant\": \"tagged\", \"mode\": \"sync\","
                              " \"kernel\": \"tcma1\", \"cost_platform\": \"emu\", \"detect_platform\": \"emu\","
                              " \"slowdown\": {\"median\": 1.5, \"lo\": 1.4, \"hi\": 1.6}, \"bugs_caught\": 2,"
                              " \"bugs_tested\": 3, \"fraction\": 0.67, \"wilson95_lo\": 0.2, \"wilson95_hi\": 0.94,"
                              " \"explained\": {\"bugs\": 1, \"fraction\": 0.33}},"
                              " {\"service\": \"memcached\", \"variant\": \"plain\", \"mode\": \"off\", \"baseline\": true}]",
                              0, NULL);
    size_t np;
    struct mtb_sum_protection *p = mtb_sum_protection_read(prot, &np);
    ok(np == 2 && !strcmp(p[0].kernel, "tcma1") && p[0].slowdown.present && p[0].slowdown.median == 1.5 &&
           p[0].bugs_caught == 2 && p[0].hi == 0.94 && p[0].has_explained && p[0].explained == 1 && isnan(p[0].ex_lo),
       "protection rows: the cost, the catches, the bugs explained");
    ok(p[1].baseline && !p[1].slowdown.present && !p[1].has_explained && isnan(p[1].fraction) && p[1].bugs_tested == 0,
       "the baseline's row: no interval, nothing judged");
    free(p);
    json_decref(prot);

    json_t *work = json_loads("[{\"service\": \"memcached\", \"variant\": \"tagged\", \"mode\": \"async\","
                              " \"kernel\": \"stock\", \"role\": \"workers\", \"requests\": 400, \"baseline\": false,"
                              " \"record\": \"r.json\", \"values\": {\"el0_insns\": 3173.5, \"el1_insns\": null},"
                              " \"ratio\": {\"el0_insns\": 1.0, \"el1_insns\": null}},"
                              " {\"service\": \"nginx\", \"baseline\": true}]",
                              0, NULL);
    struct mtb_sum_work *w;
    size_t nw;
    mtb_sum_work_read(work, &w, &nw);
    ok(nw == 2 && !strcmp(w[0].role, "workers") && w[0].requests == 400 && !w[0].baseline &&
           !strcmp(w[0].record, "r.json") && w[0].values[0] == 3173.5 && isnan(w[0].values[1]) && w[0].has_ratio[0] &&
           w[0].ratio[0] == 1.0 && !w[0].has_ratio[1],
       "work rows: the counts per request, a null one NaN, the ratio where there is one");
    ok(w[1].baseline && !strcmp(w[1].kernel, "") && isnan(w[1].requests) && isnan(w[1].values[0]) && !w[1].has_ratio[0],
       "a row without its keys: \"\", NaN, no ratio");
    free(w);
    json_decref(work);
    json_t *secs = json_pack("{s:b,s:[],s:[s]}", "emulated", 1, "work", "plot_problems", "gnuplot missing");
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(secs, &sec);
    ok(sec.emulated && json_is_array(sec.work) && !sec.protection && !sec.capacity &&
           json_array_size(sec.plot_problems) == 1,
       "the summary's sections: those there, NULL for those not");
    json_decref(secs);
    return done_testing();
}
