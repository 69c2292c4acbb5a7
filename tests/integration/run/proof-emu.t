#!/bin/bash
# The mode probe proves each mode under emu, and a mismatch is not a proof.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
declare -A code=( [sync]=9 [async]=8 [off]=0 )
for m in off sync async; do
    out=$("$M" proof --platform emu --mode $m 2>"$T_TMP/err"); rc=$?
    is "$rc" 0 "$m proved under emu"
    is "$(jq -r .probe.write_fault <<<"$out")" "${code[$m]}" "$m: mismatched store raises si_code ${code[$m]}"
    is "$(jq -r .probe.read_fault <<<"$out")" "${code[$m]}" "$m: mismatched load raises si_code ${code[$m]}"
done
out=$("$M" proof --platform emu --mode sync)
ok "$(jq_e '.probe.tcf=="sync" and (.probe.tagged_ptrs|startswith("0/")|not) and .probe.fault_addr != "0x0"' <<<"$out" >/dev/null; echo $?)" \
   "sync: tagged malloc pointers and a faulting address"
"$M" proof --platform emu --mode asymm >/dev/null 2>"$T_TMP/asymm.err"
is "$?" 2 "asymm refused under emu"
ok "$(grep -q 'PLATFORM=host' "$T_TMP/asymm.err"; echo $?)" "refusal names the platform that has asymm"
# a probe run in async mode does not prove sync (and vice versa). The mode
# goes to the guest alone (-E), as PLATFORM=emu gives it: in qemu-aarch64's own
# environment on an arm64 MTE host it reaches Debian's static-pie qemu-user,
# whose glibc 2.36 then calls prctl before relocating itself and crashes
# (SEGV_MAPERR at __stack_chk_guard's link-time address; seen in make
# rehearse-arm64, and not an artefact of the emulation around it)
qemu-aarch64 -cpu max -E GLIBC_TUNABLES=glibc.mem.tagging=1 "$B/aarch64/mteprobe" > "$T_TMP/async.txt"
is "$?" 0 "the probe ran under qemu-aarch64 with async tagging for the guest"
ok "$(grep -qx 'tcf=async' "$T_TMP/async.txt"; echo $?)" "and reports tcf=async"
"$M" proof --mode sync --probe-output "$T_TMP/async.txt" > "$T_TMP/p.json"
is "$?" 1 "async probe output does not prove sync"
ok "$(jq_e '.reason|test("expected .sync.")' "$T_TMP/p.json" >/dev/null; echo $?)" "and says what differed"
"$M" proof --mode async --probe-output "$T_TMP/async.txt" >/dev/null
is "$?" 0 "the same output proves async"
done_testing
