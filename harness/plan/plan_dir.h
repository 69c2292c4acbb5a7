/* plan_dir.h - a plan's results directory: its plan.json (schema
 * mtebench-plan/1) written, and what the directory already holds checked
 * first (plan_dir.c) */
#ifndef MTB_PLAN_DIR_H
#define MTB_PLAN_DIR_H
#include <jansson.h>
#include "lib/err.h"

/** dir/plan.json written from pj (plan.c's: the cells, the platform, the
 *  repetitions, what was skipped). A dir that holds runs is used only as
 *  told: resume (--resume) of the same plan, or force (--force: its runs
 *  moved aside to dir/replaced-TIME/); else refused, naming why and, for
 *  another plan, which. @return 0, or -1 with e set (nothing written) */
int mtb_plan_dir_write(const char *dir, json_t *pj, int resume, int force, struct mtb_err *e);
#endif
