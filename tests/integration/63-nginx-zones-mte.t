#!/bin/bash
# The tagged nginx really maps its shared memory zones with PROT_MTE: a
# test-only patch stores through a pointer whose tag differs from the zone's
# right after each zone is mapped. Under emu (qemu-user checks tags of
# anonymous memory) the tagged build faults in sync mode at the zone's address;
# the same store on the stock sources (zones not PROT_MTE) does not, and with
# tagging off the tagged build runs clean.
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/r"
run() { # variant mode
    "$M" run --service nginx --variant "$1" --mode "$2" --platform emu --duration 1 --warmup 0 \
        --results "$R/$1-$2" > "$T_TMP/$1-$2.out" 2>&1
}
rec() { echo "$R/$1-$2/001-$1-$2/record.json"; }

run zonecheck sync
is "$?" 3 "tagged zones, sync: the mismatched store is a fault (exit 3)" || dump "$T_TMP/zonecheck-sync.out"
ok "$(jq -e '.status=="fault" and .fault.si_code==9 and .fault.tag_check' "$(rec zonecheck sync)" >/dev/null; echo $?)" \
   "SEGV_MTESERR recorded"
ok "$(jq -e '.fault.addr | startswith("0x01")' "$(rec zonecheck sync)" >/dev/null; echo $?)" \
   "at the zone address carrying the planted tag 1 ($(jq -r .fault.addr "$(rec zonecheck sync)"))"

run zonecheck-plain sync
is "$?" 0 "stock zones (no PROT_MTE), sync: the same store lands, no fault" || dump "$T_TMP/zonecheck-plain-sync.out"
ok "$(jq -e '.status=="ok" and (.fault|not) and .proof.probe.tcf=="sync"' "$(rec zonecheck-plain sync)" >/dev/null; echo $?)" \
   "the control ran in a proved sync mode"

run zonecheck off
is "$?" 0 "tagged zones, tagging off: no PROT_MTE, runs clean" || dump "$T_TMP/zonecheck-off.out"
done_testing
