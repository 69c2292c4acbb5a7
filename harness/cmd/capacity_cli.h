/* capacity_cli.h - the capacity command (capacity_cli.c). */
#ifndef MTB_CMD_CAPACITY_CLI_H
#define MTB_CMD_CAPACITY_CLI_H

#include <jansson.h>
#include <stdio.h>
#include "plan/plan.h"
/* Every entry with an SLO of p (plan.h's mtb_plan_capacity), in order,
 * each searched into dir/capacity-ENTRY as the command searches (the
 * records' plan is the plan's), its files written and its table printed to
 * out. @return their results (capacity.json's objects with "plan", "entry",
 * "dir" and "file"; caller decrefs); *status the worst of theirs: 0, 1 (runs not
 * ok, no pilot, files not written), 130 (Ctrl-C) or an error's code (a
 * search stopped on it). NULL with e set: an entry's search could not begin
 * (a build, its directory refused, --strict); the entries after it not tried. */
json_t *mtb_capacity_entries(const struct mtb_plan *p, const char *dir, int force, FILE *out, int *status,
                             struct mtb_err *e);
#endif
