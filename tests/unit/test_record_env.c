/* Unit tests of a record's environment read into a struct
 * (harness/core/record_env.c): platform, kernel, build, provenance (the
 * compilers in the record's order, MTE's state, the quiet check), affinity
 * and times; and a record of an earlier version, with what it lacks read
 * as the views showed it ("", -1, 0, NULL). */
#include <math.h>
#include <string.h>

#include "core/record_env.h"
#include "tap.h"

static const char *rec_text =
    "{\"mtebench_version\": \"abc1234\", \"started\": \"2026-12-01T10:00:00Z\", \"finished\": \"2026-12-01T10:01:00Z\","
    " \"platform\": {\"name\": \"emu\", \"emulated\": true, \"cpu_model\": \"Xeon\", \"cpus\": 2, \"qemu\": \"10.0.2\","
    "   \"accel\": \"tcg\"},"
    " \"kernel\": {\"name\": \"stock\", \"uname_r\": \"6.12.1\", \"uname_v\": \"#1 SMP\", \"machine\": \"aarch64\"},"
    " \"build\": {\"service\": \"memcached\", \"version\": \"1.6.18\", \"variant\": \"tagged\", \"target\": \"aarch64\","
    "   \"key\": \"0123456789abcdef\"},"
    " \"environment\": {\"hostname\": \"arm1\", \"midr\": \"0x413fd0c1\", \"glibc\": \"2.36\", \"compilers\": {\"gcc\": \"12.2.0\", \"clang\": 14},"
    "   \"mte\": {\"enabled\": true, \"arm64_nomte\": false, \"hwcap2_mte\": null},"
    "   \"quiet\": {\"quiet\": false, \"warnings\": [\"load average 7\"], \"cpus\": \"0-1\","
    "     \"checks\": {\"floor\": {\"skipped\": \"MTEBENCH_FLOOR=0\"}}}},"
    " \"affinity\": {\"service\": \"0\", \"service_requested\": \"0\", \"client_requested\": \"1\"},"
    " \"steal\": {\"share\": 0.12}, \"sequential\": {\"precision\": 0.02, \"max_time_s\": 3600, \"looks\": 4, \"look_conf\": 0.9875,"
    "   \"run_length\": {\"pilot_s\": 10.0, \"pilot_pairs\": 6, \"chosen_s\": 4.0}}}";

int main(void)
{
    json_error_t je;
    json_t *rec = json_loads(rec_text, 0, &je);
    ok(rec != NULL, "the record parses (%s)", rec ? "" : je.text);
    struct mtb_rec_env e;
    mtb_rec_env_read(rec, &e);
    ok(!strcmp(e.platform, "emu") && e.emulated && !strcmp(e.cpu_model, "Xeon") && e.cpus == 2 &&
           !strcmp(e.qemu, "10.0.2"),
       "the platform");
    ok(!strcmp(e.accel, "tcg") && e.has_platform && !strcmp(e.hostname, "arm1"), "its accelerator, the host's name");
    ok(e.sequential && e.seq_precision == 0.02 && e.seq_max_time_s == 3600 && e.seq_looks == 4 &&
           e.seq_look_conf == 0.9875 && e.has_run_length && e.pilot_s == 10 &&
           e.pilot_pairs == 6 && e.chosen_s == 4,
       "REPS=auto's rule and the run length it chose");
    ok(e.steal_share == 0.12, "the hypervisor's share of the run's CPUs");
    ok(!strcmp(e.kernel_name, "stock") && !strcmp(e.uname_r, "6.12.1") && !strcmp(e.machine, "aarch64"), "the kernel");
    ok(!strcmp(e.build_key, "0123456789abcdef") && !strcmp(e.build_variant, "tagged") &&
           !strcmp(e.mtebench_version, "abc1234"),
       "the build and the version");
    ok(e.has_provenance && !strcmp(e.midr, "0x413fd0c1") && !strcmp(e.microcode, "") && e.ncompilers == 1 &&
           !strcmp(e.compilers[0].name, "gcc") && !strcmp(e.compilers[0].version, "12.2.0"),
       "the provenance: a compiler's version that is not text left out");
    ok(e.mte_enabled && !e.arm64_nomte && e.hwcap2_mte == -1 && e.has_quiet && !e.quiet && json_array_size(e.quiet_warnings) == 1,
       "MTE's state (HWCAP2 null: unknown), the quiet check's findings");
    ok(!strcmp(e.quiet_cpus, "0-1") && json_is_object(e.quiet_floor), "the CPUs it looked at, the floor it measured");
    struct mtb_rec_env qe;
    mtb_rec_env_of_environment(json_object_get(rec, "environment"), &qe);
    ok(qe.has_quiet && !qe.quiet && !strcmp(qe.quiet_cpus, "0-1") && !strcmp(qe.midr, "0x413fd0c1"),
       "an environment block alone reads the same");
    mtb_rec_env_free(&qe);
    ok(e.has_affinity && !strcmp(e.service_cpus, "0") && !e.client_cpus && !strcmp(e.client_requested, "1"),
       "the affinity: CPUs not read back are NULL");
    ok(!strcmp(e.started, "2026-12-01T10:00:00Z") && !strcmp(e.finished, "2026-12-01T10:01:00Z"), "the times");
    mtb_rec_env_free(&e);
    json_t *old = json_pack("{s:{s:s}}", "platform", "name", "host");
    mtb_rec_env_read(old, &e);
    ok(!strcmp(e.platform, "host") && e.cpus == -1 && !e.has_provenance && e.ncompilers == 0 && e.hwcap2_mte == 0 &&
           !e.has_affinity && !e.started && !strcmp(e.build_key, "") && !e.quiet_warnings && !e.has_quiet &&
           !e.sequential && isnan(e.seq_precision) && isnan(e.seq_looks) && isnan(e.seq_look_conf) && isnan(e.steal_share) && !e.has_run_length && !strcmp(e.accel, "") && e.has_platform,
       "a record of an earlier version: what it lacks is \"\", -1, 0 or NULL");
    mtb_rec_env_free(&e);
    json_decref(old);
    json_decref(rec);
    return done_testing();
}
