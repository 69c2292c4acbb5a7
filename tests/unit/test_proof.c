/* Unit tests of the mode proof's decision: which probe output proves which
 * mode. */
#include <string.h>

#include "core/mode.h"
#include "run/proof.h"
#include "tap.h"

static const char *probe_out[] = {
    /* off */ "hwcap2_mte=1\nprctl_ctrl=0x0\ntcf=none\ntagged_ptrs=0/64\nwrite_fault=0\nread_fault=0\n",
    /* sync */ "hwcap2_mte=1\nprctl_ctrl=0x7fff3\ntcf=sync\ntagged_ptrs=64/64\nwrite_fault=9\nread_fault=9\n",
    /* async */ "hwcap2_mte=1\nprctl_ctrl=0x7fff5\ntcf=async\ntagged_ptrs=64/64\nwrite_fault=8\nread_fault=8\n",
    /* asymm */ "hwcap2_mte=1\nprctl_ctrl=0x7fff7\ntcf=sync+async\ntagged_ptrs=64/64\nwrite_fault=8\nread_fault=9\n",
};

static void test_proof(void)
{
    const char *names[] = { "off", "sync", "async", "asymm" };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            char why[512];
            json_t *p = mtb_proof_parse(probe_out[j]);
            int got = mtb_proof_check(mtb_mode_find(names[i]), p, why, sizeof why);
            ok(got == (i == j), "probe output of %s %s mode %s (%s)", names[j], i == j ? "proves" : "does not prove",
               names[i], why);
            json_decref(p);
        }
    char why[512];
    json_t *p = mtb_proof_parse("tcf=sync\ntagged_ptrs=0/64\nwrite_fault=9\nread_fault=9\n");
    ok(!mtb_proof_check(mtb_mode_find("sync"), p, why, sizeof why) && strstr(why, "tagged"),
       "sync without tagged pointers is not proved: %s", why);
    json_decref(p);
    p = mtb_proof_parse("tcf=sync\n");
    ok(!mtb_proof_check(mtb_mode_find("sync"), p, why, sizeof why), "incomplete probe output is not a proof");
    json_decref(p);
}

int main(void)
{
    test_proof();
    return done_testing();
}
