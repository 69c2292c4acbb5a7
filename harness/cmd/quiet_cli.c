/* quiet_cli.c - `mtebench quiet`: the quiet-machine check every plan makes
 * before its first run (run/quiet.c), alone, with the machine's latency
 * floor. */
#include "cmd/commands.h"
#include "cmd/cli.h"
#include "core/machine.h"
#include "core/record_env.h"
#include "lib/util.h"
#include "run/floor.h"
#include "run/quiet.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int mtb_cmd_quiet(int argc, char **argv)
{
    /* mtebench quiet [--machine M] [--strict] [--json]: the quiet-machine
     * check alone, on the profile's CPUs. Exit 0 quiet, 1 not quiet (warned),
     * 2 refused with --strict or bad input. */
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "quiet");
    char err[MTB_ERRLEN];
    struct mtb_machine *m = mtb_calloc(1, sizeof *m);
    if (mtb_machine_load(o.machine, m, err, sizeof err) != 0)
        mtb_die(2, "%s", err);
    struct mtb_err e = { 0 };
    json_t *env = mtb_quiet_environment(m, o.strict, o.json, 1, &e);
    if (!env)
        mtb_err_exit(&e);
    struct mtb_rec_env qe;
    mtb_rec_env_of_environment(env, &qe);
    if (o.json) {
        json_dumpf(env, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
    } else {
        printf("machine %s, CPUs %s: %s\n", m->name, qe.quiet_cpus, qe.quiet ? "quiet" : "NOT quiet (warnings above)");
        char fdesc[512];
        struct mtb_floor_view fv;
        mtb_floor_view_read(qe.quiet_floor, &fv);
        if (mtb_floor_describe(&fv, fdesc, sizeof fdesc))
            printf("latency floor: %s\n", fdesc);
        else
            printf("latency floor: not measured (%s)\n", fdesc);
        mtb_floor_view_free(&fv);
    }
    int rc = qe.quiet ? 0 : 1;
    mtb_rec_env_free(&qe);
    mtb_quiet_restore();
    json_decref(env);
    free(m);
    return rc;
}
