#!/bin/bash
# nginx with a tag per small pool allocation (variant objtag), under emu:
# - planted pool errors (test-only patch, MTEBENCH_PLANT=overflow|uaf on a
#   worker's 100th static request): an overflow from one ngx_palloc result
#   into the next and a read through a pointer kept across ngx_reset_pool are
#   tag-check faults (SIGSEGV, SEGV_MTESERR) at the neighbour's / the reset
#   allocation's address under objtag sync; under tagged sync (glibc heap
#   tagging: the pool block has one tag) the same plants run to the end;
# - the objtag build serves its workload (mixed file sizes, mtload) in sync
#   mode without a fault, and its worker counts the tag operations.
# (the master respawns a faulting worker, which plants again on its 100th
# request: the first fault is the one recorded.)
# Three nginx builds (~1 min each, cached); the runs take ~20 s under emu.
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
low56() { printf '0x%014x' $(( $1 & 0xffffffffffffff )); }   # the address without its tag
for v in objtag-plant tagged-plant; do
    for p in overflow uaf; do
        MTEBENCH_PLANT=$p "$M" run --service nginx --variant $v --mode sync --platform emu --duration 2 --warmup 0 \
            --results "$R/$v-$p" > "$T_TMP/$v-$p.out" 2>&1
        echo $? > "$T_TMP/$v-$p.rc"
    done
done
rec() { echo "$R/$1-$2/001-$1-sync/record.json"; }
log() { echo "$R/$1-$2/001-$1-sync/service.log"; }
for p in overflow uaf; do
    is "$(cat "$T_TMP/objtag-plant-$p.rc")" 3 "objtag sync, $p: the run reports a fault (exit 3)" || dump "$T_TMP/objtag-plant-$p.out"
    ok "$(jq -e '.status=="fault" and .fault.signal==11 and .fault.si_code==9 and .fault.tag_check==true' "$(rec objtag-plant $p)" >/dev/null; echo $?)" \
       "objtag sync, $p: SIGSEGV with SEGV_MTESERR recorded"
    if [ $p = overflow ]; then
        want=$(sed -n 's/^mtbplant: overflow from pool allocation .* into its neighbour at \(0x[0-9a-f]*\)$/\1/p' "$(log objtag-plant $p)" | head -n 1)
        what="the neighbour's address"
    else
        want=$(sed -n 's/^mtbplant: use after reset of pool allocation \(0x[0-9a-f]*\)$/\1/p' "$(log objtag-plant $p)" | head -n 1)
        what="the reset allocation's address"
    fi
    got=$(jq -r .fault.addr "$(rec objtag-plant $p)")
    ok "$([ -n "$want" ] && [ "$(low56 "$got")" = "$(low56 "$want")" ]; echo $?)" \
       "objtag sync, $p: the fault is at $what ($got vs planted $want)" || dump "$(log objtag-plant $p)"
    is "$(cat "$T_TMP/tagged-plant-$p.rc")" 0 "tagged sync, $p: the same plant runs to the end" || dump "$T_TMP/tagged-plant-$p.out"
    ok "$(jq -e '.status=="ok" and (.fault|not) and .load.totals.requests > 100' "$(rec tagged-plant $p)" >/dev/null; echo $?)" \
       "tagged sync, $p: record ok, no fault, past the 100th request"
    ok "$(grep -q "^mtbplant: " "$(log tagged-plant $p)"; echo $?)" "tagged sync, $p: the plant was made (service log)"
done

"$M" run --service nginx --variant objtag --mode sync --platform emu --workload mixed --duration 3 --warmup 0 \
    --results "$R/objtag" > "$T_TMP/objtag.out" 2>&1
is "$?" 0 "objtag sync serves the mixed workload (1 KiB to 256 KiB files)" || dump "$T_TMP/objtag.out"
r="$R/objtag/001-objtag-sync/record.json"
ok "$(jq -e '.status=="ok" and (.fault|not) and .proof.ok and .load.totals.requests > 0 and .load.totals.errors.protocol == 0' "$r" >/dev/null; echo $?)" \
   "proved, requests served, no fault, no protocol error" || dump "$R/objtag/001-objtag-sync/service.log"
ops=$(jq '.service_counters.delta.objtag_ops // 0' "$r")
req=$(jq '.load.totals.requests' "$r")
ok "$([ "$ops" -gt "$req" ] 2>/dev/null; echo $?)" \
   "the worker tagged pool allocations ($ops tag operations, $(jq '.service_counters.delta.objtag_granules // 0' "$r") granules, $req requests)"
"$M" report --out "$T_TMP/rep" "$R/objtag" > "$T_TMP/rep.out" 2>&1
t=$(jq -r '.configs[]|select(.variant=="objtag")|.tag_ops_per_request' "$T_TMP/rep/objtag/summary.json" 2>/dev/null)
ok "$(jq -e '.tag_ops > 1 and .granules_tagged >= .tag_ops' <<<"$t" >/dev/null 2>&1; echo $?)" \
   "the report gives tag operations and granules per request from nginx's requests ($(jq -c . <<<"$t" 2>/dev/null))" || dump "$T_TMP/rep.out"
done_testing
