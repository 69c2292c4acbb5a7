/* Unit tests of the workload: its mixes and its field list (through the
 * command line and the record). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "core/recipe.h"
#include "tap.h"
#include "lib/util.h"
#include "core/workload.h"
#include "lib/argv.h"

static void test_mix(void)
{
    ok(mtb_workload_valid_mix("1:10") && mtb_workload_valid_mix("5:1") && mtb_workload_valid_mix("0:1"), "mixes accepted");
    /* found by fuzz_plan: a 19-digit count overflowed the sum (UBSan) */
    ok(!mtb_workload_valid_mix("1:1044444444444444444444") && !mtb_workload_valid_mix("9223372036854775807:1") &&
           !mtb_workload_valid_mix("1:10000000") && mtb_workload_valid_mix("1000000:1000000"),
       "mix counts above a million refused, without overflow");
    ok(!mtb_workload_valid_mix("1-10") && !mtb_workload_valid_mix("1:") && !mtb_workload_valid_mix("0:0") &&
           !mtb_workload_valid_mix("1:10x") && !mtb_workload_valid_mix("-1:2"),
       "bad mixes refused");
}

/* The workload's field list round-trips: the agent's arguments (what a far
 * `mtebench run` is given) parse back into the same workload, and the
 * record's JSON has every field. */
static void test_workload_fields(void)
{
    char err[MTB_ERRLEN];
    struct mtb_recipe *r = mtb_recipe_find("memcached", err, sizeof err);
    struct mtb_workload w;
    ok(r && mtb_workload_defaults(r, "default", &w, NULL) == 0, "memcached's default workload");
    snprintf(w.mix, sizeof w.mix, "3:7");
    w.keys = 1234;
    snprintf(w.value_size, sizeof w.value_size, "64-128");
    w.threads = 2;
    w.conns = 8;
    w.pipeline = 4;
    w.duration = 2.5;
    w.warmup = 0.5;
    w.rate = 1500;
    snprintf(w.arrival, sizeof w.arrival, "poisson");
    w.seed = 7;
    w.service_threads = 3;
    struct mtb_argv a = { 0 };
    mtb_argv_push(&a, "run");
    mtb_argv_push(&a, "--service=memcached");
    mtb_argv_push(&a, "--platform=emu");
    mtb_workload_args(&w, &a);
    struct mtb_opts o;
    mtb_cli_parse(a.n, a.v, &o, "run");
    o.quiet = 1;
    mtb_opts_resolve(&o, NULL);
    int same = !strcmp(o.wl.name, w.name);
#define X(f, kind, ...) same &= memcmp(&o.wl.f, &w.f, sizeof w.f) == 0;
    MTB_WORKLOAD_FIELDS(X)
#undef X
    ok(same, "every workload field survives mtb_workload_args -> the CLI (%d args)", a.n);
    size_t always = 0; /* the fields a record always has (the rest: NONDEFAULT at their default here, and NEVER) */
#define X(f, kind, key, opt, json, rec, ...) always += MTB_WL_##rec == MTB_WL_ALWAYS;
    MTB_WORKLOAD_FIELDS(X)
#undef X
    json_t *j = mtb_workload_json(&w);
    ok(json_object_size(j) == always + 3 && json_real_value(json_object_get(j, "duration_s")) == 2.5 &&
           json_integer_value(json_object_get(j, "keys")) == 1234 &&
           !strcmp(json_string_value(json_object_get(j, "arrival")), "poisson") && !json_object_get(j, "seed"),
       "the record's workload has name, params, arrival and every field always recorded, but the seed (a run's draw)");
    json_decref(j);
    /* params over the recipe's (--param, a bug's own benchmark): looked up first, in the record's params */
    struct mtb_strmap *pa = mtb_calloc(1, sizeof *pa);
    mtb_strmap_set(pa, "benchmark", "readseq");
    mtb_strmap_set(pa, "extra", "a b");
    mtb_strmap_set(pa, "benchmark", "readrandom");
    ok(pa->n == 2 && !strcmp(pa->kv[0].key, "benchmark") && !strcmp(pa->kv[0].value, "readrandom"),
       "params set; a key set twice keeps its place, with its last value");
    char key[16];
    for (int i = 0; i < 20; i++) {
        snprintf(key, sizeof key, "k%d", i);
        mtb_strmap_set(pa, key, "v");
    }
    mtb_strmap_set(pa, "extra", "c");
    ok(pa->n == 22, "as many as given");
    w.params = pa;
    j = mtb_workload_json(&w);
    json_t *jp = json_object_get(j, "params");
    ok(!strcmp(mtb_workload_param(&w, "benchmark"), "readrandom") &&
           !strcmp(json_string_value(json_object_get(jp, "extra")), "c") && json_object_get(jp, "k19"),
       "a param looked up over the recipe's, and in the record's params");
    json_decref(j);
    w.params = NULL;
    mtb_strmap_free(pa);
    snprintf(w.arrival, sizeof w.arrival, "uniform");
    j = mtb_workload_json(&w);
    ok(json_object_size(j) == always + 2 && !json_object_get(j, "arrival"),
       "uniform arrivals are left out: the series keys of records made before the field stay");
    json_decref(j);
    w.timeout = 0.25;
    j = mtb_workload_json(&w);
    ok(json_object_size(j) == always + 3 && json_real_value(json_object_get(j, "timeout_s")) == 0.25,
       "a field added later (the timeout) is in the record only away from its default");
    json_decref(j);
    struct mtb_argv m = { 0 };
    mtb_workload_mtload_flags(&w, 1, &m);
    int want = 0, seed = 0; /* a flag for each field with one, but the data set's (keys, value size, threads, conns) */
#define X(f, kind, key, opt, json, rec, rsec, rkey, dflt, lo, hi, mtl, ...)                                      \
    want += mtl != NULL && !strstr(" keys value_size threads conns ", " " key " ");
    MTB_WORKLOAD_FIELDS(X)
#undef X
    for (int i = 0; i < m.n; i++)
        seed += !strcmp(m.v[i], "--seed=7");
    ok(m.n == want && want >= 7 && !strcmp(m.v[0], "--ratio=3:7") && seed == 1,
       "mtload's measurement flags from the field list (%d: %s ... %s)", m.n, m.v[0], m.v[m.n - 1]);
    mtb_argv_free(&m);
    mtb_argv_free(&a);
    struct mtb_workload_set s = { 0 };
    ok(mtb_workload_set_parse(&s, "kyes", "1", err, sizeof err) == -2 && strstr(err, "accepted: mix, keys"),
       "an unknown workload key names the accepted ones");
    ok(mtb_workload_set_parse(&s, "conns", "0", err, sizeof err) == -1 && strstr(err, "from 1 to 100000"),
       "a value out of range names the range");
}

