/* fuzz_plan.c - the plan file loader (harness/plan/plan_parse.c), platform emu: the
 * checks of every key and value, the entries' resolution against the real
 * recipes. A refusal (a returned struct mtb_err) is an answer, not a crash; the plan, whole
 * or cut short by it, is freed (a leak per input once filled libFuzzer's
 * 2 GB in 9 minutes). */
#include "fuzz.h"
#include "cmd/cli.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".conf");
    static char a0[] = "plan", a1[] = "--platform", a2[] = "emu", a3[] = "--quiet";
    char *argv[] = { a0, a1, a2, a3, NULL };
    struct mtb_opts o;
    struct mtb_plan p;
    struct mtb_err e = { 0 };
    mtb_cli_parse(4, argv, &o, "plan"); /* fixed options: never refused */
    mtb_plan_load(&p, path, &o, &e);   /* a bad plan is an answer in e, not an exit */
    mtb_plan_free(&p);
    return 0;
}
