#!/bin/bash
# RocksDB under emu: embedded, so the tagged db_bench itself is the measured
# program; proved in sync mode; its histograms parsed into the record and its
# operations cross-checked against RocksDB's own statistics.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/r"
"$M" run --service rocksdb --variant tagged --mode sync --platform emu --keys 20000 \
    --duration 2 --warmup 1 --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "rocksdb tagged/sync readrandomwriterandom" || { dump "$T_TMP/out"; dump "$R/001-tagged-sync/db_bench.log"; }
rec="$R/001-tagged-sync/record.json"
ok "$(jq_e '.status=="ok" and .proof.ok and .driver=="db_bench" and .summary.ops_per_sec > 0' "$rec" >/dev/null; echo $?)" "proved and measured"
ok "$(jq_e '(.load.histogram|length) > 0 and .load.latency_us.corrected.p99 > 0' "$rec" >/dev/null; echo $?)" "db_bench's histograms in the record"
ops=$(jq '.load.totals.requests' "$rec")
stat=$(jq '.load.rocksdb_statistics["rocksdb.number.keys.read"] + .load.rocksdb_statistics["rocksdb.number.keys.written"]' "$rec")
is "$stat" "$ops" "operations equal RocksDB's statistics (keys read + written)"
ok "$(grep -q -- '--readwritepercent=90' "$R/001-tagged-sync/db_bench.log"; echo $?)" "read percent from the mix 1:9"
ok "$(grep -q 'GLIBC_TUNABLES=glibc.mem.tagging=3' "$R/001-tagged-sync/db_bench.log"; echo $?)" "db_bench ran in the run's mode"
done_testing
