/* Unit tests of util: number and duration parsing, directories and atomic
 * writes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "common/atomicfile.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

static void test_parse(void)
{
    double d;
    long l;
    ok(mtb_parse_duration("30", &d) == 0 && d == 30, "duration 30 = 30 s");
    ok(mtb_parse_duration("500ms", &d) == 0 && fabs(d - 0.5) < 1e-12, "duration 500ms");
    ok(mtb_parse_duration("2m", &d) == 0 && d == 120, "duration 2m");
    ok(mtb_parse_duration("5x", &d) != 0, "duration 5x refused");
    ok(mtb_parse_duration("", &d) != 0 && mtb_parse_duration("-1", &d) != 0, "empty and negative durations refused");
    ok(mtb_parse_long("42", 1, 100, &l) == 0 && l == 42, "long 42");
    ok(mtb_parse_long("0", 1, 100, &l) != 0 && mtb_parse_long("101", 1, 100, &l) != 0, "long out of range refused");
    ok(mtb_parse_long("12a", 1, 100, &l) != 0, "trailing garbage refused");
    ok(mtb_parse_long("99999999999999999999", 0, 1L << 62, &l) != 0, "overflow refused");
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static void test_atomic(void)
{
    char dir[] = "/tmp/mtb-atomic-XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *p = mtb_asprintf("%s/a/b/c", dir);
    ok(mtb_mkdir_p(p) == 0 && mtb_file_exists(p), "mkdir -p");
    char *f = mtb_asprintf("%s/rec.json", p);
    ok(mtb_write_atomic(f, "{}", 2) == 0, "atomic write");
    char *back = mtb_read_file(f, NULL);
    ok(back && !strcmp(back, "{}"), "read back");
    free(back);
    ok(mtb_write_atomic("/nonexistent-dir/x.json", "{}", 2) != 0, "atomic write into a missing dir fails cleanly");
    /* while it is being written the file has no name (a writer killed then
     * leaves nothing: interrupt.t once found a *.tmp.* after Ctrl-C) */
    char *g = mtb_asprintf("%s/load.json", p);
    int named, fd = mtb_af_open(g, &named);
    ok(fd >= 0 && write(fd, "[1]", 3) == 3, "a file opened for an atomic write");
    ok(named || entries(p) == 1, "... no name in its directory while written (only rec.json there)");
    ok(mtb_af_commit(fd, named, g) == 0 && entries(p) == 2 && mtb_file_exists(g), "... its name once committed, no temporary left");
    free(g);
    mtb_rm_rf(dir);
    ok(!mtb_file_exists(dir), "rm -rf");
    free(p);
    free(f);
}

int main(void)
{
    test_parse();
    test_atomic();
    return done_testing();
}
