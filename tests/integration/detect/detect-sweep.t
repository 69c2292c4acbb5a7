#!/bin/bash
# The synthetic detection sweep (mtebench detect-sweep, docs/DETECTION.md)
# under emu: off, async and sync. Every overflow cell (object size 16..31 x
# overflow length through the neighbour's chunk header) is caught exactly
# when it leaves the object's last granule; a freed object is always caught;
# use after free with reuse (2000 trials in one process, each with its own
# malloc'd tags) is caught at the rate the tag arithmetic predicts for QEMU's
# tag generator (7/8 for the tag drawn right after the old one), and not at
# the uniform 14/15 of an unbiased generator. Off catches nothing. The
# system-call cells (the kernel writing past an object, reading a freed one)
# are never refused: qemu-user checks no system call (detect-sweep-vm.t:
# a real kernel in sync mode does). Every use after reuse is caught exactly
# when the reused object's tag differs from the stale pointer's (the
# architecture, counted). Under Scudo (--allocator scudo) every use after a
# reuse it retagged on free is caught.
. "$(dirname "$0")/../../lib.sh"
R="$T_TMP/sweep"
"$B/mtebench" detect-sweep --platform emu --trials 2000 --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect-sweep passes: deterministic cells exact, random cells within their intervals" || dump "$T_TMP/out"
J="$R/sweep.json"
ok "$(jq_e '.schema=="mtebench-detect-sweep/1" and .tag_model=="qemu" and .verdict.pass' "$J" >/dev/null; echo $?)" \
   "sweep.json: schema, QEMU's tag model, verdict pass"
ok "$(jq_e '[.modes[] | select(.mode!="off") | .proof.ok] | length==2 and all' "$J" >/dev/null; echo $?)" \
   "async and sync proved by the probe"
ok "$(jq_e '[.modes[] | select(.mode=="off") | .cells[] | .caught] | add==0' "$J" >/dev/null; echo $?)" \
   "off: nothing caught"
for m in async sync; do
    ok "$(jq_e --arg m $m '[.modes[] | select(.mode==$m) | .cells[] | select(.cell|startswith("overflow"))
        | (.cell|capture("n=(?<n>[0-9]+) k=(?<k>[0-9]+)")|{n:(.n|tonumber),k:(.k|tonumber)}) as $c
        | .rate == (if $c.k > ((16 - $c.n % 16) % 16) then 1 else 0 end) and .trials>0] | length>=300 and all' "$J" >/dev/null; echo $?)" \
       "$m: an overflow of k bytes past n is caught iff k > (-n mod 16), every cell"
    ok "$(jq_e --arg m $m '.modes[] | select(.mode==$m) | .cells[] | select(.cell=="uaf_reuse n=40 m=0")
        | .trials>=200 and .agree999 and .predicted==0.875 and (.predicted_other_model > .wilson95_hi)' "$J" >/dev/null; echo $?)" \
       "$m: use after free with reuse, >= 200 trials, agrees with 7/8 (QEMU's generator); 14/15 lies above the interval"
    jq -r --arg m $m '.modes[] | select(.mode==$m) | .cells[] | select(.cell=="uaf_reuse n=40 m=0")
        | "# \($m) uaf_reuse: \(.caught)/\(.trials) = \(.rate) [\(.wilson95_lo), \(.wilson95_hi)], predicted \(.predicted), 95%: \(.agree95)"' "$J"
    ok "$(jq_e --arg m $m '[.modes[] | select(.mode==$m) | .cells[] | select(.cell|startswith("uaf_reuse"))
        | .tags_exact and .same_tag > 0 and .caught == .trials - .same_tag] | length == 3 and all' "$J" >/dev/null; echo $?)" \
       "$m: a use after reuse caught exactly when the tags differ ($(jq -r --arg m $m '[.modes[] | select(.mode==$m) | .cells[] | select(.cell|startswith("uaf_reuse")) | "\(.trials - .same_tag)/\(.caught)"] | join(", ")' "$J") differing/caught)"
    ok "$(jq_e --arg m $m '.modes[] | select(.mode==$m) | [.cells[] | .si_codes_ok] | all' "$J" >/dev/null; echo $?)" \
       "$m: every catch has the mode's si_code"
done
# the allocator: Scudo (preloaded) retags a freed chunk excluding its tag, so
# a use after immediate reuse is caught every time, where glibc's tags catch
# it 7/8 of the time under QEMU (above)
"$B/mtebench" detect-sweep --platform emu --allocator scudo --modes async,sync --trials 400 --results "$T_TMP/scudo" > "$T_TMP/sc" 2>&1
is "$?" 0 "detect-sweep --allocator scudo passes" || dump "$T_TMP/sc"
S="$T_TMP/scudo/sweep.json"
for m in async sync; do
    ok "$(jq_e --arg m $m '.allocator == "scudo" and ([.modes[] | select(.mode==$m) | .proof.ok and (.proof.probe.tagged_ptrs | split("/") | .[0] | tonumber) >= 48] == [true])
        and ([.modes[] | select(.mode==$m) | .cells[] | select(.cell|startswith("uaf_reuse")) | .caught == .trials and .trials >= 380 and .predicted == 1 and .tags_exact and .fresh_same_tag <= 8] | length == 3 and all)' "$S" >/dev/null; echo $?)" \
       "$m, Scudo: its heap tagged (the probe's pointers), every use after reuse caught ($(jq -r --arg m $m '.modes[] | select(.mode==$m) | .cells[] | select(.cell=="uaf_reuse n=40 m=0") | "\(.caught)/\(.trials)"' "$S"); glibc: $(jq -r --arg m $m '.modes[] | select(.mode==$m) | .cells[] | select(.cell=="uaf_reuse n=40 m=0") | "\(.caught)/\(.trials)"' "$J"))"
done
"$B/mtebench" detect-sweep --allocator jemalloc > "$T_TMP/ba" 2>&1
ok "$([ $? = 2 ] && grep -q 'allocator jemalloc: accepted glibc, scudo' "$T_TMP/ba"; echo $?)" "an allocator it does not know: refused by name (exit 2)"
# the system calls' accesses: qemu-user never checks the memory the kernel is handed, whatever the mode
for m in async sync; do
    ok "$(jq_e --arg m $m '[.modes[] | select(.mode==$m) | .cells[] | select(.cell|startswith("sys_")) | .caught == 0 and .predicted == 0 and .trials > 0]
        | length == 2 and all' "$J" >/dev/null; echo $?)" \
       "$m: a read() past an object and a write() from a freed one are never refused under emu (qemu-user checks no system call)"
done
done_testing
