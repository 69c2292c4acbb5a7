#!/bin/bash
# RocksDB with a tag per Arena allocation (variant objtag), under emu:
# - planted Arena errors (test-only patch, MTEBENCH_PLANT=overflow|uaf on the
#   1000th Arena::AllocateAligned of the measured db_bench run, i.e. while it
#   replays the preload's write-ahead log into the memtable): an overflow
#   from one allocation into the next, and a read through a pointer kept
#   across the Arena's destruction and a new Arena built in its place (as
#   ArenaWrappedDBIter::Refresh does), are tag-check faults (SIGSEGV,
#   SEGV_MTESERR) at the neighbour's / the freed allocation's address under
#   objtag sync; under tagged sync (glibc heap tagging: an Arena block has one
#   tag) the same plants run to the end;
# - the objtag build runs its db_bench workload in sync mode without a fault
#   and tags every memtable entry; its tag operations over the measured
#   benchmark (counted apart from the log replayed when the database opens)
#   reach the record and the report's tag operations per request; with
#   tagging off (mode off) it tags nothing;
# - the objtag build reuses the plain object tree: only the patched files are
#   recompiled (services/rocksdb/build.sh).
# Three db_bench builds of ~25-65 s each (cold, the plain object tree built;
# objtag also recompiles db_bench_tool.o);
# the runs take ~10 s each under emu.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
K=5000
objtag_plants rocksdb 1 \
    '^mtbplant: overflow from arena allocation .* into its neighbour at \(0x[0-9a-f]*\)$' \
    '^mtbplant: use after free of arena allocation \(0x[0-9a-f]*\)$' "the freed allocation's address" \
    '.load.totals.requests > 0' "operations measured" db_bench.log --keys $K

"$M" run --service rocksdb --variant objtag --mode sync --platform emu --keys $K --duration 1 --warmup 0 \
    --results "$R/objtag" > "$T_TMP/objtag.out" 2>&1
is "$?" 0 "objtag sync runs readrandomwriterandom" || dump "$T_TMP/objtag.out"
d="$R/objtag/001-objtag-sync"
ok "$(jq_e '.status=="ok" and (.fault|not) and .proof.ok and .load.totals.requests > 0' "$d/record.json" >/dev/null; echo $?)" \
   "proved, operations measured, no fault" || dump "$d/db_bench.log"
# "mtebench objtag: ops N granules M", the process's tag operations at exit
counts() { sed -n 's/^mtebench objtag: ops \([0-9]*\) granules \([0-9]*\)$/\1 \2/p' "$1" | tail -n 1; }
read -r pops pgr <<<"$(counts "$d/db_bench-preload.log")"
ok "$([ "${pops:-0}" -ge $K ] && [ "${pgr:-0}" -gt "$pops" ]; echo $?)" \
   "the preload (fillseq, $K keys) tagged an allocation per memtable entry ($pops tag operations, $pgr granules)" || dump "$d/db_bench-preload.log"
# opening the database replays the preload's log: counted apart, before the
# benchmark ("mtebench objtag: before the benchmark: ops N granules M")
read -r bops bgr <<<"$(sed -n 's/^mtebench objtag: before the benchmark: ops \([0-9]*\) granules \([0-9]*\)$/\1 \2/p' "$d/db_bench.log")"
ok "$([ "${bops:-0}" -ge $K ]; echo $?)" \
   "opening the database tagged the replayed log's $K entries, counted apart ($bops tag operations, $bgr granules)" || dump "$d/db_bench.log"
read -r ops gr <<<"$(counts "$d/db_bench.log")"
w=$(jq '.load.rocksdb_statistics["rocksdb.number.keys.written"] // -1' "$d/record.json")
ok "$([ "$w" -gt 0 ] && [ "${ops:-0}" -ge "$w" ] && [ "$ops" -le $((w + w / 10 + 100)) ]; echo $?)" \
   "the measured benchmark tagged about one allocation per write: $ops tag operations, $gr granules for its $w writes" || dump "$d/db_bench.log"
ok "$(jq_e --argjson o "${ops:-0}" --argjson g "${gr:-0}" '.service_counters.delta as $c
          | $c.objtag_ops == $o and $c.objtag_granules == $g and $c.requests > 0 and $c.requests == .load.totals.requests' \
          "$d/record.json" >/dev/null; echo $?)" "the record carries the benchmark's counts and its operations ($(jq -c .service_counters "$d/record.json"))"
"$M" report --out "$T_TMP/rep" "$R/objtag" > "$T_TMP/rep.out" 2>&1
t=$(jq -r '.configs[]|select(.variant=="objtag")|.tag_ops_per_request' "$T_TMP/rep/objtag/summary.json" 2>/dev/null)
ok "$(jq_e '.tag_ops > 0 and .tag_ops < 1 and .granules_tagged > .tag_ops' <<<"$t" >/dev/null 2>&1; echo $?)" \
   "the report gives tag operations per db_bench operation, below one at 10% writes ($(jq -c . <<<"$t" 2>/dev/null))" || dump "$T_TMP/rep.out"

"$M" run --service rocksdb --variant objtag --mode off --platform emu --keys $K --duration 1 --warmup 0 \
    --results "$R/off" > "$T_TMP/off.out" 2>&1
is "$?" 0 "objtag build with tagging off runs" || dump "$T_TMP/off.out"
ok "$(jq_e '.status=="ok" and .load.totals.requests > 0' "$R/off/001-objtag-off/record.json" >/dev/null \
      && ! grep -q '^mtebench objtag:' "$R/off/001-objtag-off/db_bench.log"; echo $?)" \
   "tagging off: operations measured and no tag operation (stock allocation path)"

"$M" build --service rocksdb --variant objtag --platform emu > "$T_TMP/build.out" 2>&1
bin=$(sed -n 's/^rocksdb objtag aarch64 \(built\|cached\) \(.*\)\/bin\/db_bench$/\2/p' "$T_TMP/build.out")
n=$(grep -c '^  .*\.o$' "$bin/recompiled.txt" 2>/dev/null)
ok "$(grep -q '^  memory/arena\.o$' "$bin/recompiled.txt" && [ "$n" -le 5 ]; echo $?)" \
   "the objtag build recompiled $n objects of the plain object tree, memory/arena.o among them" || dump "$T_TMP/build.out"
done_testing
