/* opttab.c - see opttab.h */
#include "lib/opttab.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

void mtb_opt_init(struct mtb_optp *p, int argc, char **argv, const char *cmd, unsigned flags)
{
    memset(p, 0, sizeof *p);
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
    p->cmd = cmd;
    p->shown = cmd;
    p->flags = flags;
    p->pos = mtb_calloc((size_t)(argc > 0 ? argc : 1) + 1, sizeof *p->pos);
}

void mtb_opt_free(struct mtb_optp *p)
{
    free(p->pos);
    p->pos = NULL;
    p->npos = 0;
}

int mtb_opt_in(const struct mtb_opt *table, const struct mtb_opt *row)
{
    for (const struct mtb_opt *o = table; o && o->name; o++)
        if (o == row)
            return 1;
    return 0;
}

static int for_cmd(const struct mtb_opt *o, const char *cmd)
{
    if (!o->cmds || !cmd)
        return 1;
    size_t n = strlen(cmd);
    for (const char *s = o->cmds; *s;) {
        size_t w = strcspn(s, " ");
        if (w == n && !strncmp(s, cmd, n))
            return 1;
        s += w;
        s += strspn(s, " ");
    }
    return 0;
}

const struct mtb_opt *mtb_opt_find(const struct mtb_opt *const tabs[], const char *name, const char *cmd)
{
    for (int t = 0; tabs[t]; t++)
        for (const struct mtb_opt *o = tabs[t]; o->name; o++)
            if (!strcmp(o->name, name) && for_cmd(o, cmd))
                return o;
    return NULL;
}

/* "run", "run and proof", "bench, plan and nightly" */
static void cmds_text(const char *cmds, char *buf, size_t n)
{
    buf[0] = 0;
    int words = 0;
    for (const char *s = cmds; *s; s += strspn(s, " ")) {
        size_t w = strcspn(s, " ");
        s += w;
        words++;
    }
    int k = 0;
    size_t used = 0;
    for (const char *s = cmds; *s && used < n; s += strspn(s, " ")) {
        size_t w = strcspn(s, " ");
        const char *sep = k == 0 ? "" : k == words - 1 ? " and " : ", ";
        int m = snprintf(buf + used, n - used, "%s%.*s", sep, (int)w, s);
        used += m > 0 ? (size_t)m : 0;
        s += w;
        k++;
    }
}

static int fail(struct mtb_optp *p, const char *fmt, const char *a, const char *b)
{
    snprintf(p->err, sizeof p->err, fmt, a, b);
    return p->status = MTB_OPT_ERR;
}

int mtb_opt_next(struct mtb_optp *p, const struct mtb_opt *const tabs[])
{
    p->opt = NULL;
    p->val = NULL;
    p->name[0] = 0;
    while (p->i < p->argc) {
        char *a = p->argv[p->i];
        if (!strcmp(a, "--")) { /* the rest are arguments */
            for (p->i++; p->i < p->argc; p->i++)
                p->pos[p->npos++] = p->argv[p->i];
            break;
        }
        if (a[0] != '-' || !a[1]) { /* an argument ("-" too: standard input) */
            p->pos[p->npos++] = a;
            p->i++;
            if (p->flags & MTB_OPT_FIRST_ARG_ENDS) {
                for (; p->i < p->argc; p->i++)
                    p->pos[p->npos++] = p->argv[p->i];
                break;
            }
            continue;
        }
        p->i++;
        const char *name = !strcmp(a, "-h") ? "help" : a[1] == '-' ? a + 2 : NULL;
        if (!name)
            return fail(p, "unknown option '%s' (options are long: --NAME%s)", a, "");
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (len == 0 || len >= sizeof p->name)
            return fail(p, "unknown option '%s'%s", a, "");
        memcpy(p->name, name, len);
        p->name[len] = 0;
        const struct mtb_opt *o = mtb_opt_find(tabs, p->name, p->cmd);
        if (!o) {
            const struct mtb_opt *other = mtb_opt_find(tabs, p->name, NULL); /* whichever commands take it */
            if (other) {
                char who[256];
                cmds_text(other->cmds, who, sizeof who);
                snprintf(p->err, sizeof p->err, "--%s is an option of %s, not of %s", p->name, who,
                         p->shown ? p->shown : "this command");
                return p->status = MTB_OPT_ERR;
            }
            if (p->flags & MTB_OPT_PASS_UNKNOWN) {
                p->val = eq ? eq + 1 : NULL;
                return p->status = MTB_OPT_UNKNOWN;
            }
            snprintf(p->err, sizeof p->err, "unknown option '--%s' (see mtebench %s --help)", p->name,
                     p->shown ? p->shown : "help");
            return p->status = MTB_OPT_ERR;
        }
        p->opt = o;
        if (!o->meta) {
            if (eq)
                return fail(p, "option '--%s' takes no value (given '%s')", p->name, eq + 1);
        } else if (eq) {
            p->val = eq + 1;
        } else if (p->i < p->argc) {
            p->val = p->argv[p->i++];
        } else {
            return fail(p, "option '--%s' needs a value (%s)", p->name, o->meta);
        }
        return p->status = o->id;
    }
    p->pos[p->npos] = NULL;
    return p->status = MTB_OPT_DONE;
}

const char *mtb_opt_take(struct mtb_optp *p)
{
    if (p->val || p->i >= p->argc)
        return p->val;
    return p->val = p->argv[p->i++];
}

void mtb_opt_help(FILE *f, const struct mtb_opt *const tabs[], const char *cmd)
{
    for (int t = 0; tabs[t]; t++)
        for (const struct mtb_opt *o = tabs[t]; o->name; o++) {
            if (!o->help || !for_cmd(o, cmd))
                continue;
            char left[128];
            if (o->label)
                snprintf(left, sizeof left, "%s", o->label);
            else
                snprintf(left, sizeof left, "--%s%s%s", o->name, o->meta ? " " : "", o->meta ? o->meta : "");
            char head[256];
            int col = snprintf(head, sizeof head, "  %-18s", left);
            if (o->makevar && col > 0 && (size_t)col < sizeof head)
                col += snprintf(head + col, sizeof head - (size_t)col, " %-9s", o->makevar);
            if (col + 1 <= 31) /* the help from column 31 */
                fprintf(f, "%s%*s", head, 31 - col, "");
            else { /* a long left column: the help below it */
                int len = (int)strlen(head);
                while (len > 0 && head[len - 1] == ' ')
                    len--;
                fprintf(f, "%.*s\n%31s", len, head, "");
            }
            for (const char *s = o->help; *s;) {
                size_t w = strcspn(s, "\n");
                fprintf(f, "%.*s\n", (int)w, s);
                s += w;
                if (*s == '\n' && *++s)
                    fprintf(f, "%31s", "");
            }
        }
}
