#!/bin/bash
# Bad input is refused with one line naming what is accepted, exit 2;
# doctor and list describe the machine.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"

check_bad() { # expected-substring description args...
    local want=$1 desc=$2; shift 2
    local out rc
    out=$("$M" "$@" 2>&1 >/dev/null); rc=$?
    is "$rc" 2 "$desc: exit 2"
    ok "$( [[ "$out" == *"$want"* ]]; echo $?)" "$desc: message names '$want' ($out)"
    is "$(printf '%s\n' "$out" | grep -c .)" 1 "$desc: one line"
}
check_bad "accepted: memcached" "unknown service" bench --service nosuch --mode async
check_bad "accepted: off, sync, async, asymm" "unknown mode" bench --service memcached --mode fast
check_bad "accepted: host, emu" "unknown platform" bench --service memcached --mode async --platform cloud
check_bad "a duration" "malformed duration" bench --service memcached --mode async --duration 10x
check_bad "SET:GET" "malformed mix" bench --service memcached --mode async --mix 10
check_bad "from 1 to" "reps out of range" bench --service memcached --mode async --reps 0
check_bad "auto or an integer" "reps neither auto nor a count" bench --service memcached --mode async --reps many
check_bad "2% or 0.02" "malformed precision" bench --service memcached --mode async --precision 0
check_bad "MAX_TIME" "malformed max time" bench --service memcached --mode async --max-time soon
check_bad "from 6 to" "max reps below 6 pairs" bench --service memcached --mode async --max-reps 3
check_bad "accepted: plain, tagged" "unknown variant" run --service memcached --variant shiny --platform emu
check_bad "unknown option" "unknown option" bench --service memcached --mode async --colour
check_bad "accepted: bench" "unknown command" frobnicate
check_bad "PLATFORM=host on an MTE3 CPU" "asymm under emu" bench --service memcached --mode asymm --platform emu
if ! "$M" doctor --json | jq_e '.hwcap2_mte == true' >/dev/null; then
    check_bad "PLATFORM=emu" "host without MTE refuses sync" bench --service memcached --mode sync --platform host
fi

# the subcommands come from one table (harness/main.c): help lists each, and
# each answers `help COMMAND` and `COMMAND --help` with its usage, exit 0
cmds=$("$M" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
ok "$( [ "$(echo $cmds | wc -w)" -ge 15 ] && [[ " $(echo $cmds) " == *" compare-kernels "* ]]; echo $?)" "help lists the commands ($(echo $cmds))"
bad=""
for c in $cmds; do
    "$M" help "$c" 2>/dev/null | head -1 | grep -q "^usage: mtebench $c" || bad="$bad help:$c"
    [ "$c" = help ] || "$M" "$c" --help 2>/dev/null | grep -q "mtebench $c" || bad="$bad $c--help"
done
is "$bad" "" "every command: \`help COMMAND\` and \`COMMAND --help\` show its usage"
check_bad "mtebench help" "help for an unknown command" help frobnicate

# options are declared once (lib/opttab.h): every option a command's --help
# lists, its parser takes (each given alone, with a value where the help
# shows one, before an argument that stops the command once its options
# are parsed); an option the help does not list, it refuses
# (the help's left column: "  --name META", "  --a X, --b Y"; the shared
# table's options, cmd/cli.c's, tried with the first command that lists them)
bad="" n=0 shared=" "
cd "$T_TMP" || exit 1
for c in bench run build capacity compare-kernels proof quiet detect nightly bisect detect-sweep; do
    while read -r opt meta; do
        [ "$opt" = --help ] && continue
        case $c in nightly|bisect|detect-sweep) ;; *)
            [[ "$shared" == *" $opt "* ]] && continue
            shared="$shared$opt " ;;
        esac
        n=$((n + 1))
        args=("$opt"); [ -n "$meta" ] && args+=("x1")
        out=$(timeout 20 "$M" "$c" "${args[@]}" zz-unexpected 2>&1 >/dev/null)
        grep -qE "unknown option|is an option of|needs a value|takes no value" <<< "$out" && bad="$bad $c:$opt($out)"
    done < <("$M" "$c" --help | grep -E '^  --' | sed -E 's/^  //; s/  .*//; s/, /\n/g')
done
cd - >/dev/null || exit 1
ok "$([ $n -gt 90 ] && [ -z "$bad" ]; echo $?)" "each of $n options a command's --help lists is parsed by it${bad:+:$bad}"
check_bad "--count is an option of run and proof, not of build" "an option refused where a help does not list it" \
    build --service memcached --variant plain --count

