#!/bin/bash
# db_bench takes the workload's value size as it is given: a range MIN-MAX
# becomes db_bench's own uniform distribution (its --value_size_distribution_type,
# --value_size_min, --value_size_max), which RocksDB's statistics confirm
# (bytes written per key written); it was once cut to its first number
# (atol) while the record named the range. What db_bench cannot take (a
# weighted list of sizes, a request rate) is refused by name before any run.
# Reuses the tagged emu build of rocksdb.t; ~10 s warm.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/r"
"$M" run --service rocksdb --variant tagged --mode sync --platform emu --workload fillrandom --keys 4000 \
    --value-size 64-512 --duration 1 --warmup 0 --results "$R/range" > "$T_TMP/range.out" 2>&1
is "$?" 0 "fillrandom with values of 64-512 bytes" || { dump "$T_TMP/range.out"; dump "$R/range/001-tagged-sync/db_bench.log"; }
d="$R/range/001-tagged-sync"
log="$d/db_bench.log"
ok "$(grep -q -- '--value_size_distribution_type=uniform --value_size_min=64 --value_size_max=512' "$log"; echo $?)" \
    "db_bench given its uniform distribution" || grep '^\$' "$log" | sed 's/^/#   /'
ok "$(grep -q '^Values Distribution: uniform (min: 64, max: 512)' "$log"; echo $?)" "db_bench says it draws values of 64-512 bytes"
# bytes per key written: the 16-byte key plus values averaging 288 (a fixed 64 gives ~80)
w=$(sed -n 's/.*rocksdb.bytes.written COUNT : \([0-9]*\).*/\1/p' "$log" | tail -n 1)
k=$(sed -n 's/.*rocksdb.number.keys.written COUNT : \([0-9]*\).*/\1/p' "$log" | tail -n 1)
ok "$([ -n "$w" ] && [ -n "$k" ] && [ "$k" -gt 100 ] && awk -v w="$w" -v k="$k" 'BEGIN { a = w / k; exit !(a > 200 && a < 400) }'; echo $?)" \
    "RocksDB's statistics: $w bytes in $k keys written, 200-400 a key"
ok "$(jq_e '.status=="ok" and .config.workload.value_size=="64-512" and .load.config.value_size=="64-512"' "$d/record.json" >/dev/null; echo $?)" \
    "the record names the range db_bench used"

"$M" run --service rocksdb --variant tagged --mode sync --platform emu --value-size 100:8,4096:2 --duration 1 \
    --results "$R/list" > "$T_TMP/list.out" 2>&1
is "$?" 2 "a weighted list of value sizes is refused"
ok "$(grep -q "db_bench does not honour the workload's value_size '100:8,4096:2'" "$T_TMP/list.out" && [ ! -e "$R/list" ]; echo $?)" \
    "by name, before any run" || dump "$T_TMP/list.out"
"$M" run --service rocksdb --variant tagged --mode sync --platform emu --rate 500 --duration 1 \
    --results "$R/rate" > "$T_TMP/rate.out" 2>&1
is "$?" 2 "a request rate is refused for db_bench"
ok "$(grep -q "db_bench does not honour the workload's rate" "$T_TMP/rate.out" && [ ! -e "$R/rate" ]; echo $?)" "by name" || dump "$T_TMP/rate.out"
done_testing