/* A field's one row makes its option: every command that runs a service
 * lists it in --help with its value and its make variable, the field's name
 * in capitals (what the Makefile's WL_FIELDS passes as --option). */
static void test_field_options(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    mtb_cli_help(f, "bench", NULL);
    fclose(f);
    int listed = 0;
#define X(fld, kind, key, opt, json, rec, rsec, rkey, dflt, lo, hi, mtl, meta, mk, help)                         \
    {                                                                                                          \
        char up[64], want[128], first[128];                                                                    \
        size_t i = 0;                                                                                          \
        for (const char *c = #fld; *c && i < sizeof up - 1; c++)                                               \
            up[i++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);                                          \
        up[i] = 0;                                                                                             \
        snprintf(first, sizeof first, "%.*s", (int)strcspn(help, "\n"), help);                                 \
        snprintf(want, sizeof want, "--%s %s", opt, meta);                                                     \
        const char *at = strstr(text, want), *next = at ? strstr(at, "\n  --") : NULL;                        \
        char *entry = at ? mtb_asprintf("%.*s", next ? (int)(next - at) : (int)strlen(at), at) : NULL;         \
        int good = entry && !strcmp(mk, up) && strstr(entry, mk) && strstr(entry, first);                      \
        listed += good;                                                                                        \
        if (!good)                                                                                             \
            diag("field %s: '%s' with %s (its name in capitals) not in bench's help", #fld, want, up);         \
        free(entry);                                                                                           \
    }
    MTB_WORKLOAD_FIELDS(X)
#undef X
    ok(listed == MTB_WL_NFIELDS, "bench's --help lists every workload field's option and make variable (%d of %d)",
       listed, MTB_WL_NFIELDS);
    free(text);
    char err[MTB_ERRLEN];
    struct mtb_workload_set s = { 0 };
    ok(mtb_workload_set_parse(&s, "duration", "0", err, sizeof err) == -1 && strstr(err, "at least 1ms") &&
           mtb_workload_set_parse(&s, "warmup", "0", err, sizeof err) == 0,
       "a duration's bounds from its row: duration at least 1ms, warm-up 0 allowed");
}

int main(void)
{
    test_mix();
    test_workload_fields();
    test_field_options();
    return done_testing();
}
