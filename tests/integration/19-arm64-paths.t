#!/bin/bash
# What an arm64 MTE server meets, checked where it can be on any machine:
# asymm refused before any run (with the reason), doctor not offering asymm
# without mte_tcf_preferred. (~1 s)
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"

# --- asymm: refused before any run ------------------------------------------
j=$("$M" doctor --json)
ok "$( [ -n "$j" ]; echo $?)" "doctor --json answers"
pref=$(jq -r '.mte_tcf_preferred' <<< "$j")
if [ "$pref" = null ]; then
    is "$(jq -r '[.platforms[] | select(.name=="host") | .modes[]] | index("asymm")' <<< "$j")" null \
        "doctor: host does not offer asymm without mte_tcf_preferred"
    why=$(jq -r '.platforms[] | select(.name=="host") | .refused.asymm' <<< "$j")
    ok "$( [[ "$why" == *MODE=asymm* ]]; echo $?)" "doctor: host says why asymm is refused ($why)"
fi
if ! jq -e '.platforms[] | select(.name=="host") | .modes | index("asymm") != null' <<< "$j" >/dev/null; then
    before=$(ls "$ROOT/results" 2>/dev/null | wc -l)
    t0=$(date +%s)
    out=$("$M" bench --service memcached --mode asymm --platform host --results "$T_TMP/res" 2>&1); rc=$?
    is "$rc" 2 "bench MODE=asymm on host: refused (exit 2)"
    ok "$( [[ "$out" == *"MODE=asymm"* ]]; echo $?)" "the refusal says why ($out)"
    ok "$( [ ! -e "$T_TMP/res" ] || [ -z "$(find "$T_TMP/res" -name '*.json')" ]; echo $?)" "no run was made (no record, no baseline)"
    ok "$( [ $(( $(date +%s) - t0 )) -le 5 ]; echo $?)" "refused at once, not after a baseline run"
    is "$(ls "$ROOT/results" 2>/dev/null | wc -l)" "$before" "nothing written under results/"
fi
done_testing
