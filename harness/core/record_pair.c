/* record_pair.c - see record.h: the pairing rule (a tagged run and its
 * plain/off baseline of the same configuration, repetition and host), in C
 * and as SQL for the history. */
#include "lib/jsonx.h"
#include "core/mode.h"
#include "core/record.h"
#include "core/allocator.h"
#include "lib/util.h"
#include "lib/files.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the pairing rule -------------------------------------------------------------- */



const char *mtb_record_host(json_t *rec)
{
    json_t *hosts = json_object_get(rec, "hosts");
    /* a server host's run: the host it ran on, as the transport saw it */
    const char *s = mtb_jstr(json_object_get(hosts, "server"), "hostname");
    if (*s)
        return s;
    /* a vm guest's own name ("(none)") says nothing of the machine: the one that booted it ("" before it was kept) */
    if (!strcmp(mtb_jstr(json_object_get(rec, "config"), "platform"), "vm"))
        return mtb_jstr(json_object_get(hosts, "controller"), "hostname");
    return mtb_jstr(json_object_get(rec, "environment"), "hostname");
}

int mtb_rec_config_is_baseline(const struct mtb_rec_config *c)
{
    return !strcmp(c->variant, "plain") && !strcmp(c->mode, "off");
}

int mtb_record_is_baseline(json_t *c) { return !strcmp(mtb_jstr(c, "variant"), "plain") && !strcmp(mtb_jstr(c, "mode"), "off"); }

/* Each field of the pair key as text, pair_F for each F MTB_PAIR_FIELDS
 * names (a field added there without its function does not compile). */
static char *pair_workload(json_t *rec, const struct mtb_rec_config *c)
{
    json_t *rl = json_object_get(json_object_get(rec, "sequential"), "run_length");
    if (!json_is_number(json_object_get(rl, "pilot_s")))
        return mtb_workload_key(c->workload);
    /* REPS=auto chose the run length after its pilot pairs (runlen.c): one configuration, runs of two
     * lengths, keyed by the configured (pilot) one */
    json_t *w = json_deep_copy(c->workload);
    json_object_set(w, "duration_s", json_object_get(rl, "pilot_s"));
    char *k = mtb_workload_key(w);
    json_decref(w);
    return k;
}
static char *pair_machine(json_t *rec, const struct mtb_rec_config *c) { (void)c; return mtb_record_machine_text(rec); }
#define PAIR_TEXT(f) \
    static char *pair_##f(json_t *rec, const struct mtb_rec_config *c) { (void)rec; return mtb_strdup(c->f); }
PAIR_TEXT(plan)
PAIR_TEXT(service)
PAIR_TEXT(platform)
PAIR_TEXT(kernel)
PAIR_TEXT(allocator) /* records from before the axis: glibc's (mtb_rec_config_get) */
#undef PAIR_TEXT

/* the pair key of a record whose config is complete, else NULL (never paired) */
static char *pair_key(json_t *rec, const struct mtb_rec_config *c)
{
    static const struct {
        const char *name;
        char *(*text)(json_t *rec, const struct mtb_rec_config *c);
    } fields[] = {
#define X(f) { #f, pair_##f },
        MTB_PAIR_FIELDS(X)
#undef X
    };
    char *key = mtb_strdup("");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char *v = fields[i].text(rec, c), *k = mtb_asprintf("%s%s%s=%s", key, i ? "|" : "", fields[i].name, v);
        free(v);
        free(key);
        key = k;
    }
    return key;
}

char *mtb_record_pair_key(json_t *rec)
{
    struct mtb_rec_config c;
    return mtb_rec_config_get(rec, &c, NULL, 0) == 0 ? pair_key(rec, &c) : NULL;
}

int mtb_record_pairs(json_t *tagged, json_t *baseline)
{
    struct mtb_rec_config t, b;
    if (mtb_rec_config_get(tagged, &t, NULL, 0) || mtb_rec_config_get(baseline, &b, NULL, 0) ||
        mtb_record_is_baseline(json_object_get(tagged, "config")) ||
        !mtb_record_is_baseline(json_object_get(baseline, "config")) || t.rep != b.rep ||
        strcmp(mtb_record_host(tagged), mtb_record_host(baseline))) /* never a baseline of another machine */
        return 0;
    char *ka = pair_key(tagged, &t), *kb = pair_key(baseline, &b);
    int same = !strcmp(ka, kb);
    free(ka);
    free(kb);
    return same;
}

long mtb_record_partner(json_t *records, json_t *rec)
{
    size_t i;
    json_t *b;
    json_array_foreach(records, i, b) if (!strcmp(mtb_jstr(b, "status"), "ok") && mtb_record_pairs(rec, b)) return (long)i;
    return -1;
}

long *mtb_record_partners(json_t *records)
{
    size_t n = json_array_size(records);
    long *out = mtb_calloc(n ? n : 1, sizeof *out);
    char **keys = mtb_calloc(n ? n : 1, sizeof *keys);
    int *reps = mtb_calloc(n ? n : 1, sizeof *reps);
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(records, i);
        struct mtb_rec_config c;
        keys[i] = strcmp(mtb_jstr(r, "status"), "ok") || mtb_rec_config_get(r, &c, NULL, 0) ? NULL
                : pair_key(r, &c); /* each key built once */
        reps[i] = keys[i] ? c.rep : 0;
        out[i] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(records, i);
        if (!keys[i] || mtb_record_is_baseline(json_object_get(t, "config")))
            continue;
        for (size_t j = 0; j < n && out[i] < 0; j++) {
            json_t *b = json_array_get(records, j);
            if (keys[j] && mtb_record_is_baseline(json_object_get(b, "config")) &&
                reps[j] == reps[i] && !strcmp(keys[i], keys[j]) &&
                !strcmp(mtb_record_host(b), mtb_record_host(t)))
                out[i] = (long)j;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(reps);
    return out;
}

char *mtb_record_pair_sql(const char *t, const char *b)
{
    char *sql = mtb_asprintf("%s.night = %s.night AND %s.rep = %s.rep", b, t, b, t);
#define X(f)                                                                       \
    {                                                                              \
        char *s = mtb_asprintf("%s AND %s.%s = %s.%s", sql, b, #f, t, #f);        \
        free(sql);                                                                 \
        sql = s;                                                                   \
    }
    MTB_PAIR_FIELDS(X)
#undef X
    /* never a baseline of another machine: the history keeps mtb_record_host as runs.host */
    char *s = mtb_asprintf("%s AND %s.host = %s.host AND %s.variant = 'plain' AND %s.mode = 'off'"
                           " AND NOT (%s.variant = 'plain' AND %s.mode = 'off')", sql, b, t, b, b, t, t);
    free(sql);
    return s;
}

