/* record_load.c - see record.h: records loaded from result directories,
 * each checked (schema, status) and kept or listed as bad. */
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

/* ---- loading ------------------------------------------------------------------------ */

const char *mtb_record_problem_name(enum mtb_record_problem p)
{
    static const char *const names[] = { "ok", "not-json", "not-object", "no-schema", "other-schema", "no-service",
                                          "no-figures", "counted", "bad-config" };
    return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "unknown";
}

static int schema_known(const char *s)
{
    static const char *const known[] = MTB_RECORD_SCHEMAS;
    for (const char *const *k = known; *k; k++)
        if (!strcmp(*k, s))
            return 1;
    return 0;
}

enum mtb_record_problem mtb_record_check(json_t *rec, char *msg, size_t n)
{
    struct mtb_rec_config cfg;
    char why[200];
    const char *schema = json_string_value(json_object_get(rec, "schema"));
    enum mtb_record_problem p = MTB_REC_OK;
    if (!json_is_object(rec))
        snprintf(msg, n, "not a run record: a JSON %s, not an object", json_is_array(rec) ? "array" : "scalar"),
            p = MTB_REC_NOT_OBJECT;
    else if (!schema)
        snprintf(msg, n, "not a run record: no \"schema\" field (expected %s)", MTB_RECORD_SCHEMA), p = MTB_REC_NO_SCHEMA;
    else if (!schema_known(schema))
        snprintf(msg, n, "schema version \"%.100s\" is not %s (written by another version of mtebench; "
                 "report it with that version)", schema, MTB_RECORD_SCHEMA), p = MTB_REC_OTHER_SCHEMA;
    else if (!json_is_object(json_object_get(rec, "config")) ||
             !json_is_string(json_object_get(json_object_get(rec, "config"), "service")))
        snprintf(msg, n, "incomplete record: no config.service"), p = MTB_REC_NO_SERVICE;
    else if (mtb_rec_config_get(rec, &cfg, why, sizeof why) != 0)
        snprintf(msg, n, "incomplete record: %s", why), p = MTB_REC_BAD_CONFIG;
    else if (!strcmp(mtb_jstr(rec, "status"), "ok") && !(mtb_jnum(json_object_get(rec, "summary"), "ops_per_sec") >= 0))
        snprintf(msg, n, "incomplete record: status ok but no summary.ops_per_sec"), p = MTB_REC_NO_FIGURES;
    else if (json_is_string(json_object_get(rec, "timing")) && json_object_get(rec, "work"))
        snprintf(msg, n, "a counted run: the counting plugin slowed it, its figures are no timing (its work: "
                 "docs/COUNTING.md)"), p = MTB_REC_COUNTED;
    else if (n)
        msg[0] = 0;
    return p;
}

static void add_bad(struct mtb_record_set *set, const char *file, const char *problem, enum mtb_record_problem p)
{
    json_array_append_new(set->bad, json_pack("{s:s,s:s,s:s}", "file", file, "problem", problem, "reason",
                                              mtb_record_problem_name(p)));
}

/* Check one record file; keep it or list it as bad. */
static void load_one(struct mtb_record_set *set, const char *path, json_t *seen)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    if (json_object_get(seen, real))
        return;
    json_object_set_new(seen, real, json_true());
    json_error_t e;
    json_t *rec = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    char msg[400];
    if (!rec) {
        snprintf(msg, sizeof msg, "corrupt record: not valid JSON (line %d: %s)", e.line, e.text);
        add_bad(set, path, msg, MTB_REC_NOT_JSON);
        return;
    }
    enum mtb_record_problem p = mtb_record_check(rec, msg, sizeof msg);
    if (p != MTB_REC_OK) {
        add_bad(set, path, msg, p);
        json_decref(rec);
        return;
    }
    json_array_append_new(set->records, rec);
    json_array_append_new(set->files, json_string(path));
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int mtb_record_set_init(struct mtb_record_set *set)
{
    set->records = json_array();
    set->files = json_array();
    set->bad = json_array();
    set->dirs = json_array();
    if (!set->records || !set->files || !set->bad || !set->dirs) {
        mtb_record_set_free(set);
        return -ENOMEM;
    }
    return 0;
}

/* DIR/record.json and DIR/<any>/record.json of one directory */
static void load_dir(struct mtb_record_set *set, const char *dir, json_t *seen)
{
    json_array_append_new(set->dirs, json_string(dir));
    if (!is_dir(dir)) {
        add_bad(set, dir, errno == ENOENT || !mtb_file_exists(dir) ? "no such directory" : "not a directory",
                MTB_REC_NOT_JSON);
        return;
    }
    int found = 0; /* record files there, loaded now or already (a directory given twice) */
    char *top = mtb_asprintf("%s/record.json", dir);
    if (mtb_file_exists(top))
        load_one(set, top, seen), found++;
    free(top);
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.') {
            char *p = mtb_asprintf("%s/%s/record.json", dir, ents[i]->d_name);
            if (mtb_file_exists(p))
                load_one(set, p, seen), found++;
            free(p);
        }
        free(ents[i]);
    }
    free(ents);
    if (!found)
        add_bad(set, dir, "no records (looked for DIR/record.json and DIR/*/record.json)", MTB_REC_NOT_JSON);
}

int mtb_record_load(char *const dirs[], int ndirs, struct mtb_record_set *set)
{
    if (mtb_record_set_init(set) != 0)
        return -ENOMEM;
    json_t *seen = json_object();
    if (!seen)
        return -ENOMEM;
    for (int d = 0; d < ndirs; d++)
        load_dir(set, dirs[d], seen);
    json_decref(seen);
    return 0;
}

int mtb_record_set_from(json_t *records, json_t *files, const char *dir, struct mtb_record_set *set)
{
    if (mtb_record_set_init(set) != 0)
        return -ENOMEM;
    json_array_append_new(set->dirs, json_string(dir));
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        char msg[400];
        const char *file = json_string_value(json_array_get(files, i));
        enum mtb_record_problem p = mtb_record_check(rec, msg, sizeof msg);
        if (p != MTB_REC_OK) {
            add_bad(set, file ? file : dir, msg, p);
        } else {
            json_array_append(set->records, rec);
            json_array_append_new(set->files, json_string(file ? file : dir));
        }
    }
    return 0;
}

void mtb_record_set_free(struct mtb_record_set *set)
{
    json_decref(set->records);
    json_decref(set->files);
    json_decref(set->bad);
    json_decref(set->dirs);
    memset(set, 0, sizeof *set);
}

size_t mtb_record_usable(const struct mtb_record_set *set)
{
    size_t i, n = 0;
    json_t *rec;
    json_array_foreach(set->records, i, rec) n += !strcmp(mtb_jstr(rec, "status"), "ok");
    return n;
}

void mtb_record_bad_read(const struct mtb_record_set *set, size_t i, struct mtb_record_bad *b)
{
    json_t *e = json_array_get(set->bad, i);
    *b = (struct mtb_record_bad){ .file = mtb_jstr(e, "file"), .problem = mtb_jstr(e, "problem"),
                                  .reason = mtb_jstr(e, "reason") };
}
