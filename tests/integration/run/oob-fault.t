#!/bin/bash
# A tagged memcached with a planted out-of-bounds write (test-only patch,
# variant "oob") is reported as a tag-check fault under sync and async, with
# signal, si_code and address; the same build under off runs clean.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
rc=()
for m in sync async off; do
    "$M" run --service memcached --variant oob --mode $m --platform emu --duration 2 --warmup 0 \
        --results "$R/$m" > "$T_TMP/$m.out" 2>&1
    rc[${#rc[@]}]=$?
done
rec() { echo "$R/$1/001-oob-$1/record.json"; }
is "${rc[0]}" 3 "sync: run reports a fault (exit 3)" || dump "$T_TMP/sync.out"
ok "$(jq_e '.status=="fault" and .fault.signal==11 and .fault.si_code==9 and .fault.tag_check==true' "$(rec sync)" >/dev/null; echo $?)" \
   "sync: SIGSEGV with SEGV_MTESERR (9) recorded"
ok "$(jq_e '.fault.addr != "0x0000000000000000"' "$(rec sync)" >/dev/null; echo $?)" "sync: faulting address recorded ($(jq -r .fault.addr "$(rec sync)"))"
ok "$(grep -q 'SEGV_MTESERR' "$T_TMP/sync.out"; echo $?)" "sync: the message names the fault"
is "${rc[1]}" 3 "async: run reports a fault (exit 3)" || dump "$T_TMP/async.out"
ok "$(jq_e '.status=="fault" and .fault.si_code==8' "$(rec async)" >/dev/null; echo $?)" "async: SEGV_MTEAERR (8) recorded"
is "${rc[2]}" 0 "off: the same build runs clean" || dump "$T_TMP/off.out"
ok "$(jq_e '.status=="ok" and (.fault|not) and .summary.ops_per_sec > 0' "$(rec off)" >/dev/null; echo $?)" "off: record ok, no fault"
ok "$(jq_e '.load.totals.gets > 1000' "$(rec off)" >/dev/null; echo $?)" "off: the planted write was reached (over 1000 gets)"
done_testing
