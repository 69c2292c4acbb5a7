/* Unit tests of loading records (harness/core/record_load.c): each check a
 * record passes or fails by name, and result directories loaded with the
 * files that gave no record listed by reason. */
#include <stdio.h>
#include <stdlib.h>

#include "core/record.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "record_fixture.h"
#include "tap.h"

static char tmp[] = "/tmp/mtb-test-record-load-XXXXXX";

static void test_checks_and_load(void)
{
    char msg[400];
    static const struct {
        const char *json;
        enum mtb_record_problem p;
    } cases[] = {
        { "[1]", MTB_REC_NOT_OBJECT },
        { "{\"config\":{\"service\":\"m\"}}", MTB_REC_NO_SCHEMA },
        { "{\"schema\":\"mtebench-run/99\",\"config\":{\"service\":\"m\"}}", MTB_REC_OTHER_SCHEMA },
        { "{\"schema\":\"mtebench-run/1\",\"config\":{}}", MTB_REC_NO_SERVICE },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"ok\",\"config\":" CFG "}", MTB_REC_NO_FIGURES },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"ok\",\"config\":" CFG ",\"summary\":{\"ops_per_sec\":1},"
          "\"timing\":\"none\",\"work\":{}}",
          MTB_REC_COUNTED },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"error\",\"config\":{\"service\":\"m\"}}", MTB_REC_BAD_CONFIG },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"error\",\"config\":" CFG "}", MTB_REC_OK },
    };
    int good = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *r = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
        enum mtb_record_problem p = mtb_record_check(r, msg, sizeof msg);
        if (p != cases[i].p || (p != MTB_REC_OK) != (msg[0] != 0)) {
            good = 0;
            diag("%s: %s (%s)", cases[i].json, mtb_record_problem_name(p), msg);
        }
        json_decref(r);
    }
    ok(good, "check: each of %zu records gets its problem, with a message where it has one",
       sizeof cases / sizeof cases[0]);

    char *dir = mtb_asprintf("%s/results", tmp);
    mkdir(dir, 0755);
    json_t *r = rec_of("plain", "off", 1, 1000, 100);
    char *text = json_dumps(r, 0);
    put(dir, "001-ok", text);
    free(text);
    json_decref(r);
    put(dir, "002-broken", "{\"schema\": ");
    put(dir, "003-other", "{\"schema\":\"mtebench-run/99\",\"config\":{\"service\":\"m\"}}");
    put(dir, "004-error", "{\"schema\":\"mtebench-run/1\",\"status\":\"error\",\"config\":" CFG "}");
    char *missing = mtb_asprintf("%s/nothing-here", tmp);
    char *dirs[] = { dir, dir, missing }; /* a directory twice: its records once */
    struct mtb_record_set set;
    ok(mtb_record_load(dirs, 3, &set) == 0, "load: three directories");
    ok(json_array_size(set.records) == 2 && mtb_record_usable(&set) == 1,
       "load: 2 records kept (one ok, one an error), each file once (%zu)", json_array_size(set.records));
    size_t i;
    const char *reasons = "";
    char got[256] = "";
    int named = 1;
    for (i = 0; i < json_array_size(set.bad); i++) {
        struct mtb_record_bad bad;
        mtb_record_bad_read(&set, i, &bad);
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s ", bad.reason);
        named &= *bad.file && *bad.problem;
    }
    ok(named, "each file left out with its problem in words");
    reasons = "not-json other-schema not-json ";
    ok(!strcmp(got, reasons), "load: the corrupt file, the other schema and the missing directory listed bad by name");
    if (strcmp(got, reasons))
        diag("got %s", got);
    mtb_record_set_free(&set);
    free(missing);
    free(dir);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return perror("mkdtemp"), 1;
    test_checks_and_load();
    mtb_rm_rf(tmp);
    return done_testing();
}
