#!/bin/bash
# PostgreSQL's bug catalogue (services/postgresql/bugs/, docs/DETECTION.md)
# under emu, one bug to keep make test short (the whole catalogue, every
# configuration: tests/long/detect-catalogue.t). CVE-2021-32027: an array
# whose lower bound + dimension overflows is stored, then an element assigned
# through the flat array_set_element: the new array is palloc'd 40 bytes and
# its null bitmap copied from bit 512, so byte 88 is read and written, in
# another AllocSet chunk or free block space of the same malloc'd block:
# tagged (sync: glibc gives the block one tag) misses it, objtag (sync: a tag
# per chunk) catches it there.
# The bug builds are the tagged and objtag object trees with bugs.patch
# (recipe tree_from): cold, about a minute each beyond the bases the suite
# builds anyway.
. "$(dirname "$0")/../../lib.sh"
R="$T_TMP/detect"
t0=$(date +%s)
"$B/mtebench" detect --service postgresql --platform emu --bugs CVE-2021-32027,pg-tuplestore-hold --trials 1 \
    --configs tagged/sync,objtag/sync --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect: every trial reached its bug (exit 0)" || dump "$T_TMP/out"
echo "# detect trials: $(( $(date +%s) - t0 )) s"
d() { echo "$R/CVE-2021-32027/$1-001/detect.json"; }
for c in tagged-sync objtag-sync; do
    ok "$(jq_e '.reached and .triggered and .proof_ok' "$(d $c)" >/dev/null; echo $?)" \
       "$c: reached and triggered (the trigger still reaches the bug), mode proved" || dump "$R/CVE-2021-32027/$c-001/service.log"
done
is "$(jq -r .outcome "$(d tagged-sync)")" silent "tagged/sync: glibc tagging misses it (one tag per AllocSet block)"
ok "$(jq_e '.outcome=="caught_sync" and .fault.si_code==9 and .object.size==40 and .fault_offset==88' "$(d objtag-sync)" >/dev/null; echo $?)" \
   "objtag/sync: caught synchronously at byte 88 of the 40-byte array ($(jq -c '[.outcome,.fault_offset,.object.size]' "$(d objtag-sync)"))"
# a real double free: a WITH HOLD cursor's failed dump, then tuplestore_end frees the written tuples again
h() { echo "$R/pg-tuplestore-hold/$1-001/detect.json"; }
ok "$(jq_e '.reached and .triggered and .outcome=="caught_other" and (.fault.tag_check | not)' "$(h tagged-sync)" >/dev/null; echo $?)" \
   "pg-tuplestore-hold tagged/sync: the second pfree reads a NULL context from the freed chunk's header: a SIGSEGV, no tag check ($(jq -r .outcome "$(h tagged-sync)"))"
ok "$(jq_e '.reached and .triggered and .outcome=="caught_sync" and .fault.si_code==9' "$(h objtag-sync)" >/dev/null; echo $?)" \
   "pg-tuplestore-hold objtag/sync: the double free caught (the freed chunk was retagged)"
ok "$(jq_e '([.headline[] | select(.config=="objtag/sync") | .bugs_caught==2 and .bugs_tested==2] == [true])
    and ([.headline[] | select(.config=="tagged/sync") | .bugs_caught==0] == [true])' "$R/detect.json" >/dev/null; echo $?)" \
   "headline: objtag/sync catches both, tagged/sync neither"
# the fixed-build controls: each trigger with its bug off meets the fix (15.3's ArrayCheckBounds, 15.5's
# dimension checks: an ERROR; 15.18's timeofday: a '%' in the zone kept out of the format), none of the bug's
# code runs, and the backend answers
# (tagged's bug build, which the trials above use: plain's is not built for make test). The two bugs
# the trials above use and CVE-2023-5869 (its port: the pre-15.5 code, its control 15.5's check); every
# bug's control, each ~3.5 s under emu: tests/long/detect-catalogue.t
"$B/mtebench" detect --controls --service postgresql --bugs CVE-2021-32027,CVE-2023-5869,pg-tuplestore-hold \
    --variants tagged --platform emu --results "$T_TMP/ctl" > "$T_TMP/c" 2>&1
is "$?" 0 "detect --controls: the PostgreSQL bugs' controls pass (exit 0)" || dump "$T_TMP/c"
is "$(jq -r '[.[] | .bug + ":" + .outcome] | join(" ")' "$T_TMP/ctl/controls.json")" \
    "CVE-2021-32027:refused CVE-2023-5869:refused pg-tuplestore-hold:refused" \
    "each control refused, as control_expect says ($(jq -r '[.[] | .expect] | join(", ")' "$T_TMP/ctl/controls.json"))"
done_testing
