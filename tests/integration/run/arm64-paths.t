#!/bin/bash
# What an arm64 MTE server meets, checked where it can be on any machine:
# asymm refused before any run (with the reason), doctor not offering asymm
# without mte_tcf_preferred; a NUMA binding that fails named as such, refused
# or (numa_strict = no) run unbound with a warning in the record, table and
# report; on aarch64 the Makefile compiles each source once. (~10 s: one 1 s
# run of memcached under emu)
. "$(dirname "$0")/../../lib.sh"
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
if ! jq_e '.platforms[] | select(.name=="host") | .modes | index("asymm") != null' <<< "$j" >/dev/null; then
    before=$(ls "$MTEBENCH_RESULTS" 2>/dev/null | wc -l)
    t0=$(date +%s)
    out=$("$M" bench --service memcached --mode asymm --platform host --results "$T_TMP/res" 2>&1); rc=$?
    is "$rc" 2 "bench MODE=asymm on host: refused (exit 2)"
    ok "$( [[ "$out" == *"MODE=asymm"* ]]; echo $?)" "the refusal says why ($out)"
    ok "$( [ ! -e "$T_TMP/res" ] || [ -z "$(find "$T_TMP/res" -name '*.json')" ]; echo $?)" "no run was made (no record, no baseline)"
    ok "$( [ $(( $(date +%s) - t0 )) -le 5 ]; echo $?)" "refused at once, not after a baseline run"
    is "$(ls "$MTEBENCH_RESULTS" 2>/dev/null | wc -l)" "$before" "nothing written under results/"
fi
# --- NUMA: a binding that fails -----------------------------------------------
# node 1023 exists nowhere: set_mempolicy fails (EINVAL; ENOSYS under qemu-user)
printf '[machine]\nname = numa1023\nservice_cpus = 0\nclient_cpus = %s\nallow_overlap = yes\nnuma_node = 1023\n' \
    "$( [ "$(nproc)" -gt 1 ] && echo 1 || echo 0)" > "$T_TMP/numa.conf"
out=$("$M" run --service memcached --platform emu --mode sync --machine "$T_TMP/numa.conf" --duration 1 --warmup 0 \
    --results "$T_TMP/numa-strict" 2>&1); rc=$?
is "$rc" 2 "numa_node = 1023: refused (exit 2)"
ok "$( [[ "$out" == *"binding memory to NUMA node 1023 failed (set_mempolicy: "* ]]; echo $?)" "names the failed binding ($out)"
ok "$( [[ "$out" == *"numa_strict = no"* && "$out" != *"cannot start"* ]]; echo $?)" "offers numa_strict = no, not 'cannot start'"
ok "$( [ -z "$(find "$T_TMP/numa-strict" -name record.json 2>/dev/null)" ]; echo $?)" "refused before any run"

echo 'numa_strict = no' >> "$T_TMP/numa.conf"
"$M" run --service memcached --platform emu --mode sync --machine "$T_TMP/numa.conf" --duration 1 --warmup 0 \
    --results "$T_TMP/numa-loose" > "$T_TMP/loose.out" 2>&1
is "$?" 0 "numa_strict = no: the run goes ahead" || dump "$T_TMP/loose.out"
rec=$(find "$T_TMP/numa-loose" -name record.json | head -1)
ok "$( [ -s "$rec" ]; echo $?)" "a record was written ($rec)"
is "$(jq -r '.status' "$rec" 2>/dev/null)" ok "the run is ok"
is "$(jq -r '.machine.numa_node' "$rec" 2>/dev/null)" null "memory left unbound (record: numa_node null)"
is "$(jq -r '[.warnings[]? | select(test("binding memory to NUMA node 1023 failed"))] | length' "$rec" 2>/dev/null)" 1 \
    "the record's warnings name the failed binding"
# under emu smaps cannot show tags (smaps_mt null): no "tagging not seen" warning
is "$(jq -r '.proof.smaps_mt' "$rec" 2>/dev/null)" null "emu: smaps_mt not measurable (null)"
is "$(jq -r '[.warnings[]? | select(test("tagging not seen"))] | length' "$rec" 2>/dev/null)" 0 "emu: no zero-mt warning"
"$M" report --name numa --out "$T_TMP/rep" "$T_TMP/numa-loose" > "$T_TMP/rep.out" 2>&1
is "$?" 0 "report of that run" || dump "$T_TMP/rep.out"
ok "$(grep -q 'warning: memcached .*NUMA node 1023 failed' "$T_TMP/rep.out"; echo $?)" "the table shows the warning" || dump "$T_TMP/rep.out"
ok "$(grep -q 'NUMA node 1023 failed' "$T_TMP/rep/numa/index.html"; echo $?)" "the HTML report shows it"
# --- the Makefile on aarch64 (make -n, as uname -m = aarch64 would set it) ----
twice=$(make -s -n -C "$ROOT" B="$T_TMP/bld" ARCH=aarch64 XCC=gcc XAR=ar all 2>/dev/null | grep -E ' -c -o ' |
        sed 's/.* //' | sort | uniq -d | tr '\n' ' ')
n=$(make -s -n -C "$ROOT" B="$T_TMP/bld" ARCH=aarch64 XCC=gcc XAR=ar all 2>/dev/null | grep -cE ' -c -o ')
ok "$( [ "$n" -gt 10 ]; echo $?)" "aarch64: make -n lists the compilations ($n)"
is "$twice" "harness/history/history.c " "aarch64: only history.c is compiled twice (with and without libpq)"
done_testing
