/* Unit tests of opttab: options declared once, as a table; the parser and
 * the help made from it. Then the harness's own tables: what their help
 * lists is what their parser takes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opttab.h"
#include "agent/transport_ssh.h"
#include "core/workload.h"
#include "tap.h"

enum { T_NAME = 1, T_FLAG, T_RUNONLY, T_HELP, T_HIDDEN };
static const struct mtb_opt t[] = {
    MTB_OPT("name", "N", "NAME", T_NAME, NULL, "a value\nits second line"),
    MTB_OPT("flag", NULL, NULL, T_FLAG, NULL, "a flag"),
    MTB_OPT("count", NULL, "COUNT=1", T_RUNONLY, "run proof", "run's and proof's alone"),
    MTB_OPT("hidden", "H", NULL, T_HIDDEN, NULL, NULL),
    MTB_OPT_LABEL("help", NULL, NULL, T_HELP, NULL, "this text", "--help, -h"),
    { 0 },
};
static const struct mtb_opt *const tabs[] = { t, NULL };

/* parse argv (NULL-terminated) for cmd; the ids and values as text ("1=x 2 "), the end as "." or "E:why" */
static char *trace(const char *cmd, unsigned flags, char **argv)
{
    static char out[1024];
    int argc = 0;
    while (argv[argc])
        argc++;
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, cmd, flags);
    size_t n = 0;
    int c;
    out[0] = 0;
    while ((c = mtb_opt_next(&p, tabs)) != MTB_OPT_DONE && c != MTB_OPT_ERR && n < sizeof out - 64) {
        if (c == MTB_OPT_UNKNOWN) {
            const char *v = mtb_opt_take(&p);
            n += (size_t)snprintf(out + n, sizeof out - n, "?%s=%s ", p.name, v ? v : "-");
        } else {
            n += (size_t)snprintf(out + n, sizeof out - n, "%d%s%s ", c, p.val ? "=" : "", p.val ? p.val : "");
        }
    }
    if (c == MTB_OPT_ERR)
        n += (size_t)snprintf(out + n, sizeof out - n, "E:%s", p.err);
    else {
        n += (size_t)snprintf(out + n, sizeof out - n, "[");
        for (int i = 0; i < p.npos; i++)
            n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? "," : "", p.pos[i]);
        snprintf(out + n, sizeof out - n, "]");
        if (p.pos[p.npos] != NULL)
            snprintf(out, sizeof out, "positionals not NULL-terminated");
    }
    mtb_opt_free(&p);
    return out;
}

#define A(...) ((char *[]){ "cmd", __VA_ARGS__, NULL })

static void is_str(const char *got, const char *want, const char *what)
{
    ok(!strcmp(got, want), "%s: %s", what, want);
    if (strcmp(got, want))
        diag("got '%s'", got);
}

static void test_parse(void)
{
    is_str(trace("bench", 0, A("--name", "x", "--flag", "--name=y=z")), "1=x 2 1=y=z []", "value, flag, --name=VALUE");
    is_str(trace("bench", 0, A("a", "--flag", "b", "-", "--", "--name", "c")), "2 [a,b,-,--name,c]",
           "arguments kept in order around options; '-' is one; '--' ends the options");
    is_str(trace("bench", MTB_OPT_FIRST_ARG_ENDS, A("--flag", "host", "--name", "x")), "2 [host,--name,x]",
           "MTB_OPT_FIRST_ARG_ENDS: options stop at the first argument");
    is_str(trace("bench", 0, A("-h")), "4 []", "-h is --help");
    is_str(trace("bench", 0, A("--nam", "x")), "E:unknown option '--nam' (see mtebench bench --help)",
           "no abbreviations: a prefix is an unknown option");
    is_str(trace("bench", 0, A("--name")), "E:option '--name' needs a value (N)", "a value missing");
    is_str(trace("bench", 0, A("--flag=1")), "E:option '--flag' takes no value (given '1')", "a flag given a value");
    is_str(trace("bench", 0, A("-x")), "E:unknown option '-x' (options are long: --NAME)", "a short option");
    is_str(trace("bench", 0, A("--count")), "E:--count is an option of run and proof, not of bench",
           "an option of other commands, refused by name with theirs");
    is_str(trace("proof", 0, A("--count")), "3 []", "... and taken by them");
    is_str(trace("bench", MTB_OPT_PASS_UNKNOWN, A("--other", "v", "--x=1", "--flag")), "?other=v ?x=1 2 []",
           "MTB_OPT_PASS_UNKNOWN: unknown options returned, their values taken on request");
    is_str(trace("bench", MTB_OPT_PASS_UNKNOWN, A("--other")), "?other=- []", "... none taken past the end");
    is_str(trace("bench", 0, A("--hidden", "v")), "5=v []", "a row without help still parses");
    {
        struct mtb_optp p;
        char *argv[] = { "cmd", "--count", NULL };
        mtb_opt_init(&p, 2, argv, "sub-x", 0);
        p.shown = "cmd --x";
        ok(mtb_opt_next(&p, tabs) == MTB_OPT_ERR && !strcmp(p.err, "--count is an option of run and proof, not of cmd --x"),
           "messages name the command as shown: %s", p.err);
        mtb_opt_free(&p);
    }
}

static char *help_of(const struct mtb_opt *const *tt, const char *cmd)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    mtb_opt_help(f, tt, cmd);
    fclose(f);
    return buf;
}

static void test_help(void)
{
    char *h = help_of(tabs, "bench");
    is_str(h,
           "  --name N           NAME      a value\n"
           "                               its second line\n"
           "  --flag                       a flag\n"
           "  --help, -h                   this text\n",
           "help: left column, make variable, help from column 31, continuations aligned; other commands' rows and "
           "rows without help left out");
    free(h);
    h = help_of(tabs, "run");
    ok(strstr(h, "  --count            COUNT=1   run's and proof's alone\n") != NULL, "... a command's own rows shown to it");
    free(h);
}

/* every row of the harness's tables: a name, a help (or a neighbour's label naming it), a unique name per table */
static void check_table(const char *what, const struct mtb_opt *tab)
{
    int bad = 0;
    for (const struct mtb_opt *o = tab; o->name; o++) {
        int named = o->help != NULL;
        for (const struct mtb_opt *q = tab; q->name && !named; q++)
            named = q->label && strstr(q->label, o->name);
        for (const struct mtb_opt *q = o + 1; q->name; q++)
            bad |= !strcmp(q->name, o->name);
        bad |= !named || o->id <= 0 || strchr(o->name, '=') != NULL;
        if (!named)
            diag("%s: --%s is in no help", what, o->name);
    }
    ok(!bad, "%s: every option in the help, ids above 0, names unique", what);
}

static void test_harness_tables(void)
{
    check_table("ssh options", mtb_ssh_opts);
    const struct mtb_opt *const ssh[] = { mtb_ssh_opts, NULL };
    char *h = help_of(ssh, "hosts");
    ok(strstr(h, "--ssh-alive S") && strstr(h, "--trust-new-hosts  "), "ssh options: their help made from the table");
    free(h);
}

int main(void)
{
    test_parse();
    test_help();
    test_harness_tables();
    return done_testing();
}
