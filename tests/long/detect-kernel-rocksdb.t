#!/bin/bash
# RocksDB #6014 (docs/DETECTION.md) beside a real kernel's answer: MultiGet's
# scratch buffer is sized without the blocks' 5-byte trailers and pread
# writes them past it, inside the kernel (access_in syscall).
# `detect --kernel-check vm`, tagged/sync (glibc tags the buffer):
#  - emu: qemu-user never checks pread's buffer: the whole range is written
#    (got == asked, past the buffer), glibc's next malloc aborts on the
#    overwritten top chunk: caught_other, marked as what qemu-user cannot see;
#  - vm: a real kernel in sync mode refuses the copy past the buffer's
#    tagged granules: pread fails with EFAULT ("Bad address", RocksDB's IO
#    error), logged by bugs.patch's "mtbbug: syscall" line: caught_kernel.
# Kept out of `make test` for the bug build's zlib object tree (~6 min
# cold; ~15 s warm, both trials).
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
t0=$(date +%s)
"$M" detect --service rocksdb --bugs rocksdb-6014 --variants tagged --modes sync --trials 1 --platform emu \
    --kernel-check vm --results "$T_TMP/r" > "$T_TMP/r.out" 2>&1
is "$?" 0 "detect --kernel-check vm: both trials reached the bug" || dump "$T_TMP/r.out"
echo "# rocksdb-6014 on emu and vm: $(( $(date +%s) - t0 )) s"
E="$T_TMP/r/rocksdb-6014/tagged-sync-001/detect.json" V="$T_TMP/r/rocksdb-6014/tagged-sync-vm-001/detect.json"
ok "$(jq_e '.outcome=="caught_other" and .syscall.got==.syscall.asked and .syscall.asked > .syscall.object and
      (.syscall.refused|not) and .platform.name=="emu"' "$E" >/dev/null; echo $?)" \
   "emu: pread wrote its whole range past the buffer, unchecked; glibc's abort after (caught_other)" \
   || jq -c '{outcome,syscall,error}' "$E"
ok "$(jq_e '.outcome=="caught_kernel" and .syscall.refused and .syscall.got==-1 and .syscall.errno==14 and
      .syscall.asked > .syscall.object and .platform.name=="vm" and .kernel_check' "$V" >/dev/null; echo $?)" \
   "vm: the kernel refused pread's copy past the tagged buffer (EFAULT): caught_kernel" \
   || jq -c '{outcome,syscall,error}' "$V"
ok "$(grep -q 'Bad address' "$(dirname "$V")"/guest/*/db_bench.log; echo $?)" "RocksDB's own IO error names it (Bad address)"
ok "$(jq_e '[.cells[] | .kernel_access_unchecked and .kernel_check.counts.caught_kernel==1] == [true] and
      [.headline[] | .bugs_caught] == [1]' "$T_TMP/r/detect.json" >/dev/null; echo $?)" \
   "the matrix: emu's cell marked unchecked, vm's answer beside it and in the headline" || jq -c '.cells' "$T_TMP/r/detect.json"
done_testing
