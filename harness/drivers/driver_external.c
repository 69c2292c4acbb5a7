/* driver_external.c - the load comes from client hosts (remote.c, clients.c):
 * on the server host, the far `mtebench run --external-load DIR` measures
 * with this driver instead of the recipe's: it tells the controller the
 * service's port (DIR/serving.json) and waits until the controller has
 * driven and measured it from the client hosts (DIR/stop). The recipe's own
 * driver still preloads. Not in the recipes' registry: chosen by
 * --external-load only. */
#include "drivers/driver.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *external_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const char *dir = d->external;
    mtb_mkdir_p(dir);
    char *sp = mtb_asprintf("%s/serving.json", dir), *stop = mtb_asprintf("%s/stop", dir);
    char *text = mtb_asprintf("{\"port\": %d, \"pid\": %d}\n", d->port, (int)getpid());
    json_t *load = NULL;
    if (mtb_write_atomic(sp, text, strlen(text)) != 0) {
        snprintf(why, n, "cannot write %s", sp);
        goto out;
    }
    double t0 = mtb_mono();
    while (!mtb_file_exists(stop)) {
        if (mtb_proc_interrupted) {
            snprintf(why, n, "interrupted while serving the client hosts");
            goto out;
        }
        if (mtb_mono() - t0 > d->timeout) {
            snprintf(why, n, "the controller did not end the load within %.0f s", d->timeout);
            goto out;
        }
        usleep(50000);
    }
    load = json_pack("{s:s,s:s}", "schema", "mtload/1", "external",
                     "the load came from client hosts; the controller merges their results into this record");
out:
    free(sp);
    free(stop);
    free(text);
    return load;
}

const struct mtb_driver mtb_driver_external = {
    .name = "external",
    .summary = "load from client hosts (--external-load): serve until the controller has measured",
    .embedded = 0,
    .honours = MTB_WL_EVERY, /* the client hosts' mtload and the controller's warm-up */
    .preload = mtb_driver_no_preload,
    .measure = external_measure,
};
