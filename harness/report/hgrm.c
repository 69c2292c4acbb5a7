/* hgrm.c - a report's percentile listings (hgrm.h). */
#include "report/hgrm.h"
#include "common/atomicfile.h"
#include "core/loadlog.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/load_rows.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "loadgen/hlog.h"
#include "loadgen/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SERVICE-VARIANT-MODE-PLATFORM-KERNEL-WORKLOAD[-HOST] of safe characters */
static char *config_file_name(json_t *rec)
{
    struct mtb_rec_config c;
    mtb_rec_config_view(rec, &c);
    struct mtb_rec_env e;
    mtb_rec_env_read(rec, &e);
    const char *host = e.hostname;
    char *n = mtb_asprintf("%s-%s-%s-%s-%s-%s%s%s", c.service, c.variant, c.mode, c.platform, c.kernel,
                           mtb_jstr(c.workload, "name"), *host ? "-" : "", host);
    mtb_rec_env_free(&e);
    for (char *p = n; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
    return n;
}

int mtb_hgrm_write_configs(const struct mtb_record_set *set, const char *dir, char *err, size_t errlen)
{
    json_t *groups = json_object(), *rec, *g;
    const char *name;
    size_t i;
    int rc = 0;
    char *hdir = mtb_asprintf("%s/hgrm", dir);

    json_array_foreach(set->records, i, rec) {
        char *n;
        struct mtb_load_view lv;
        mtb_load_view_of_record(rec, &lv);
        if (strcmp(mtb_jstr(rec, "status"), "ok") || !json_array_size(lv.histogram))
            continue;
        n = config_file_name(rec);
        if (!json_object_get(groups, n))
            json_object_set_new(groups, n, json_array());
        json_array_append(json_object_get(groups, n), rec);
        free(n);
    }
    if (json_object_size(groups) && mtb_mkdir_p(hdir) != 0) {
        snprintf(err, errlen, "%s: cannot create: %s", hdir, strerror(errno));
        rc = -1;
    }
    json_object_foreach(groups, name, g) {
        struct mtl_hist h;
        char *path, *tmp;
        FILE *f;
        size_t k;
        json_t *r;
        if (rc || mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST))
            break;
        json_array_foreach(g, k, r) {
            struct mtb_load_view lv;
            mtb_load_view_of_record(r, &lv);
            mtb_hlog_add_histogram(&h, lv.histogram);
        }
        path = mtb_asprintf("%s/%s.hgrm", hdir, name);
        if (!(f = mtb_af_fopen(path, &tmp)) || mtb_af_fclose(f, tmp, path, mtl_hist_write_hgrm(&h, f, 1e6))) {
            snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
            rc = -1;
        }
        free(path);
        mtl_hist_free(&h);
    }
    json_decref(groups);
    free(hdir);
    return rc;
}
