/* Unit tests of what the mode probe said, read into its struct
 * (harness/core/proof_rows.c), from the probe's own lines as run/proof.c
 * parses them: the tag-check mode, the tagged pointers, the fault codes,
 * whose malloc served; a probe that said less. */
#include <string.h>

#include "core/proof_rows.h"
#include "run/proof.h"
#include "tap.h"

int main(void)
{
    json_t *pr = mtb_proof_parse("tcf=sync\ntagged_ptrs=7/8\ntagged_large=1/1\nwrite_fault=9\nread_fault=9\n"
                                 "malloc_from=/lib/aarch64-linux-gnu/libc.so.6\nbase=0x0f00ffff00001000\n");
    struct mtb_probe_view p;
    mtb_probe_view_read(pr, &p);
    ok(!strcmp(p.tcf, "sync") && !strcmp(p.tagged_ptrs, "7/8") && !strcmp(p.tagged_large, "1/1") &&
           !strcmp(p.malloc_from, "/lib/aarch64-linux-gnu/libc.so.6"),
       "the mode, the tagged pointers, whose malloc");
    ok(p.has_write_fault && p.write_fault == 9 && p.has_read_fault && p.read_fault == 9, "the fault codes");
    json_decref(pr);
    pr = mtb_proof_parse("tcf=none\nwrite_fault=0\n");
    mtb_probe_view_read(pr, &p);
    ok(!strcmp(p.tcf, "none") && !p.tagged_ptrs && !p.malloc_from && p.has_write_fault && p.write_fault == 0 &&
           !p.has_read_fault,
       "a probe that said less: NULL and not there");
    json_decref(pr);
    mtb_probe_view_read(NULL, &p);
    ok(!p.tcf && !p.has_write_fault, "no probe at all");
    json_t *proof = json_pack("{s:s}", "method", "probe");
    ok(!strcmp(mtb_proof_method(proof), "probe") && !strcmp(mtb_proof_method(NULL), ""),
       "how a proof was made; none: \"\"");
    json_decref(proof);
    return done_testing();
}
