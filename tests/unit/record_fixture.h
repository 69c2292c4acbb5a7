/* record_fixture.h - records for the unit tests of the record modules
 * (test_record.c, test_record_load.c, test_record_pair.c): a workload, an
 * ok record of memcached on emu, a record file written into a results
 * directory, a complete configuration. */
#ifndef MTB_TEST_RECORD_FIXTURE_H
#define MTB_TEST_RECORD_FIXTURE_H
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "core/record.h"
#include "lib/files.h"
#include "lib/util.h"

static inline json_t *workload(int duration)
{
    return json_pack("{s:s,s:s,s:i,s:i}", "name", "default", "mix", "1:10", "conns", 16, "duration_s", duration);
}

static inline json_t *rec_of(const char *variant, const char *mode, int rep, double ops, double p99)
{
    json_t *r = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:o},s:{s:f}}", "schema", MTB_RECORD_SCHEMA, "status",
                          "ok", "config", "service", "memcached", "variant", variant, "mode", mode, "platform", "emu",
                          "kernel", "host", "plan", "p", "rep", rep, "workload", workload(30), "summary", "ops_per_sec",
                          ops);
    if (!isnan(p99)) /* p99 only in the load, as mtload reports it */
        json_object_set_new(r, "load", json_pack("{s:{s:{s:f}}}", "latency_us", "corrected", "p99", p99));
    return r;
}

static inline void put(const char *dir, const char *name, const char *text)
{
    char *d = mtb_asprintf("%s/%s", dir, name), *p = mtb_asprintf("%s/record.json", d);
    mkdir(d, 0755);
    mtb_write_atomic(p, text, strlen(text));
    free(d);
    free(p);
}

/* a complete config (mtb_rec_config_get) */
#define CFG "{\"service\":\"m\",\"variant\":\"plain\",\"mode\":\"off\",\"platform\":\"emu\",\"kernel\":\"host\",\"rep\":1,\"workload\":{}}"

#endif
