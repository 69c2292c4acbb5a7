/* Unit tests of the drivers' part of the workload: every driver honours
 * each workload field or refuses it by name; db_bench's value-size options
 * (a distribution is db_bench's own, never cut to its first number);
 * pgbench from client hosts: each host's arguments, and its logs folded
 * with the setup transactions it commits beside them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/clients.h"
#include "drivers/driver.h"
#include "core/recipe.h"
#include "tap.h"
#include "lib/util.h"
#include "core/workload.h"
#include "lib/files.h"
#include "lib/argv.h"

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
    if (!r || mtb_workload_defaults(r, name, w, NULL) != 0)
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

/* one client host's pgbench arguments (after client-load's own) */
static void pg_args(const char *name, const char *server, double duration, double rate, const char *want)
{
    struct mtb_workload w;
    if (workload_of("postgresql", name, NULL, NULL, &w) != 0) {
        ok(0, "postgresql %s: workload made", name);
        return;
    }
    w.conns = 3;
    w.threads = 2;
    w.duration = duration;
    w.rate = rate;
    struct mtb_client_load l = { .server = server, .tool = "pgbench", .wl = w };
    struct mtb_argv a = { 0 };
    char why[MTB_ERRLEN] = "";
    int rc = mtb_clients_pgbench_argv(&l, &w, &a, why, sizeof why);
    char *got = joined(&a);
    ok(rc == 0 && !strcmp(got, want), "pgbench from a client host, %s %s: '%s'%s%s", name, server, got,
       why[0] ? ": " : "", why);
    free(got);
    mtb_argv_free(&a);
}

static void test_pgbench_clients(void)
{
    pg_args("default", "10.77.0.11:5432", 2, 0,
            "--tool=pgbench -- -h10.77.0.11 -p5432 -Upostgres -c3 -j2 -T2 -n -bselect-only postgres");
    /* -T is whole seconds, never fewer than asked; the host's share of the rate */
    pg_args("rw", "[fd00::1]:6000", 0.5, 40,
            "--tool=pgbench -- -hfd00::1 -p6000 -Upostgres -c3 -j2 -T1 -n --rate=40 -btpcb-like postgres");
    pg_args("kv", "h1:7000", 2.2, 0,
            "--tool=pgbench --kv-keys=10000 -- -hh1 -p7000 -Upostgres -c3 -j2 -T3 -n -fkv-get.sql@10 -fkv-set.sql@1 "
            "postgres");
    /* the setup transactions of `pgbench -n`: its connection, two table
     * checks for a built-in script, one connection per client */
    ok(mtb_pgbench_setup_xacts(1, 2) == 5 && mtb_pgbench_setup_xacts(0, 4) == 5,
       "pgbench -n's setup: 1 + 2 (built-in) + one per client");
    /* a host's logs folded: every logged transaction, the setup beside them */
    char dir[] = "/tmp/mtb-test-pgclients.XXXXXX";
    ok(mkdtemp(dir) != NULL, "a directory for a host's logs");
    char *src = mtb_asprintf("%s/tests/fixtures/pgbench-15-rate.log", mtb_root());
    char *dst = mtb_asprintf("%s/pgbench_tx.4242", dir);
    size_t len = 0;
    char *text = mtb_read_file(src, &len);
    ok(text && mtb_write_atomic(dst, text, len) == 0, "the fixture log as a host's");
    struct mtb_workload w;
    workload_of("postgresql", "default", NULL, NULL, &w);
    w.conns = 2;
    w.threads = 1;
    w.duration = 2;
    json_t *cj = json_pack("{s:f,s:f}", "cpu_user_s", 0.5, "cpu_sys_s", 0.25);
    char why[MTB_ERRLEN] = "";
    json_t *ld = mtb_clients_pgbench_fold(dir, &w, cj, why, sizeof why);
    json_t *tot = json_object_get(ld, "totals");
    ok(ld && json_integer_value(json_object_get(tot, "requests")) == 889 &&
           json_integer_value(json_object_get(tot, "setup")) == 5,
       "folded: 889 transactions and 5 setup transactions%s%s", why[0] ? ": " : "", why);
    ok(ld && json_array_size(json_object_get(ld, "histogram_uncorrected")) > 0 &&
           json_real_value(json_object_get(json_object_get(ld, "cpu"), "user_s")) == 0.5,
       "its uncorrected histogram and its CPU use");
    char *lp = mtb_asprintf("%s/load.json", dir);
    ok(mtb_file_exists(lp), "written as the host's load.json");
    json_decref(ld);
    json_decref(cj);
    unlink(lp);
    unlink(dst);
    rmdir(dir);
    free(lp);
    free(text);
    free(src);
    free(dst);
}

int main(void)
{
    test_dbbench_value_size();
    test_refusals();
    test_pgbench_clients();
    return done_testing();
}
