#!/bin/bash
# PostgreSQL's bug catalogue (services/postgresql/bugs/, docs/DETECTION.md)
# under emu. CVE-2021-32027: an array whose lower bound + dimension overflows
# is stored, then an element assigned through the flat array_set_element: the
# new array is palloc'd 40 bytes and its null bitmap copied from bit 512, so
# byte 88 is read and written. CVE-2023-5869: PL/pgSQL's expanded array takes
# the Datum 24 bytes before dvalues. Both land in another AllocSet chunk (or
# free block space) of the same malloc'd block: tagged (sync: glibc gives the
# block one tag) misses them, objtag (sync: a tag per chunk) catches them.
# CVE-2026-6474: timeofday()'s format string reads past its arguments on the
# stack: no variant sees it (objtag/sync silent).
# The bug builds are the tagged and objtag object trees with bugs.patch
# (recipe tree_from): cold, about a minute each beyond the bases the suite
# builds anyway; plain (whose base the suite does not build) is in
# tests/long/detect-catalogue.t.
. "$(dirname "$0")/../lib.sh"
R="$T_TMP/detect"
t0=$(date +%s)
"$B/mtebench" detect --service postgresql --platform emu --bugs CVE-2021-32027,CVE-2023-5869 --trials 1 \
    --configs tagged/sync,objtag/sync --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect: every trial reached its bug (exit 0)" || dump "$T_TMP/out"
"$B/mtebench" detect --service postgresql --platform emu --bugs CVE-2026-6474 --trials 1 \
    --configs objtag/sync --results "$R" > "$T_TMP/out2" 2>&1
is "$?" 0 "detect: the format string's trial reached it (exit 0)" || dump "$T_TMP/out2"
echo "# detect trials: $(( $(date +%s) - t0 )) s"
d() { echo "$R/$1/$2-001/detect.json"; }
for b in CVE-2021-32027 CVE-2023-5869; do
    for c in tagged-sync objtag-sync; do
        ok "$(jq_e '.reached and .triggered and .proof_ok' "$(d $b $c)" >/dev/null; echo $?)" \
           "$b $c: reached and triggered (the trigger still reaches the bug), mode proved" || dump "$R/$b/$c-001/service.log"
    done
    is "$(jq -r .outcome "$(d $b tagged-sync)")" silent "$b tagged/sync: glibc tagging misses it (one tag per AllocSet block)"
    ok "$(jq_e '.outcome=="caught_sync" and .fault.si_code==9' "$(d $b objtag-sync)" >/dev/null; echo $?)" \
       "$b objtag/sync: caught synchronously ($(jq -c '[.outcome,.fault_offset,.object.size]' "$(d $b objtag-sync)"))"
done
ok "$(jq_e '.fault_offset >= .object.size' "$(d CVE-2021-32027 objtag-sync)" >/dev/null; echo $?)" \
   "CVE-2021-32027: the fault lies past the new array ($(jq -c '[.fault_offset,.object.size]' "$(d CVE-2021-32027 objtag-sync)"))"
is "$(jq -r .fault_offset "$(d CVE-2023-5869 objtag-sync)")" -24 "CVE-2023-5869: the fault lies 24 bytes before dvalues"
s=$(d CVE-2026-6474 objtag-sync)
ok "$(jq_e '.reached and .triggered and .outcome=="silent"' "$s" >/dev/null; echo $?)" \
   "CVE-2026-6474 objtag/sync: reached, triggered, unseen (a stack read) ($(jq -r .outcome "$s"))" || dump "$R/CVE-2026-6474/objtag-sync-001/service.log"
"$B/mtebench" detect --service postgresql --platform emu --bugs CVE-2021-32027,CVE-2023-5869,CVE-2026-6474 --trials 1 \
    --configs objtag/sync --results "$R" > "$T_TMP/out3" 2>&1
ok "$(! grep -q '^detect [0-9]' "$T_TMP/out3" &&
      jq_e '[.headline[] | select(.config=="objtag/sync") | .bugs_caught==2 and .bugs_tested==3] | all' "$R/detect.json" >/dev/null; echo $?)" \
   "headline (nothing run again): objtag/sync catches 2 of the 3 bugs"
done_testing
