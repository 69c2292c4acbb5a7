#!/bin/bash
# PLATFORM=vm: the guest boots the asked kernel, proves the mode inside
# (sync and async, with the guest's smaps `mt` count), runs memcached with
# mtload over the guest's loopback, and the host writes a complete record
# with the kernel identity and the console log.
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"

for spec in stock:sync tcma1:async; do
    k=${spec%%:*} mode=${spec##*:}
    "$M" run --service memcached --variant tagged --mode "$mode" --platform vm --kernel "$k" \
        --duration 2 --warmup 0 --results "$R/$k" > "$T_TMP/$k.out" 2>&1
    rc=$?
    is "$rc" 0 "$k: tagged/$mode run in the guest succeeds" || { dump "$T_TMP/$k.out"; dump "$R/$k/001-tagged-$mode/console.log"; dump "$R/$k/001-tagged-$mode/guest/agent.log"; }
    d="$R/$k/001-tagged-$mode"
    rec="$d/record.json"
    jqok() { ok "$(jq_e "$1" "$rec" >/dev/null; echo $?)" "$k: $2"; }
    jqok '.schema == "mtebench-run/1" and .status == "ok"' "schema and status"
    jqok ".config | .platform==\"vm\" and .kernel==\"$k\" and .variant==\"tagged\" and .mode==\"$mode\"" "config names platform vm and the kernel"
    jqok ".kernel | .name==\"$k\" and .identity_ok==true and .uname_r == .expected_uname_r and (.uname_r|endswith(\"-mtb-$k\"))" "uname -r inside the guest is the asked kernel"
    jqok '.kernel | (.build_hash|test("^[0-9a-f]{64}$")) and (.config_hash|test("^[0-9a-f]{64}$")) and (.patches|type=="array")' "kernel identity: build hash, config hash, patches"
    jqok ".proof.ok == true and .proof.probe.tcf == \"$mode\"" "mode $mode proved inside the guest"
    jqok '.proof.smaps_mt | type == "number" and . > 0' "guest smaps: the tagged memcached has mt (PROT_MTE) mappings"
    jqok '[.warnings[]? | select(test("tagging not seen"))] | length == 0' "no 'tagging not seen' warning"
    jqok '.proof.probe.hwcap2_mte == 1' "guest kernel reports HWCAP2_MTE"
    jqok '.summary.ops_per_sec > 0 and .load.totals.requests > 0' "load figures"
    jqok '.platform | .name=="vm" and (.accel=="tcg" or .accel=="kvm") and (.qemu|test("QEMU")) and (.boot_seconds > 0)' "platform: vm, accel, qemu, boot time"
    jqok '(.platform.accel=="kvm") or (.platform.emulated==true and .platform.label=="emulated: not hardware timing")' "TCG figures are labelled emulated"
    ok "$(grep -q 'mtebench-guest: up' "$d/console.log"; echo $?)" "$k: console log kept with the run"
    ok "$( [ -f "$d/guest/001-tagged-$mode/service.log" ]; echo $?)" "$k: service log handed back"
    ok "$( [ -s "$d/$(jq -r '.load.hlog' "$rec")" ]; echo $?)" "$k: the record names its interval log where it came back ($(jq -r '.load.hlog' "$rec"))"
    diag "$k $mode: boot $(jq .platform.boot_seconds "$rec") s, $(jq .summary.ops_per_sec "$rec") ops/s, smaps mt $(jq .proof.smaps_mt "$rec")"
done
jq_e '.kernel.patches | length == 1' "$R/tcma1/001-tagged-async/record.json" >/dev/null; ok $? "tcma1 record lists its patch"
sleep 0.3
ok "$(! pgrep -f "$R" >/dev/null; echo $?)" "no qemu left behind"
done_testing
