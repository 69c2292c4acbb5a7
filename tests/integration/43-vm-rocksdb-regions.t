#!/bin/bash
# PLATFORM=vm, RocksDB's mmap'd files: with the `mmap` workload (db_bench
# --mmap_read --mmap_write, SST files on the guest's tmpfs) the tagged build
# maps its files with PROT_MTE, which the guest kernel shows as `mt` in
# db_bench's own /proc/self/smaps (sampled by libmtefault.so during the run,
# since RocksDB is embedded and has no server process). The stock build's
# tagged mappings are only glibc's private heap: none of them is MAP_SHARED.
# This is the check qemu-user cannot make (it tag-checks anonymous memory
# only and shows no `mt`); see 64-shm-regions-mte.t for the emu side.
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
for v in tagged plain; do
    "$M" run --service rocksdb --workload mmap --variant "$v" --mode sync --platform vm --kernel stock \
        --duration 2 --warmup 0 --results "$R/$v" > "$T_TMP/$v.out" 2>&1
    is "$?" 0 "rocksdb $v/sync with mmap'd files runs in the guest" ||
        { dump "$T_TMP/$v.out"; dump "$R/$v/001-$v-sync/guest/agent.log"; }
done
rt="$R/tagged/001-tagged-sync/record.json" rp="$R/plain/001-plain-sync/record.json"
diag "tagged: smaps mt $(jq -c '.proof | [.smaps_mt, .smaps_mt_shared]' "$rt"), stock: $(jq -c '.proof | [.smaps_mt, .smaps_mt_shared]' "$rp") ([all, MAP_SHARED])"
ok "$(jq -e '.config.workload.name=="mmap" and (.config.workload.params.db_bench_args|test("mmap_read=1"))' "$rt" >/dev/null; echo $?)" \
   "the guest ran the asked workload (its db_bench arguments reached the guest)"
ok "$(grep -q -- '--mmap_read=1' "$R/tagged/001-tagged-sync/guest/001-tagged-sync/db_bench.log"; echo $?)" \
   "db_bench in the guest read through mmap"
ok "$(jq -e '.proof.ok and .proof.probe.tcf=="sync" and .proof.smaps_scope != null' "$rt" >/dev/null; echo $?)" \
   "mode proved; smaps counted in the embedded program itself"
ok "$(jq -e '.proof.smaps_mt_shared > 0' "$rt" >/dev/null; echo $?)" \
   "tagged: RocksDB's mmap'd files carry mt (PROT_MTE on tmpfs)"
ok "$(jq -e '.proof.smaps_mt > 0 and .proof.smaps_mt_shared == 0' "$rp" >/dev/null; echo $?)" \
   "stock: only glibc's private heap is tagged, no shared mapping carries mt"
ok "$(jq -e '.summary.ops_per_sec > 0' "$rt" "$rp" >/dev/null; echo $?)" "both measured"
done_testing
