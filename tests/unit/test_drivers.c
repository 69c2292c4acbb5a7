/* Unit tests of the drivers' part of the workload: every driver honours
 * each workload field or refuses it by name; db_bench's value-size options
 * (a distribution is db_bench's own, never cut to its first number). */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "recipe.h"
#include "tap.h"
#include "util.h"
#include "workload.h"

static char *joined(const struct mtb_argv *a)
{
    size_t len = 1;
    for (int i = 0; i < a->n; i++)
        len += strlen(a->v[i]) + 1;
    char *s = calloc(1, len);
    for (int i = 0; i < a->n; i++) {
        strcat(s, i ? " " : "");
        strcat(s, a->v[i]);
    }
    return s;
}

static void value_args(const char *spec, int rc_want, const char *want)
{
    struct mtb_argv a = { 0 };
    char why[MTB_ERRLEN] = "";
    int rc = mtb_dbbench_value_size(spec, &a, why, sizeof why);
    char *got = joined(&a);
    if (rc_want == 0)
        ok(rc == 0 && !strcmp(got, want), "db_bench value size '%s': %s (got '%s')", spec, want, got);
    else
        ok(rc != 0 && a.n == 0 && strstr(why, "value_size") && strstr(why, spec), "db_bench value size '%s' refused: %s",
           spec, why);
    free(got);
    mtb_argv_free(&a);
}

static void test_dbbench_value_size(void)
{
    value_args("100", 0, "--value_size=100");
    value_args("4096", 0, "--value_size=4096");
    /* the defect: atol("64-512") gave --value_size=64 while the record said 64-512 */
    value_args("64-512", 0, "--value_size_distribution_type=uniform --value_size_min=64 --value_size_max=512");
    value_args("300:1", 0, "--value_size=300");
    value_args("300:1,300:5", 0, "--value_size=300");
    value_args("100:8,4096:2", -1, NULL);
}

/* the workload of recipe SERVICE's workload NAME with key=value over it */
static int workload_of(const char *service, const char *name, const char *key, const char *value,
                       struct mtb_workload *w)
{
    char err[MTB_ERRLEN];
    struct mtb_recipe *r = mtb_recipe_find(service, err, sizeof err);
    if (!r || mtb_workload_defaults(r, name, w) != 0)
        return -1;
    if (key) {
        struct mtb_workload_set s;
        memset(&s, 0, sizeof s);
        if (mtb_workload_set_parse(&s, key, value, err, sizeof err) != 0)
            return -1;
        mtb_workload_set_apply(&s, w);
    }
    return 0;
}

/* the run of SERVICE/NAME with key=value: accepted (want 0) or refused
 * naming the key */
static void check(const char *service, const char *name, const char *key, const char *value, int want)
{
    struct mtb_workload w;
    char why[MTB_ERRLEN] = "";
    const char *dname;
    if (workload_of(service, name, key, value, &w) != 0) {
        ok(0, "%s %s: workload made", service, name);
        return;
    }
    const struct mtb_driver *d = mtb_driver_of(&w, &dname);
    int rc = d ? mtb_driver_check(d, &w, why, sizeof why) : -2;
    if (want == 0)
        ok(rc == 0, "%s (%s) %s=%s honoured%s%s", service, dname, key ? key : "-", value ? value : "-", why[0] ? ": " : "",
           why);
    else
        ok(rc == -1 && key && strstr(why, key) && strstr(why, dname), "%s (%s) %s=%s refused by name: %s", service,
           dname, key, value, why);
}

static void test_refusals(void)
{
    /* the shipped workloads as they are */
    check("memcached", "default", NULL, NULL, 0);
    check("nginx", "wrk", NULL, NULL, 0);
    check("postgresql", "default", NULL, NULL, 0);
    check("postgresql", "kv", NULL, NULL, 0);
    check("rocksdb", "default", NULL, NULL, 0);
    check("rocksdb", "readrandom", NULL, NULL, 0);
    /* db_bench */
    check("rocksdb", "default", "value_size", "64-512", 0);
    check("rocksdb", "default", "value_size", "100:8,4096:2", -1);
    check("rocksdb", "default", "rate", "1000", -1);
    check("rocksdb", "default", "pipeline", "4", -1);
    check("rocksdb", "default", "conns", "64", -1);
    check("rocksdb", "default", "keys", "5000", 0);
    /* wrk: threads, connections and time only */
    check("nginx", "wrk", "conns", "32", 0);
    check("nginx", "wrk", "rate", "500", -1);
    check("nginx", "wrk", "pipeline", "8", -1);
    check("nginx", "wrk", "value_size", "1000", -1);
    /* pgbench: rate yes, value size and pipelining no; mix and keys with the kv script only */
    check("postgresql", "default", "rate", "200", 0);
    check("postgresql", "default", "value_size", "1000", -1);
    check("postgresql", "default", "pipeline", "4", -1);
    check("postgresql", "default", "mix", "1:1", -1);
    check("postgresql", "kv", "mix", "1:1", 0);
    check("postgresql", "kv", "keys", "500", 0);
    /* mtload: every field */
    check("memcached", "default", "value_size", "100:8,4096:2", 0);
    check("memcached", "default", "rate", "1000", 0);
    check("memcached", "default", "pipeline", "16", 0);
}

int main(void)
{
    test_dbbench_value_size();
    test_refusals();
    return done_testing();
}
