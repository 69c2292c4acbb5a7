#!/bin/bash
# The mode probe on PLATFORM=host, natively: on an MTE CPU (doctor: HWCAP2_MTE)
# each mode doctor offers is proved, the tag-check faults raising the si_code
# the mode names, and the default platform is host; without MTE (x86) only off
# holds, by construction, and the default is emu. Every mode doctor refuses on
# host is refused by `proof` too, exit 2, with doctor's reason. (~1 s on x86;
# on arm64 four native probe runs)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
declare -A code=( [sync]=9 [async]=8 [off]=0 )

j=$("$M" doctor --json)
ok "$(jq_e '.platforms[] | select(.name=="host") | .usable' <<< "$j" >/dev/null; echo $?)" "doctor: host usable"
mte=$(jq -r '.hwcap2_mte' <<< "$j")
modes=$(jq -r '.platforms[] | select(.name=="host") | .modes[]' <<< "$j" | tr '\n' ' ')
if [ "$mte" = true ]; then
    ok "$( [[ " $modes " == *" sync "* && " $modes " == *" async "* ]]; echo $?)" "MTE CPU: host offers sync and async ($modes)"
    is "$(jq -r .default_platform <<< "$j")" host "MTE CPU: the default platform is host"
else
    is "$modes" "off " "no MTE: host offers off alone"
    is "$(jq -r .default_platform <<< "$j")" emu "no MTE: the default platform is emu"
fi

for m in $modes; do
    out=$("$M" proof --platform host --mode "$m" 2>"$T_TMP/err"); rc=$?
    is "$rc" 0 "$m proved on host" || dump "$T_TMP/err"
    is "$(jq -r '.platform' <<< "$out")" host "$m: the proof names platform host"
    if [ "$mte" = true ] && [ -n "${code[$m]:-}" ]; then
        is "$(jq -r .probe.write_fault <<< "$out")" "${code[$m]}" "$m: mismatched store raises si_code ${code[$m]}"
        is "$(jq -r .probe.read_fault <<< "$out")" "${code[$m]}" "$m: mismatched load raises si_code ${code[$m]}"
    elif [ "$mte" != true ]; then
        is "$(jq -r .method <<< "$out")" architecture "$m: holds by the architecture (no MTE here)"
    fi
done
if [ "$mte" = true ]; then
    out=$("$M" proof --platform host --mode sync)
    ok "$(jq_e '.probe.tcf=="sync" and (.probe.tagged_ptrs|startswith("0/")|not) and .probe.fault_addr != "0x0"' <<< "$out" >/dev/null; echo $?)" \
        "sync: tagged malloc pointers and a faulting address"
fi

# what doctor refuses, proof refuses, with the same reason
for m in $(jq -r '.platforms[] | select(.name=="host") | .refused | keys[]' <<< "$j"); do
    why=$(jq -r --arg m "$m" '.platforms[] | select(.name=="host") | .refused[$m]' <<< "$j")
    "$M" proof --platform host --mode "$m" > "$T_TMP/out" 2> "$T_TMP/err"
    is "$?" 2 "$m refused on host"
    ok "$(grep -qF -- "$why" "$T_TMP/err"; echo $?)" "$m: with doctor's reason ($why)" || dump "$T_TMP/err"
done
done_testing
