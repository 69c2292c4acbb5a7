#!/bin/bash
# compare-kernels: the same workload and mode on stock and tcma1, interleaved,
# and the kernel comparison table with the honest note about TCG.
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/cmp"

out=$("$M" compare-kernels --service memcached --mode sync --kernels stock 2>&1)
ok "$(grep -q 'two or more' <<< "$out"; echo $?)" "one kernel is refused"
out=$("$M" compare-kernels --service memcached --mode sync --kernels stock,nosuch 2>&1)
ok "$(grep -q "invalid KERNELS entry 'nosuch' (accepted: stock, tcma1" <<< "$out"; echo $?)" "unknown kernel refused with the accepted ones"

"$M" compare-kernels --service memcached --mode sync --kernels stock,tcma1 --reps 1 --duration 2 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "compare-kernels succeeds" || { dump "$T_TMP/err"; dump "$T_TMP/out"; }
is "$(ls "$R"/*/record.json | wc -l)" 2 "one record per kernel and repetition"
is "$(jq -r .config.kernel "$R"/*/record.json | sort | tr '\n' ' ')" "stock tcma1 " "records differ in config.kernel"
ok "$(grep -q 'kernel comparison on vm' "$T_TMP/out"; echo $?)" "table printed"
md="$R/kernels.md"
ok "$(grep -q '^| tagged/sync | stock |' "$md" && grep -q '^| tagged/sync | tcma1 |' "$md"; echo $?)" "Markdown table has both kernels"
ok "$(grep -q 'mtb-tcma1' "$md" && grep -q 'set-TCMA1' "$md"; echo $?)" "kernel identities (uname -r, patches) in the report"
ok "$(grep -q 'no difference between the kernels is expected' "$md" || grep -q 'KVM on MTE hardware' "$md"; echo $?)" "honest note on where the effect can show"
ok "$(jq_e '.rows | length == 2 and (.[1].vs_reference.median > 0)' "$R/kernels.json" >/dev/null; echo $?)" "kernels.json with the ratio to the reference"
ok "$(jq_e '.schema == "mtebench-kernel-compare/2" and .reference == "stock" and (.rows[1].vs_reference | .reference == "stock" and .pairs == 1 and (.lo | type) == "number" and (.slowdown.median > 0)) and (.rows[0].p99_us.median > 0)' "$R/kernels.json" >/dev/null; echo $?)" "kernels.json reads the summary: run metrics with CIs, the kernel axis's ratio and pair metrics"
rep=$(awk '/^report:/{print $2}' "$T_TMP/out")
ok "$( [ -f "$rep" ]; echo $?)" "report under reports/"
rm -f "$rep"
done_testing
