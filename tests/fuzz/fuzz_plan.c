/* fuzz_plan.c - the plan file loader (harness/plan/plan_parse.c), platform emu: the
 * checks of every key and value, the entries' resolution against the real
 * recipes. A refusal (mtb_die) is an answer, not a crash; the plan, whole
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
    static struct mtb_plan p; /* static: what the load filled in is still there after the longjmp */
    fuzz_armed = 1;
    if (!setjmp(fuzz_jmp)) {
        mtb_cli_parse(4, argv, &o, "plan");
        mtb_plan_load(&p, path, &o);
    }
    fuzz_armed = 0;
    mtb_plan_free(&p);
    return 0;
}
