/* Unit tests of a fault read into its view (harness/core/fault_rows.c): the
 * fault and the tags around it, the report (cause, tags compared, the
 * object, an alternative with and without one, the stacks with an inlined
 * frame, the threads), the core beside it; and a fault with no report. */
#include <string.h>

#include "core/fault_rows.h"
#include "tap.h"

static const char *fault_text =
    "{\"kind\": \"tag-check fault, synchronous (SEGV_MTESERR)\", \"addr\": \"0x0e00ffff00001018\", \"tag_check\": true,"
    " \"si_code\": 9, \"signal\": 11, \"pid\": 4242, \"memory_tag\": 3, \"tags\": {\"base\": \"0xffff00000f00\", \"tags\": \"33333333333333333333333333333333e\"},"
    " \"report\": {\"headline\": \"use after free, 24 bytes into a 64-byte heap object\", \"cause\": \"use after free\","
    "   \"access\": \"read\", \"why\": \"freed\", \"pointer_tag\": 14, \"memory_tag\": 3, \"allocation_record\": true,"
    "   \"object\": {\"start\": \"0x0000ffff00001000\", \"size\": 64, \"relation\": \"into\", \"distance\": 24, \"kind\": \"heap\"},"
    "   \"alternatives\": [{\"cause\": \"buffer overflow\", \"object\": {\"start\": \"0x0000ffff00000fc0\", \"size\": 32,"
    "     \"relation\": \"past\", \"distance\": 56, \"kind\": \"service\"}}, {\"cause\": \"unknown\", \"why\": \"no object\"}],"
    "   \"stack\": [{\"pc\": \"0x4005d0\", \"function\": \"read_at\", \"source\": \"faultcases.c:40\", \"module\": \"faultcases\","
    "     \"offset\": \"0x5d0\", \"inlined_in\": [\"inner\", \"main\"]}, {\"pc\": \"0x400600\"}],"
    "   \"alloc_thread\": 7, \"alloc_stack\": [{\"pc\": \"0x1\"}], \"free_thread\": 8, \"free_stack\": []},"
    " \"core\": {\"file\": \"/r/core\", \"tag_segments\": 1, \"memory_tag\": 3, \"agrees\": true, \"siginfo\": false}}";

int main(void)
{
    json_error_t je;
    json_t *f = json_loads(fault_text, 0, &je);
    ok(f != NULL, "the fault parses (%s)", f ? "" : je.text);
    struct mtb_fault_view v;
    mtb_fault_view_read(f, &v);
    ok(v.signal == 11 && v.pid == 4242, "the signal and the process that took it");
    ok(v.tag_check && v.si_code == 9 && v.has_memory_tag && v.memory_tag == 3 && v.has_tags && strlen(v.tags) == 33 &&
           !strcmp(v.addr, "0x0e00ffff00001018"),
       "the fault and the tags around it");
    ok(v.has_report && !strcmp(v.cause, "use after free") && !strcmp(v.access, "read") && v.has_report_memory_tag &&
           v.pointer_tag == 14 && v.report_memory_tag == 3 && v.allocation_record && !v.has_syscall,
       "the report: its cause, the tags it compared");
    ok(v.object.present && v.object.size == 64 && v.object.distance == 24 && !strcmp(v.object.relation, "into") &&
           !strcmp(v.object.start, "0x0000ffff00001000"),
       "the object");
    ok(v.nalts == 2 && v.alts[0].object.present && !strcmp(v.alts[0].object.kind, "service") &&
           !v.alts[1].object.present && !strcmp(v.alts[1].why, "no object"),
       "the alternatives, with and without an object");
    ok(v.stack.n == 2 && !strcmp(v.stack.v[0].inlined_in, "main") && !v.stack.v[1].inlined_in &&
           !strcmp(v.stack.v[1].function, "") && v.alloc_stack.n == 1 && v.free_stack.n == 0 && !v.second_free_stack.n &&
           v.alloc_thread == 7 && v.free_thread == 8,
       "the stacks: an inlined frame's outermost function, the threads");
    ok(v.has_core && !v.core_error && v.tag_segments == 1 && v.has_core_memory_tag && v.has_agrees && v.agrees &&
           v.no_siginfo,
       "the core beside it");
    mtb_fault_view_free(&v);
    json_t *bare = json_pack("{s:s,s:b}", "kind", "bus error", "tag_check", 0);
    mtb_fault_view_read(bare, &v);
    ok(!v.has_report && !v.tag_check && !v.object.present && v.nalts == 0 && v.stack.n == 0 && !v.has_core &&
           !strcmp(v.cause, "") && !strcmp(v.kind, "bus error"),
       "a fault with no report: what it lacks is \"\" and 0");
    mtb_fault_view_free(&v);
    json_decref(bare);
    json_decref(f);
    return done_testing();
}
