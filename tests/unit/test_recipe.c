/* Unit tests of recipes: finding and loading them (errors named with their
 * line), continuation lines, templates. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/recipe.h"
#include "tap.h"

static void test_template(void)
{
    const char *pairs[] = { "port", "1234", "threads", "4", NULL, NULL };
    char *s = mtb_template("-p {port} -t {threads} {unknown} {", pairs);
    ok(!strcmp(s, "-p 1234 -t 4 {unknown} {"), "template substitutes known keys only: '%s'", s);
    free(s);
    char *u = mtb_unescape("version\\r\\n");
    ok(!strcmp(u, "version\r\n"), "unescape \\r\\n");
    free(u);
}

static void test_recipe(void)
{
    char err[512];
    struct mtb_recipe *r = mtb_recipe_find("memcached", err, sizeof err);
    ok(r != NULL, "memcached recipe found");
    if (!r)
        return;
    ok(mtb_recipe_has_variant(r, "plain") && mtb_recipe_has_variant(r, "tagged"), "plain and tagged variants");
    ok(!mtb_recipe_has_variant(r, "nope"), "unknown variant absent");
    const struct mtb_recipe_variant *tv = mtb_recipe_variant(r, "tagged"), *bv = mtb_recipe_variant(r, "plain-bugs");
    ok(tv && !strcmp(tv->name, "tagged") && tv->cflags_aarch64 && strstr(tv->cflags_aarch64, "memtag") &&
           !mtb_recipe_yes(tv->bugs) && mtb_recipe_variant(r, "nope") == NULL,
       "a variant typed: tagged's cflags_aarch64 (%s), no bugs; an unknown one NULL", tv ? tv->cflags_aarch64 : "-");
    ok(bv && mtb_recipe_yes(bv->bugs) && mtb_recipe_variant_bugs(r, "plain-bugs") && !mtb_recipe_variant_bugs(r, "plain"),
       "plain-bugs carries the bug catalogue");
    ok(r->run.protocol && !strcmp(r->run.protocol, "memcache") && r->run.ready_send &&
           r->run.ready_send == mtb_recipe_get(r, "run", "ready_send") && r->run.listen_in == NULL,
       "[run] typed: memcached's protocol memcache, its ready_send the key's value, a key it lacks NULL");
    const char *sha = mtb_recipe_get(r, "service", "sha256");
    ok(sha && strlen(sha) == 64 && r->sha256 == sha, "source checksum pinned, and typed");
    ok(r->build_binary && !strcmp(r->build_binary, "bin/memcached") && r->run.args && strstr(r->run.args, "{port}"),
       "the build's binary and the command line typed: %s, %s", r->build_binary, r->run.args);
    ok(mtb_recipe_find("nope", err, sizeof err) == NULL && strstr(err, "accepted: ") && strstr(err, "memcached"),
       "unknown service names the accepted ones: %s", err);
    /* a malformed recipe is named with its line */
    char path[] = "/tmp/mtb-recipe-XXXXXX";
    int fd = mkstemp(path);
    ok(fd >= 0 && write(fd, "[service]\nname = x\nthis line is bad\n", 36) == 36, "wrote a bad recipe");
    close(fd);
    struct mtb_recipe bad;
    ok(mtb_recipe_load(path, &bad, err, sizeof err) != 0 && strstr(err, ":3:"), "malformed line reported: %s", err);
    unlink(path);
    /* long values continue on indented lines (inih's line length is limited) */
    char path2[] = "/tmp/mtb-recipe-XXXXXX";
    fd = mkstemp(path2);
    const char *txt = "[service]\nname = x\nsource_package = x\nsource_version = 1-1\nversion = 1\norig = x.tar.gz\n"
                      "sha256 = 00\n[build]\nscript = build.sh\nbinary = bin/x\n[run]\nargs = -a 1\n    -b 2\n";
    ok(fd >= 0 && write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt), "wrote a recipe with a continuation");
    close(fd);
    struct mtb_recipe cont;
    ok(mtb_recipe_load(path2, &cont, err, sizeof err) == 0 && mtb_recipe_get(&cont, "run", "args") &&
           !strcmp(mtb_recipe_get(&cont, "run", "args"), "-a 1 -b 2"),
       "continued value joined");
    ok(cont.run.args == mtb_recipe_get(&cont, "run", "args") && cont.run.driver == NULL && cont.run.protocol == NULL,
       "[run] typed: args the same value, a key it lacks NULL");
    mtb_recipe_free(&cont);
    /* a key every recipe has, missing: refused at load, named */
    fd = open(path2, O_WRONLY | O_TRUNC);
    const char *noorig = "[service]\nname = x\nsource_package = x\nsource_version = 1-1\nversion = 1\nsha256 = 00\n"
                         "[build]\nscript = build.sh\nbinary = bin/x\n";
    ok(fd >= 0 && write(fd, noorig, strlen(noorig)) == (ssize_t)strlen(noorig), "wrote a recipe without [service] orig");
    close(fd);
    struct mtb_recipe missing;
    ok(mtb_recipe_load(path2, &missing, err, sizeof err) != 0 && strstr(err, path2) &&
           strstr(err, "[service] has no 'orig'"),
       "a missing key is refused at load, with the file and the key: %s", err);
    unlink(path2);
}

int main(void)
{
    test_template();
    test_recipe();
    return done_testing();
}
