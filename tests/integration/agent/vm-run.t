#!/bin/bash
# PLATFORM=vm, through compare-kernels: the same workload and mode (async) on
# the stock and tcma1 kernels, interleaved. Each run's guest boots the asked
# kernel, proves the mode inside (with the guest's smaps `mt` count), runs
# memcached with mtload over the guest's loopback, and the host writes a
# complete record with the kernel identity and the console log; then the
# kernel comparison table with the honest note about TCG. (Sync mode under vm
# is proved by vm-service-regions.t; this file was vm-run.t and vm-compare.t,
# whose four guest boots made the same two runs twice.)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/cmp"
mode=async

out=$("$M" compare-kernels --service memcached --mode $mode --kernels stock 2>&1)
ok "$(grep -q 'two or more' <<< "$out"; echo $?)" "one kernel is refused"
out=$("$M" compare-kernels --service memcached --mode $mode --kernels stock,nosuch 2>&1)
ok "$(grep -q "invalid KERNELS entry 'nosuch' (accepted: stock, tcma1" <<< "$out"; echo $?)" "unknown kernel refused with the accepted ones"

MTEBENCH_WORK=1 "$M" compare-kernels --service memcached --mode $mode --kernels stock,tcma1 --reps 1 --duration 2 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "compare-kernels succeeds" || { dump "$T_TMP/err"; dump "$T_TMP/out"; }
is "$(ls "$R"/*/record.json | wc -l)" 2 "one record per kernel and repetition"
# COUNT=1: the work by kernel first (docs/COUNTING.md). In async mode Linux
# keeps PSTATE.TCO set in the kernel (mte_disable_tco_entry clears it for sync
# and asymm tasks only), so neither kernel makes a Tag Checked access at EL1
ok "$(grep -q "^MTE's work per request by kernel, memcached tagged/$mode: exact (counted on vm)" "$T_TMP/out" &&
      grep -Eq '^  EL1 Tag Checked loads +0\.0 +0\.0$' "$T_TMP/out" &&
      grep -Eq '^  EL1 exempt by TCO +[1-9][0-9.]* +[1-9][0-9.]*$' "$T_TMP/out" &&
      grep -Eq '^  EL0 Tag Checked loads +[1-9][0-9.]* +[1-9][0-9.]*$' "$T_TMP/out"; echo $?)" \
   "the work by kernel: async, no EL1 access Tag Checked on either kernel (TCO), EL0's on both" || dump "$T_TMP/out"
is "$(ls "$R"/work/*/record.json | wc -l)" 2 "one counted record per kernel, apart from the timed runs"
is "$(jq -r .config.kernel "$R"/*/record.json | sort | tr '\n' ' ')" "stock tcma1 " "records differ in config.kernel"

# each run in the guest, by its record
for rec in "$R"/*/record.json; do
    d=$(dirname "$rec") k=$(jq -r .config.kernel "$rec")
    jqok() { ok "$(jq_e "$1" "$rec" >/dev/null; echo $?)" "$k: $2"; }
    jqok '.schema == "mtebench-run/1" and .status == "ok"' "tagged/$mode run in the guest: schema and status" ||
        { dump "$d/console.log"; dump "$d/guest/agent.log"; }
    jqok ".config | .platform==\"vm\" and .kernel==\"$k\" and .variant==\"tagged\" and .mode==\"$mode\"" "config names platform vm and the kernel"
    jqok ".kernel | .name==\"$k\" and .identity_ok==true and .uname_r == .expected_uname_r and (.uname_r|endswith(\"-mtb-$k\"))" "uname -r inside the guest is the asked kernel"
    jqok '.kernel | (.build_hash|test("^[0-9a-f]{64}$")) and (.config_hash|test("^[0-9a-f]{64}$")) and (.patches|type=="array")' "kernel identity: build hash, config hash, patches"
    jqok ".proof.ok == true and .proof.probe.tcf == \"$mode\"" "mode $mode proved inside the guest"
    jqok '.proof.smaps_mt | type == "number" and . > 0' "guest smaps: the tagged memcached has mt (PROT_MTE) mappings"
    jqok '[.warnings[]? | select(test("tagging not seen"))] | length == 0' "no 'tagging not seen' warning"
    jqok '.proof.probe.hwcap2_mte == 1' "guest kernel reports HWCAP2_MTE"
    jqok '.summary.ops_per_sec > 0 and .load.totals.requests > 0' "load figures"
    jqok '.steal | .cpus == "all" and .share >= 0 and .share <= 1 and (.source | test("machine running the vm"))' \
        "steal: this machine's, over the guest run (the guest cannot see it)"
    jqok '.platform | .name=="vm" and (.accel=="tcg" or .accel=="kvm") and (.qemu|test("QEMU")) and (.boot_seconds > 0)' "platform: vm, accel, qemu, boot time"
    jqok '(.platform.accel=="kvm") or (.platform.emulated==true and .platform.label=="emulated: not hardware timing")' "TCG figures are labelled emulated"
    ok "$(grep -q 'mtebench-guest: up' "$d/console.log"; echo $?)" "$k: console log kept with the run"
    ok "$(ls "$d"/guest/*/service.log >/dev/null 2>&1; echo $?)" "$k: service log handed back"
    ok "$( [ -s "$d/$(jq -r '.load.hlog' "$rec")" ]; echo $?)" "$k: the record names its interval log where it came back ($(jq -r '.load.hlog' "$rec"))"
    [ "$k" = tcma1 ] && jqok '.kernel.patches | length == 1' "the record lists its patch"
    diag "$k $mode: boot $(jq .platform.boot_seconds "$rec") s, $(jq .summary.ops_per_sec "$rec") ops/s, smaps mt $(jq .proof.smaps_mt "$rec")"
done

# the kernel comparison
ok "$(grep -q 'kernel comparison on vm' "$T_TMP/out"; echo $?)" "table printed"
md="$R/kernels.md"
ok "$(grep -q "^| tagged/$mode | stock |" "$md" && grep -q "^| tagged/$mode | tcma1 |" "$md"; echo $?)" "Markdown table has both kernels"
ok "$(grep -q 'mtb-tcma1' "$md" && grep -q 'set-TCMA1' "$md"; echo $?)" "kernel identities (uname -r, patches) in the report"
ok "$(grep -q 'no difference between the kernels is expected' "$md" || grep -q 'KVM on MTE hardware' "$md"; echo $?)" "honest note on where the effect can show"
ok "$(jq_e '.rows | length == 2 and (.[1].vs_reference.median > 0)' "$R/kernels.json" >/dev/null; echo $?)" "kernels.json with the ratio to the reference"
ok "$(jq_e '.schema == "mtebench-kernel-compare/2" and .reference == "stock" and (.rows[1].vs_reference | .reference == "stock" and .pairs == 1 and (.lo | type) == "number" and (.slowdown.median > 0)) and (.rows[0].p99_us.median > 0)' "$R/kernels.json" >/dev/null; echo $?)" "kernels.json reads the summary: run metrics with CIs, the kernel axis's ratio and pair metrics"
rep=$(awk '/^report:/{print $2}' "$T_TMP/out")
ok "$( [ -f "$rep" ]; echo $?)" "report under reports/"
rm -f "$rep"
sleep 0.3
ok "$(! pgrep -f "$R" >/dev/null; echo $?)" "no qemu left behind"
done_testing