# make passes bad input through and fails without leaving results behind
before=$(ls "$MTEBENCH_RESULTS" 2>/dev/null | wc -l)
make -s -C "$ROOT" bench SERVICE=nosuch MODE=async >"$T_TMP/make.out" 2>&1
ok "$( [ $? -ne 0 ]; echo $?)" "make bench SERVICE=nosuch fails"
ok "$(grep -q 'accepted: memcached' "$T_TMP/make.out"; echo $?)" "make bench names the accepted services"
is "$(ls "$MTEBENCH_RESULTS" 2>/dev/null | wc -l)" "$before" "nothing half-written under results/"

# --dry-run lists the runs and runs nothing: no results, no build, no process
before=$(ls "$MTEBENCH_RESULTS" 2>/dev/null | wc -l)
timeout 20 "$M" bench --service memcached --mode sync --platform emu --reps 2 --duration 1 --results "$T_TMP/dry" \
    --dry-run > "$T_TMP/dry.out" 2>&1
is "$?" 0 "bench --dry-run exits 0" || dump "$T_TMP/dry.out"
ok "$(grep -q '2 configurations x 2 reps = 4 runs' "$T_TMP/dry.out" && grep -q 'plain/off' "$T_TMP/dry.out" &&
     grep -q 'tagged/sync' "$T_TMP/dry.out"; echo $?)" "bench --dry-run lists the runs" || dump "$T_TMP/dry.out"
ok "$( [ ! -e "$T_TMP/dry" ] && [ "$(ls "$MTEBENCH_RESULTS" 2>/dev/null | wc -l)" = "$before" ]; echo $?)" \
   "bench --dry-run writes no results"
ok "$(! grep -q 'ops/s\|record' "$T_TMP/dry.out"; echo $?)" "bench --dry-run runs nothing"
"$M" compare-kernels --service memcached --mode sync --kernels stock,tcma1 --reps 1 --dry-run > "$T_TMP/dryk.out" 2>&1
ok "$(grep -q 'plan compare-kernels on vm: 2 configurations x 1 reps' "$T_TMP/dryk.out" &&
     grep -q 'kernel tcma1' "$T_TMP/dryk.out"; echo $?)" "compare-kernels is a plan with a kernel axis (--dry-run)" ||
    dump "$T_TMP/dryk.out"
# what the price buys beside each kernel's overhead: a path without a detection matrix is
# named before any run; --detect belongs to compare-kernels (and report)
"$M" compare-kernels --service memcached --mode sync --kernels stock,tcma1 --reps 1 --detect "$T_TMP" --dry-run > "$T_TMP/dkd.out" 2>&1
ok "$(test $? = 2 && grep -q "^mtebench.*--detect $T_TMP/detect.json: no detection matrix" "$T_TMP/dkd.out" && ! grep -q '^plan' "$T_TMP/dkd.out"; echo $?)" \
   "compare-kernels --detect DIR without a matrix: refused before any run (exit 2)" || dump "$T_TMP/dkd.out"
"$M" run --service memcached --mode off --detect "$T_TMP" > "$T_TMP/dr.out" 2>&1
ok "$(test $? = 2 && grep -q 'an option of compare-kernels' "$T_TMP/dr.out"; echo $?)" "run --detect: refused, named (exit 2)" ||
    dump "$T_TMP/dr.out"

# doctor: human and JSON
"$M" doctor > "$T_TMP/doctor.txt"; rc=$?
is "$rc" 0 "doctor exits 0"
for k in architecture HWCAP2_MTE mte_tcf_preferred arm64.nomte qemu-aarch64 perf platforms; do
    ok "$(grep -q "$k" "$T_TMP/doctor.txt"; echo $?)" "doctor reports $k"
done
"$M" doctor --json > "$T_TMP/doctor.json"
ok "$(jq_e '.platforms | map(.name) | index("emu") != null' "$T_TMP/doctor.json" >/dev/null; echo $?)" "doctor --json lists platforms"
ok "$(jq_e '.platforms[] | select(.name=="emu") | .usable == true and (.modes | index("sync") != null)' "$T_TMP/doctor.json" >/dev/null; echo $?)" "emu usable with sync here"
"$M" list > "$T_TMP/list.txt"
ok "$(grep -q 'variant tagged' "$T_TMP/list.txt" && grep -q 'asymm' "$T_TMP/list.txt"; echo $?)" "list shows variants and modes"
done_testing
