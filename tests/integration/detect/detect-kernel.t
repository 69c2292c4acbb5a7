#!/bin/bash
# The kernel's own tag checks in detection (docs/DETECTION.md, "What is exact
# where"): nginx CVE-2013-2028, a recv past a 4096-byte stack buffer, the bad
# write made inside the kernel (access_in syscall). `detect` on emu runs its
# sync cells there and, by default (`--kernel-check vm`; `none` to skip),
# again in a vm guest of a real kernel:
#  - emu, stacktag: qemu-user never checks a system call's buffer, so recv
#    writes 6144 bytes into the 4096-byte buffer; a tag check in user code
#    catches the aftermath, 16 bytes before the buffer (the cell marked as
#    one qemu-user cannot see);
#  - vm, stacktag: the kernel, in sync mode, refuses the copy past the
#    buffer's tagged granules: recv fails with EFAULT, the bytes still
#    waiting (bugs.patch's "mtbbug: syscall" line): caught_kernel;
#  - clang (no stack tagging) on both: recv writes past the buffer and a
#    return jumps to the client's bytes (a plain SIGSEGV).
# The matrix counts vm's answer for that cell in the headline. And the far
# run's options are refused where they do not belong.
# (The vm stacktag trial also checks that nginx's stacktag build survives a
# real kernel's vDSO: see libmtestack's gettimeofday.)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
t0=$(date +%s)
"$M" detect --service nginx --bugs CVE-2013-2028 --variants clang,stacktag --modes sync --trials 1 --platform emu \
    --results "$T_TMP/ng" > "$T_TMP/ng.out" 2>&1
is "$?" 0 "detect on emu, the vm's check by default: every trial reached its bug" || dump "$T_TMP/ng.out"
echo "# detect with --kernel-check vm: $(( $(date +%s) - t0 )) s"
N="$T_TMP/ng/CVE-2013-2028"
ok "$(grep -c '^detect [1-4]/4: ' "$T_TMP/ng.out" | grep -qx 4; echo $?)" "4 trials: 2 configurations x (emu, vm)" || dump "$T_TMP/ng.out"
ok "$(jq_e '.outcome=="caught_sync" and .fault_offset==-16 and .syscall.got==6144 and (.syscall.refused|not) and
      .platform.name=="emu" and .kernel_check==null' "$N/stacktag-sync-001/detect.json" >/dev/null; echo $?)" \
   "emu stacktag/sync: recv wrote 6144 bytes (unchecked), a user-code tag check 16 bytes before the buffer" \
   || jq -c '{outcome,syscall,fault_offset}' "$N/stacktag-sync-001/detect.json"
ok "$(jq_e '.outcome=="caught_kernel" and .syscall.refused and .syscall.object==4096 and .syscall.asked==8192 and
      ((.syscall.got==-1 and .syscall.errno==14) or (.syscall.got<=4096 and .syscall.pending>0)) and
      .platform.name=="vm" and .kernel_check and (.platform.guest_image|length)>0' "$N/stacktag-sync-vm-001/detect.json" \
      >/dev/null; echo $?)" "vm stacktag/sync: the kernel refused the recv past the tagged buffer (EFAULT or a short copy)" \
   || jq -c '{outcome,syscall,platform}' "$N/stacktag-sync-vm-001/detect.json"
# nginx's signal handler calls gettimeofday with a tagged slot at [sp]; the
# vDSO's ordering load from [sp] (tag 0) faulted at the stop until
# libmtestack gave the call a frame of its own (docs/DETECTION.md)
ok "$(jq_e '.fault == null and (.error == null)' "$N/stacktag-sync-vm-001/detect.json" >/dev/null; echo $?)" \
   "vm stacktag/sync: no fault at the stop (the vDSO's load from [sp] runs on libmtestack's frame)" \
   || jq -c '{fault,error}' "$N/stacktag-sync-vm-001/detect.json"
for d in clang-sync-001 clang-sync-vm-001; do
    ok "$(jq_e '.outcome=="caught_other" and .syscall.got > 4096 and (.syscall.refused|not)' "$N/$d/detect.json" >/dev/null; echo $?)" \
       "$d: no stack tags, recv wrote past the buffer on either kernel, a plain crash" || jq -c '{outcome,syscall}' "$N/$d/detect.json"
done
ok "$(jq_e '.proof.stack_tagging.main_stack and .proof.stack_tagging.thread_stacks==0' "$N/stacktag-sync-001/record.json" \
      >/dev/null; echo $?)" "nginx's worker inherits its master's PROT_MTE stack (a fork, no thread)"
ok "$(jq_e '.proof.stack_tagging.main_stack' "$N/stacktag-sync-vm-001/record.json" >/dev/null; echo $?)" \
   "the guest's stack set-up proved too"
