#!/bin/bash
# Per-chunk tagging in PostgreSQL's AllocSet (variant objtag) catches what
# glibc-only tagging cannot: a planted overflow from one palloc chunk into its
# neighbour and a planted read of a pfree'd chunk (test-only patch,
# MTEBENCH_PLANT=overflow|uaf on a backend's 100th query). Under objtag sync
# each is a tag-check fault (SIGSEGV, SEGV_MTESERR) at the neighbour's / the
# freed chunk's address, as the plant logged it; under tagged sync the same
# plants run to the end uncaught. Builds two test-only PostgreSQL variants
# (~5 min each, cold), so it lives in tests/long/ (make test-long), not in
# make test.
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
low56() { printf '0x%014x' $(( $1 & 0xffffffffffffff )); }   # the address without its tag
for v in objtag-plant tagged-plant; do
    for p in overflow uaf; do
        MTEBENCH_PLANT=$p "$M" run --service postgresql --variant $v --mode sync --platform emu --duration 3 --warmup 0 \
            --results "$R/$v-$p" > "$T_TMP/$v-$p.out" 2>&1
        echo $? > "$T_TMP/$v-$p.rc"
    done
done
rec() { echo "$R/$1-$2/001-$1-sync/record.json"; }
log() { echo "$R/$1-$2/001-$1-sync/service.log"; }
for p in overflow uaf; do
    is "$(cat "$T_TMP/objtag-plant-$p.rc")" 3 "objtag sync, $p: the run reports a fault (exit 3)" || dump "$T_TMP/objtag-plant-$p.out"
    ok "$(jq_e '.status=="fault" and .fault.signal==11 and .fault.si_code==9 and .fault.tag_check==true' "$(rec objtag-plant $p)" >/dev/null; echo $?)" \
       "objtag sync, $p: SIGSEGV with SEGV_MTESERR recorded"
    if [ $p = overflow ]; then
        want=$(sed -n 's/^mtbplant: overflow from chunk .* into its neighbour at \(0x[0-9a-f]*\)$/\1/p' "$(log objtag-plant $p)" | head -1)
        what="the neighbour's address"
    else
        want=$(sed -n 's/^mtbplant: use after free of chunk \(0x[0-9a-f]*\)$/\1/p' "$(log objtag-plant $p)" | head -1)
        what="the freed chunk's address"
    fi
    got=$(jq -r .fault.addr "$(rec objtag-plant $p)")
    ok "$([ -n "$want" ] && [ "$(low56 "$got")" = "$(low56 "$want")" ]; echo $?)" \
       "objtag sync, $p: the fault is at $what ($got vs planted $want)" || dump "$(log objtag-plant $p)"
    is "$(cat "$T_TMP/tagged-plant-$p.rc")" 0 "tagged sync, $p: the same plant runs to the end" || dump "$T_TMP/tagged-plant-$p.out"
    ok "$(jq_e '.status=="ok" and (.fault|not) and .summary.ops_per_sec > 0' "$(rec tagged-plant $p)" >/dev/null; echo $?)" \
       "tagged sync, $p: record ok, no fault"
    ok "$(grep -q "^mtbplant: " "$(log tagged-plant $p)"; echo $?)" "tagged sync, $p: the plant was made (service log)"
done
done_testing
