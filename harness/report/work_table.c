/* work_table.c - see work_table.h */
#include "report/work_table.h"

#include <string.h>

static double num(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* the tag-setting instructions of a row: IRG aside, every tag store */
static double tag_stores(const json_t *r)
{
    static const char *const k[] = { "stg", "st2g", "stzg", "stz2g", "stgp", "stgm", "stzgm", "dc_gva", "dc_gzva", NULL };
    double s = 0;
    for (int i = 0; k[i]; i++)
        s += num(r, k[i]);
    return s;
}

int mtb_work_table_print(FILE *f, const json_t *rec)
{
    const json_t *w = json_object_get(rec, "work");
    const json_t *pr = json_object_get(w, "per_request");
    if (!json_is_object(pr))
        return -1;
    const json_t *c = json_object_get(rec, "config");
    fprintf(f, "work per request: exact (counted), not a timing; the load's window less an idle one as long; %s %s/%s, "
                "kernel %s, %.0f requests (%s)\n",
            json_string_value(json_object_get(c, "service")), json_string_value(json_object_get(c, "variant")),
            json_string_value(json_object_get(c, "mode")), json_string_value(json_object_get(c, "kernel")),
            num(w, "requests"), json_string_value(json_object_get(w, "requests_from")));
    fprintf(f, "  %-16s %12s %10s %10s %12s %12s %10s %10s %10s %12s\n", "", "instructions", "loads", "stores",
            "checked ld", "checked st", "tag0 lower", "TCO-exempt", "tag stores", "bytes tagged");
    static const char *const roles[] = { "service", "client", "all", NULL };
    static const char *const names[] = { "service", "load generator", "all vCPUs" };
    for (int i = 0; roles[i]; i++) {
        const json_t *r = json_object_get(pr, roles[i]);
        if (!r || (i == 2 && json_object_get(pr, "service")))
            continue;
        for (int el = 0; el <= 1; el++) {
            const json_t *e = json_object_get(r, el ? "el1" : "el0");
            char label[40];
            snprintf(label, sizeof label, "%s EL%d", names[i], el);
            fprintf(f, "  %-16s %12.1f %10.1f %10.1f %12.2f %12.2f %10.1f %10.1f %10.2f %12.1f\n", label,
                    num(e, "insns"), num(e, "loads"), num(e, "stores"), num(e, "loads_checked"),
                    num(e, "stores_checked"), num(e, "tag0_lower"), num(e, "unchecked_tco"), tag_stores(e),
                    num(e, "tag_bytes"));
        }
    }
    fprintf(f, "  (checked: Tag Checked by the Arm ARM's rule; tag0 lower: tag-0 user accesses, checked only if "
               "their page is Tagged; docs/COUNTING.md)\n");
    return 0;
}
