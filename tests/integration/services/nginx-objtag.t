#!/bin/bash
# nginx with a tag per small pool allocation (variant objtag), under emu:
# - planted pool errors (test-only patch, MTEBENCH_PLANT=overflow|uaf on a
#   worker's 10th static request, reached in any run of 2 s: a loaded
#   machine once served 92 in all): an overflow from one ngx_palloc result
#   into the next and a read through a pointer kept across ngx_reset_pool are
#   tag-check faults (SIGSEGV, SEGV_MTESERR) at the neighbour's / the reset
#   allocation's address under objtag sync; under tagged sync (glibc heap
#   tagging: the pool block has one tag) the same plants run to the end;
# - the objtag build serves its workload (mixed file sizes, mtload) in sync
#   mode without a fault, and its worker counts the tag operations; with
#   tagging off (mode off) it tags nothing.
# (the master respawns a faulting worker, which plants again on its 10th
# request: the first fault is the one recorded.)
# Three nginx builds (~1 min each, cached); the runs take ~20 s under emu.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
objtag_plants nginx 2 \
    '^mtbplant: overflow from pool allocation .* into its neighbour at \(0x[0-9a-f]*\)$' \
    '^mtbplant: use after reset of pool allocation \(0x[0-9a-f]*\)$' "the reset allocation's address" \
    '.load.totals.requests > 10' "past the 10th request"

"$M" run --service nginx --variant objtag --mode sync --platform emu --workload mixed --duration 3 --warmup 0 \
    --results "$R/objtag" > "$T_TMP/objtag.out" 2>&1
is "$?" 0 "objtag sync serves the mixed workload (1 KiB to 256 KiB files)" || dump "$T_TMP/objtag.out"
r="$R/objtag/001-objtag-sync/record.json"
ok "$(jq_e '.status=="ok" and (.fault|not) and .proof.ok and .load.totals.requests > 0 and .load.totals.errors.protocol == 0' "$r" >/dev/null; echo $?)" \
   "proved, requests served, no fault, no protocol error" || dump "$R/objtag/001-objtag-sync/service.log"
ops=$(jq '.service_counters.delta.objtag_ops // 0' "$r")
req=$(jq '.load.totals.requests' "$r")
ok "$([ "$ops" -gt "$req" ] 2>/dev/null; echo $?)" \
   "the worker tagged pool allocations ($ops tag operations, $(jq '.service_counters.delta.objtag_granules // 0' "$r") granules, $req requests)"
"$M" run --service nginx --variant objtag --mode off --platform emu --duration 1 --warmup 0 \
    --results "$R/off" > "$T_TMP/off.out" 2>&1
is "$?" 0 "objtag build with tagging off runs" || dump "$T_TMP/off.out"
ok "$(jq_e '.status=="ok" and .load.totals.requests > 0 and .service_counters.delta.objtag_ops == 0' "$R/off/001-objtag-off/record.json" >/dev/null; echo $?)" \
   "tagging off: requests served and no tag operation (stock allocation path)"

"$M" report --out "$T_TMP/rep" "$R/objtag" > "$T_TMP/rep.out" 2>&1
t=$(jq -r '.configs[]|select(.variant=="objtag")|.tag_ops_per_request' "$T_TMP/rep/objtag/summary.json" 2>/dev/null)
ok "$(jq_e '.tag_ops > 1 and .granules_tagged >= .tag_ops' <<<"$t" >/dev/null 2>&1; echo $?)" \
   "the report gives tag operations and granules per request from nginx's requests ($(jq -c . <<<"$t" 2>/dev/null))" || dump "$T_TMP/rep.out"
done_testing
