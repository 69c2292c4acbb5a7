#!/bin/bash
# RocksDB in mtebench detect (docs/DETECTION.md): RocksDB has no public
# memory-safety CVE, so its catalogue holds synthetic plants only
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
echo "# detect trials: $(( $(date +%s) - t0 )) s"
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
