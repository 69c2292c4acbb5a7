#!/bin/bash
# RocksDB in mtebench detect (docs/DETECTION.md): a real bug, RocksDB #10739
# (Iterator::Refresh frees a range tombstone iterator twice; its fix's own
# regression test as db_bench's benchmark mtbrefresh, in tagged's bug build):
# with tagging off a SIGSEGV (no tag check), in sync mode caught at the
# stale slot's read; its fixed-build control refused where the fix clears the
# pointer. And the synthetic plants
# (services/rocksdb/bugs/: the test-only plants of rocksdb-objtag.t run as
# detection trials, MTEBENCH_PLANT, the builds objtag-plant and tagged-plant).
# An overflow from one Arena allocation into the next: tagged (sync; an Arena
# block has one glibc tag) misses it, objtag (sync) catches it; a use after
# the Arena's destruction: objtag (sync) catches it. There is no plain build of
# the plants (plain is not run).
# The builds are those of rocksdb-objtag.t (the shared object tree): no
# cold build of its own. First run 2026-12-02: 87 s under a load of ~17
# (nice 19), all checks passed.
. "$(dirname "$0")/../../lib.sh"
R="$T_TMP/detect"
t0=$(date +%s)
"$B/mtebench" detect --service rocksdb --platform emu --bugs plant-arena-overflow --trials 1 \
    --configs tagged/sync,objtag/sync --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect: every trial reached its plant (exit 0)" || dump "$T_TMP/out"
"$B/mtebench" detect --service rocksdb --platform emu --bugs plant-arena-uaf --trials 1 \
    --configs objtag/sync --results "$R" > "$T_TMP/out2" 2>&1
is "$?" 0 "detect: the use after free reached (exit 0)" || dump "$T_TMP/out2"
"$B/mtebench" detect --service rocksdb --platform emu --bugs rocksdb-10739 --trials 1 \
    --configs tagged/off,tagged/sync --results "$R" > "$T_TMP/out3" 2>&1
is "$?" 0 "detect: the real bug's trials reached it (exit 0)" || dump "$T_TMP/out3"
echo "# detect trials: $(( $(date +%s) - t0 )) s"
ok "$(jq_e '.reached and .triggered and .outcome == "caught_other" and (.fault.tag_check | not)' "$R/rocksdb-10739/tagged-off-001/detect.json" >/dev/null; echo $?)" \
   "rocksdb-10739 tagged/off: the second free through a freed slot dies without a tag check ($(jq -r .outcome "$R/rocksdb-10739/tagged-off-001/detect.json"))"
ok "$(jq_e '.reached and .triggered and .outcome == "caught_sync" and .fault_in == "the object" and .fault_offset == 0' "$R/rocksdb-10739/tagged-sync-001/detect.json" >/dev/null; echo $?)" \
   "rocksdb-10739 tagged/sync: caught reading the stale slot (glibc retagged the freed vector)"
"$B/mtebench" detect --controls --service rocksdb --bugs rocksdb-10739 --variants tagged --platform emu --results "$T_TMP/ctl" > "$T_TMP/c" 2>&1
is "$?" 0 "detect --controls: the real bug's control passes (exit 0)" || dump "$T_TMP/c"
ok "$(jq_e '.outcome == "refused"' "$T_TMP/ctl/rocksdb-10739/control/detect.json" > /dev/null &&
      grep -q '^mtbbug: refused rocksdb-10739$' "$T_TMP/ctl/rocksdb-10739/control/db_bench.log" &&
      grep -q '^mtebench mtbrefresh: two refreshes: OK' "$T_TMP/ctl/rocksdb-10739/control/db_bench.log"; echo $?)" \
   "rocksdb-10739's control: the fix clears the pointer, both refreshes succeed"
d() { echo "$R/$1/$2-001/detect.json"; }
is "$(jq -r '.outcome + " " + (.reached|tostring)' "$(d plant-arena-overflow tagged-sync)")" "silent true" \
   "overflow, tagged/sync: reached, unseen (one tag for the Arena block)"
is "$(jq -r '.outcome + " " + (.reached|tostring)' "$(d plant-arena-overflow objtag-sync)")" "caught_sync true" \
   "overflow, objtag/sync: caught synchronously"
is "$(jq -r '.outcome + " " + (.reached|tostring)' "$(d plant-arena-uaf objtag-sync)")" "caught_sync true" \
   "use after free, objtag/sync: caught synchronously"
ok "$(grep -q 'has no build of variant plain' "$T_TMP/out"; [ $? = 1 ] && [ ! -e "$R/plant-arena-overflow/plain-off-001" ]; echo $?)" \
   "no plain trial (no plain build of the plant; plain was not asked for)"
done_testing
