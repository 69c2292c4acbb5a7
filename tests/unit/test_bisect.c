/* Unit tests of the command a nightly regression is bisected with
 * (harness/bisect/bisect.c, mtb_bisect_command): the history's workload key
 * made run options, every workload field of the list among them
 * (core/workload_fields.h: a duration with its "s", a timeout, open-loop
 * arrivals, the service's threads), the workload's name first, the
 * fields after the recipe's params object as well; what a command cannot
 * be made from. */
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"
#include "core/record.h"
#include "tap.h"

int main(void)
{
    /* params (the recipe's [workload] keys: an object with commas and a value with '=' and spaces inside) sorts
     * just before pipeline */
    json_t *w = json_pack("{s:s,s:s,s:i,s:f,s:f,s:f,s:s,s:i,s:i,s:{s:s,s:s,s:s}}", "name", "default", "mix", "1:10",
                          "conns", 16, "duration_s", 2.0, "timeout_s", 5.0, "rate", 200.0, "arrival", "poisson",
                          "service_threads", 2, "pipeline", 4, "params", "mix", "1:10", "db_bench_args",
                          "--num=1000 --reads=5", "note", "a \"quoted\", text");
    char *key = mtb_workload_key(w);
    char *cmd = mtb_bisect_command("aaaaaaaaaaaa1", "bbbbbbbbbbbb2", "memcached", "tagged", "async", "vm", key, "p99_us");
    ok(cmd != NULL, "a command (%s)", cmd ? cmd : "none");
    ok(cmd && strstr(cmd, "--good aaaaaaaaaaaa --bad bbbbbbbbbbbb --service memcached --variant tagged --mode async "
                          "--platform vm --workload default --"),
       "the revisions, the configuration, the workload's name before its fields");
    ok(cmd && strstr(cmd, " --duration 2s") && strstr(cmd, " --timeout 5s") && strstr(cmd, " --conns 16") &&
           strstr(cmd, " --rate 200") && strstr(cmd, " --arrival poisson") && strstr(cmd, " --service-threads 2") &&
           strstr(cmd, " --mix 1:10") && strstr(cmd, " --metric p99_us") && strstr(cmd, " --pipeline 4") &&
           !strstr(cmd, "params") && !strstr(cmd, "--num"),
       "every field of the key as its option, durations with s; the field after params too, params none");
    free(cmd);
    free(key);
    ok(mtb_bisect_command("", "b", "memcached", "tagged", "async", "vm", "default", NULL) == NULL,
       "no good revision: no command");
    cmd = mtb_bisect_command("a1", "b2", "memcached", "tagged", "async", "emu", "ro", NULL);
    ok(cmd && strstr(cmd, "--workload ro") && !strstr(cmd, "--duration"), "a workload by name alone");
    free(cmd);
    json_decref(w);
    return done_testing();
}