ok "$(jq_e '.fault.pc | test("^0x[0-9a-f]{16}$")' "$N/clang-sync-001/record.json" >/dev/null; echo $?)" \
   "a fault's record names the faulting instruction (pc, lr)"
# the matrix: vm's answer beside emu's, and in the headline
J="$T_TMP/ng/detect.json"
ok "$(jq_e '[.cells[] | select(.variant=="stacktag") | .kernel_access_unchecked and .kernel_check.platform=="vm" and
      .kernel_check.counts.caught_kernel==1 and .kernel_check.caught_mte==1 and .caught_mte==1] == [true]' "$J" >/dev/null; echo $?)" \
   "the stacktag cell: emu's answer marked unchecked, vm's (caught_kernel) beside it" || jq -c '.cells' "$J"
ok "$(jq_e '[.headline[] | {(.config): .bugs_caught}] | add == {"stacktag/sync": 1, "clang/sync": 0}' "$J" >/dev/null; echo $?)" \
   "the headline: stacktag/sync catches it (the kernel's answer), clang/sync does not" || jq -c '.headline' "$J"
ok "$(grep -q 'caught_kernel 1' "$T_TMP/ng/detect.md" && grep -q 'on vm (a real kernel)' "$T_TMP/ng/detect.md" &&
      grep -q '>1/1 (vm); emu 1/1 †</td>' "$T_TMP/ng/detect.html"; echo $?)" \
   "detect.md and detect.html give vm's answer, emu's beside it marked (†)"
# a system call's bug under emu alone: told what it misses
"$M" detect --service nginx --bugs CVE-2013-2028 --variants clang --modes sync --trials 1 --platform emu \
    --kernel-check none --results "$T_TMP/ng1" > /dev/null 2> "$T_TMP/note"
ok "$(grep -q "CVE-2013-2028's bad access is a system call's, which qemu-user never checks: --kernel-check vm" "$T_TMP/note"; echo $?)" \
   "--kernel-check none: a note names what qemu-user cannot see" || dump "$T_TMP/note"
ok "$(jq_e '[.cells[] | .kernel_check] == [null] and ([.cells[] | .kernel_access_unchecked] == [true])' "$T_TMP/ng1/detect.json" \
      >/dev/null && [ ! -d "$T_TMP/ng1/CVE-2013-2028/clang-sync-vm-001" ]; echo $?)" "... and no trial on vm"
# refusals
"$M" detect --service nginx --bugs CVE-2013-2028 --kernel-check kvm --platform emu > /dev/null 2> "$T_TMP/e1"
ok "$([ $? = 2 ] && grep -q -- '--kernel-check kvm: accepted vm' "$T_TMP/e1"; echo $?)" "--kernel-check of an unknown platform refused" || dump "$T_TMP/e1"
"$M" run --service nginx --variant stacktag --mode sync --platform emu --bug CVE-2013-2028 > /dev/null 2> "$T_TMP/e2"
ok "$([ $? = 2 ] && grep -q 'variant stacktag of nginx has no re-introduced bugs' "$T_TMP/e2"; echo $?)" \
   "run --bug on a measured variant refused" || dump "$T_TMP/e2"
"$M" bench --service nginx --mode sync --bug CVE-2013-2028 --dry-run > /dev/null 2> "$T_TMP/e3"
ok "$([ $? = 2 ] && grep -q 'an option of run' "$T_TMP/e3"; echo $?)" "--bug is run's alone" || dump "$T_TMP/e3"
"$M" bench --service nginx --mode sync --param benchmark=x --dry-run > /dev/null 2> "$T_TMP/e6"
ok "$([ $? = 2 ] && grep -q 'an option of run' "$T_TMP/e6"; echo $?)" "--param is run's alone" || dump "$T_TMP/e6"
"$M" run --service rocksdb --variant plain --mode off --platform emu --param nokey --dry-run > /dev/null 2> "$T_TMP/e7"
ok "$([ $? = 2 ] && grep -q -- '--param nokey: KEY=VALUE' "$T_TMP/e7"; echo $?)" "--param without KEY= refused" || dump "$T_TMP/e7"
"$M" detect --controls --service nginx --bugs CVE-2013-2028 --platform vm > /dev/null 2> "$T_TMP/e5"
ok "$([ $? = 2 ] && grep -q 'controls runs on emu or host' "$T_TMP/e5"; echo $?)" "the fixed-build controls refused on vm" || dump "$T_TMP/e5"
"$M" run --service nginx --variant stacktag-bugs --mode sync --platform emu > /dev/null 2> "$T_TMP/e4"
ok "$([ $? = 2 ] && grep -q 'detection trials only' "$T_TMP/e4"; echo $?)" "a bug build still refused by run without --bug"
done_testing
