#!/bin/bash
# The tagged nginx really maps its shared memory zones with PROT_MTE: the
# test-only preload tests/shim/mtbplant.c (MTB_PLANT_MIN=1: zones of any
# size) stores through a pointer with tag 1 into each anonymous MAP_SHARED
# region right after nginx maps it (ngx_shm_alloc: the accept mutex and the
# counters stub_status reads, here). Under emu (qemu-user checks tags of
# anonymous memory) the tagged build faults in sync mode at the zone's
# address; with tagging off it maps the zone without PROT_MTE and runs clean.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
SHIM="$B/tests/aarch64/libmtbplant.so"
[ -f "$SHIM" ] || skip_all "$SHIM not built (make test builds it)"
R="$T_TMP/r"
run() { # mode
    MTB_PLANT_MIN=1 MTEBENCH_EXTRA_PRELOAD=$SHIM "$M" run --service nginx --variant tagged --mode "$1" \
        --platform emu --duration 1 --warmup 0 --results "$R/$1" > "$T_TMP/$1.out" 2>&1
}
rec() { echo "$R/$1/001-tagged-$1/record.json"; }
planted() { cat "$R/$1"/001-*/*.log 2>/dev/null | grep -a '^mtbplant:'; }

run sync
is "$?" 3 "tagged zones, sync: the mismatched store is a fault (exit 3)" || dump "$T_TMP/sync.out"
ok "$(jq_e '.status=="fault" and .fault.si_code==9 and .fault.tag_check' "$(rec sync)" >/dev/null; echo $?)" \
   "SEGV_MTESERR recorded"
note=$(planted sync | head -1)
diag "$note"
ok "$(echo "$note" | grep -q 'MAP_SHARED, PROT_MTE'; echo $?)" "the zone was mapped MAP_SHARED with PROT_MTE by nginx"
addr=$(echo "$note" | sed -n 's/.* into 0x\([0-9a-f]*\) .*/\1/p')
is "$(jq -r .fault.addr "$(rec sync)")" "$(printf '0x01%014x' "0x${addr:-0}")" \
   "the fault is at the zone's address (0x$addr) with the planted tag 1"

run off
is "$?" 0 "tagged zones, tagging off: no PROT_MTE, the same store lands" || dump "$T_TMP/off.out"
ok "$(planted off | grep -q 'MAP_SHARED, no PROT_MTE'; echo $?)" "the zone mapped without PROT_MTE"
ok "$(jq_e '.status=="ok" and .summary.ops_per_sec > 0' "$(rec off)" >/dev/null; echo $?)" "and nginx served the load"
done_testing
