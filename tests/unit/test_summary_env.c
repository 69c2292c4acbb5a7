/* Unit tests of the summary's environment section
 * (harness/analysis/summary_env.c): what two records say of where they ran,
 * each text once in its list, the provenance and the quiet check's
 * findings, the pinning, and the first start and last finish. */
#include <string.h>

#include "analysis/summary_env.h"
#include "tap.h"

static int has(json_t *env, const char *list, const char *text)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(env, list), i, v) if (!strcmp(json_string_value(v), text)) return 1;
    return 0;
}

int main(void)
{
    json_t *recs = json_loads(
        "[{\"started\": \"2026-12-01T10:00:00Z\", \"finished\": \"2026-12-01T10:01:00Z\", \"mtebench_version\": \"v1\","
        "  \"platform\": {\"name\": \"emu\", \"emulated\": true, \"cpu_model\": \"Xeon\", \"cpus\": 2, \"qemu\": \"10.0.2\"},"
        "  \"kernel\": {\"name\": \"stock\", \"uname_r\": \"6.12\", \"uname_v\": \"#1\", \"machine\": \"aarch64\"},"
        "  \"build\": {\"service\": \"memcached\", \"version\": \"1.6\", \"variant\": \"tagged\", \"target\": \"aarch64\","
        "    \"key\": \"0123456789abcdef\"},"
        "  \"environment\": {\"midr\": \"0x41\", \"glibc\": \"2.36\", \"compilers\": {\"gcc\": \"12\"},"
        "    \"mte\": {\"enabled\": true}, \"quiet\": {\"quiet\": false, \"warnings\": [\"load average 7\"]}},"
        "  \"affinity\": {\"service\": \"0\", \"service_requested\": \"0\", \"client\": \"1\", \"client_requested\": \"1\"}},"
        " {\"started\": \"2026-12-01T09:00:00Z\", \"finished\": \"2026-12-01T11:00:00Z\", \"mtebench_version\": \"v1\","
        "  \"platform\": {\"name\": \"emu\", \"emulated\": true, \"cpu_model\": \"Xeon\", \"cpus\": 2, \"qemu\": \"10.0.2\"},"
        "  \"kernel\": {\"name\": \"stock\", \"uname_r\": \"6.12\", \"uname_v\": \"#1\", \"machine\": \"aarch64\"}}]",
        0, NULL);
    ok(recs != NULL, "the records parse");
    json_t *env = mtb_summary_environment(recs);
    ok(json_array_size(json_object_get(env, "cpu_model")) == 1 && has(env, "cpus", "2") &&
           has(env, "kernels", "stock: 6.12 #1 (aarch64)") && has(env, "platforms", "emu (emulated: not hardware timing)") &&
           json_array_size(json_object_get(env, "mtebench_versions")) == 1,
       "the machine, kernel and platform, each text once");
    ok(has(env, "builds", "memcached 1.6 tagged aarch64: 0123456789ab") && has(env, "compilers", "gcc: 12") &&
           has(env, "quiet", "load average 7") && !has(env, "quiet", "quiet (no finding)") && has(env, "midr", "0x41"),
       "the build, the provenance and the quiet check's finding");
    ok(has(env, "pinning", "service on CPUs 0 (asked 0), client on 1 (asked 1)"), "the pinning");
    ok(!strcmp(json_string_value(json_object_get(env, "first_started")), "2026-12-01T09:00:00Z") &&
           !strcmp(json_string_value(json_object_get(env, "last_finished")), "2026-12-01T11:00:00Z"),
       "the first start and the last finish");
    json_decref(env);
    json_t *none = json_array();
    env = mtb_summary_environment(none);
    ok(json_is_null(json_object_get(env, "first_started")) && json_array_size(json_object_get(env, "kernels")) == 0 &&
           json_is_array(json_object_get(env, "quiet")),
       "no records: empty lists, no times");
    json_decref(env);
    json_decref(none);
    json_decref(recs);
    return done_testing();
}
