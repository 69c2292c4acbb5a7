/* work.c - see work.h */
#include "core/work.h"
#include "lib/files.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *mtb_work_plugin(void) { return mtb_asprintf("%s/build/native/libmtecount.so", mtb_root()); }

int mtb_work_plugin_ready(char *why, size_t n)
{
    char *p = mtb_work_plugin();
    int ok = mtb_file_exists(p);
    if (!ok)
        snprintf(why, n, "the counting plugin %s is not built (make deps fetches QEMU's qemu-plugin.h; make "
                 "builds it; docs/COUNTING.md)", p);
    free(p);
    return ok;
}

char *mtb_work_plugin_arg(const char *out)
{
    char *p = mtb_work_plugin();
    char *a = mtb_asprintf("%s,out=%s", p, out);
    free(p);
    return a;
}

/* "k=v k=v ..." into o: numbers as integers, the rest as strings */
static void parse_pairs(char *line, json_t *o)
{
    for (char *save = NULL, *tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        char *end;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        json_object_set_new(o, tok, eq[1] && !*end ? json_integer((json_int_t)v) : json_string(eq + 1));
    }
}

json_t *mtb_work_load(const char *path, char *err, size_t errlen)
{
    char *text = mtb_read_file(path, NULL);
    if (!text) {
        snprintf(err, errlen, "the counting plugin wrote no %s (see the run's qemu.log)", path);
        return NULL;
    }
    if (strncmp(text, "mtecount ", 9) != 0) {
        snprintf(err, errlen, "%s is not the counting plugin's output", path);
        free(text);
        return NULL;
    }
    json_t *plugin = json_object(), *totals = json_array(), *windows = json_array();
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *o = json_object();
        if (!strncmp(line, "mtecount ", 9)) {
            parse_pairs(line + 9, plugin);
            json_decref(o);
            continue;
        }
        parse_pairs(line, o);
        json_array_append_new(json_object_get(o, "window") ? windows : totals, o);
    }
    free(text);
    return json_pack("{s:o,s:o,s:o}", "plugin", plugin, "totals", totals, "windows", windows);
}

/* add every integer of from into to */
static void add_counts(json_t *to, const json_t *from)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)from, k, v) {
        if (!json_is_integer(v) || !strcmp(k, "vcpu") || !strcmp(k, "el") || !strcmp(k, "window"))
            continue;
        json_int_t had = json_integer_value(json_object_get(to, k));
        json_object_set_new(to, k, json_integer(had + json_integer_value(v)));
    }
}

json_t *mtb_work_window_sum(const json_t *work, int window, int el)
{
    json_t *sum = NULL;
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(work, "windows"), i, w) {
        if (json_integer_value(json_object_get(w, "window")) != window ||
            (el >= 0 && json_integer_value(json_object_get(w, "el")) != el))
            continue;
        if (!sum)
            sum = json_object();
        add_counts(sum, w);
    }
    return sum;
}

/* the counters a work table shows, per EL */
static const char *const shown[] = { "insns", "loads", "stores", "loads_checked", "stores_checked", "tag0_lower",
                                     "tag_bytes", "stg", "st2g", "stzg", "stz2g", "stgp", "stgm", "stzgm",
                                     "dc_gva", "dc_gzva", "irg", "ldg", NULL };

json_t *mtb_work_account(const json_t *work, double requests, const char *requests_from)
{
    json_t *plugin = json_object_get(work, "plugin");
    json_t *acc = json_pack("{s:s,s:O,s:s}", "counted", "exact (counted): the guest's instruction stream under QEMU; "
                            "not a timing", "plugin", plugin, "rules",
                            "docs/COUNTING.md: Tag Checked by the Arm ARM's rule; the page's Tagged attribute "
                            "approximated (upper half Tagged; lower half Tagged when the pointer's tag is not 0; "
                            "lower-half tag-0 accesses apart, tag0_lower)");
    json_int_t nwin = json_integer_value(json_object_get(plugin, "windows"));
    json_object_set_new(acc, "windows", json_integer(nwin));
    if (nwin < 1) {
        json_object_set_new(acc, "error", json_string("the guest opened and closed no counting window"));
        return acc;
    }
    json_t *per_el = json_object(), *per_req = json_object(), *per_vcpu = json_array();
    for (int el = 0; el <= 1; el++) {
        json_t *s = mtb_work_window_sum(work, (int)nwin, el);
        if (!s)
            s = json_object();
        char name[8];
        snprintf(name, sizeof name, "el%d", el);
        json_t *pr = json_object();
        for (int i = 0; shown[i]; i++) {
            json_t *v = json_object_get(s, shown[i]);
            if (v && requests > 0)
                json_object_set_new(pr, shown[i], json_real((double)json_integer_value(v) / requests));
        }
        json_object_set_new(per_el, name, s);
        json_object_set_new(per_req, name, pr);
    }
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(work, "windows"), i, w) {
        if (json_integer_value(json_object_get(w, "window")) == nwin)
            json_array_append(per_vcpu, w);
    }
    json_object_set_new(acc, "window", per_el);
    json_object_set_new(acc, "by_vcpu", per_vcpu);
    if (requests > 0) {
        json_object_set_new(acc, "requests", json_real(requests));
        json_object_set_new(acc, "requests_from", json_string(requests_from));
        json_object_set_new(acc, "per_request", per_req);
    } else {
        json_decref(per_req);
    }
    return acc;
}
