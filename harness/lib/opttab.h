/* opttab.h - a command's options declared once, as a table: the parser and
 * the help text are both made from it, so an option cannot be accepted and
 * left out of --help, or listed and refused.
 *
 *   static const struct mtb_opt own[] = {
 *       MTB_OPT("trials", "N", "TRIALS", O_TRIALS, NULL, "trials per cell (default 3)"),
 *       MTB_OPT("json", NULL, NULL, O_JSON, NULL, "the result as JSON"),
 *       { 0 },
 *   };
 *   const struct mtb_opt *const tabs[] = { own, mtb_cli_opts, NULL };
 *   struct mtb_optp p;
 *   mtb_opt_init(&p, argc, argv, "detect", 0);
 *   for (int id; (id = mtb_opt_next(&p, tabs)) > 0;)
 *       switch (id) { case O_TRIALS: ... p.val ...; }
 *   if (p.status == MTB_OPT_ERR) refuse p.err;   p.pos: the other arguments
 *
 * Long options only: --name VALUE, --name=VALUE, a flag --name; -h is
 * --help. Names are matched whole (no abbreviations: a script that works
 * today keeps working when an option is added). "--" ends the options. */
#ifndef MTB_OPTTAB_H
#define MTB_OPTTAB_H
#include <stdio.h>

struct mtb_opt {
    const char *name;    /* "service" for --service; NULL ends a table */
    const char *meta;    /* its value's placeholder in the help ("NAME"); NULL: a flag, no value */
    const char *makevar; /* the make variable that sets it (shown in the help), or NULL */
    int id;              /* what mtb_opt_next returns for it: above 0 */
    const char *cmds;    /* the commands that take it, space-separated ("run proof"); NULL: every one */
    const char *help;    /* its help, lines split at '\n'; NULL: not listed (a neighbour's label names it) */
    const char *label;   /* the help's left column when it is not "--name META" */
};

/* a row: MTB_OPT("trials", "N", "TRIALS", O_TRIALS, NULL, "trials per cell"); a table ends with { 0 } */
#define MTB_OPT(name, meta, makevar, id, cmds, help) { name, meta, makevar, id, cmds, help, NULL }
#define MTB_OPT_LABEL(name, meta, makevar, id, cmds, help, label) { name, meta, makevar, id, cmds, help, label }

/* how mtb_opt_next ends */
enum { MTB_OPT_DONE = 0, MTB_OPT_ERR = -1, MTB_OPT_UNKNOWN = -2 };
/* flags */
#define MTB_OPT_FIRST_ARG_ENDS 1u /* the first argument that is not an option ends them (a command line after it) */
#define MTB_OPT_PASS_UNKNOWN 2u   /* an unknown --name is returned (MTB_OPT_UNKNOWN), not refused */

struct mtb_optp {
    int argc;
    char **argv;
    int i;                     /* the next argv index to read */
    const char *cmd;           /* the command parsed for (the rows' cmds) */
    const char *shown;         /* the command as messages name it (mtb_opt_init: cmd) */
    unsigned flags;
    const struct mtb_opt *opt; /* the option mtb_opt_next returned */
    const char *val;           /* its value; NULL for a flag (an unknown option: its =VALUE, if any) */
    char name[64];             /* the option's name as given, without "--" */
    char **pos;                /* the arguments that are not options, in order (NULL-terminated) */
    int npos;
    int status;                /* the last return of mtb_opt_next */
    char err[256];             /* why, when it returned MTB_OPT_ERR */
};

/* Parse argv[1..argc-1] (argv[0]: the command) for cmd. */
void mtb_opt_init(struct mtb_optp *p, int argc, char **argv, const char *cmd, unsigned flags);
/* The next option: its id (p->opt, p->val set), MTB_OPT_DONE when none is
 * left, MTB_OPT_ERR with p->err (an unknown option, a value missing or
 * given to a flag, an option of other commands), MTB_OPT_UNKNOWN (with
 * MTB_OPT_PASS_UNKNOWN: p->name, p->val). tabs: NULL-terminated. */
int mtb_opt_next(struct mtb_optp *p, const struct mtb_opt *const tabs[]);
/* An unknown option's value, the argument after it (MTB_OPT_PASS_UNKNOWN):
 * NULL, and nothing taken, when there is none. */
const char *mtb_opt_take(struct mtb_optp *p);
void mtb_opt_free(struct mtb_optp *p);

/* The row named name in tabs, for cmd (NULL: any command), or NULL. */
const struct mtb_opt *mtb_opt_find(const struct mtb_opt *const tabs[], const char *name, const char *cmd);
/* Is row one of table's rows (table NULL: no)? */
int mtb_opt_in(const struct mtb_opt *table, const struct mtb_opt *row);
/* The help of cmd's options, one per row (continuations aligned):
 *   "  --service NAME     SERVICE   memcached (see `mtebench list`)" */
void mtb_opt_help(FILE *f, const struct mtb_opt *const tabs[], const char *cmd);
#endif
