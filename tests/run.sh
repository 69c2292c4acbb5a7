#!/bin/bash
# Runs every test under prove: C unit tests (build/tests/test_*) and the
# integration tests (tests/integration/AREA/*.t). Ends with one summary line:
# Files=..., Tests=..., N passed, N failed. Result: PASS|FAIL.
#
# With no arguments (make test) the suite runs in two lanes side by side
# (prove -j2, each lane one test after another), scheduled from two files:
#   tests/durations.txt  each test's wall time in the last full run, and the
#                        CPU time it took ("SECONDS NAME CPU"; this script
#                        rewrites it after each full run: a test that ran and
#                        passed gets its new times, the others keep theirs; a
#                        test not in it counts DEFAULT_SECONDS, a unit test 1 s)
#   tests/tags.txt       what a test must not run beside (tags: alone,
#                        timing, waits, hosts, vm; their rules are there)
# The tests without a lane rule are spread longest first, each into the lane
# that is shorter so far. MTB_TEST_LANES=3 adds a third lane of light tests,
# lightest first: tests that mostly wait (CPU under LIGHT % of their wall
# time, measured). Not the default: on 2 cores it made the suite slower and
# failed timing-bound checks (docs/TESTING.md). Tests in different lanes share nothing but the
# build cache, whose builds are locked. The `alone` tests run after both
# lanes have ended, one after another.
#
# MTB_TEST_PLAN=1 prints the lanes (each test's expected start and end) and
# exits without running anything. MTB_TEST_LANES=1 runs the whole suite in
# one lane, MTB_TEST_LANES=3 in three (a light lane). MTB_TEST_DURATIONS=0 leaves tests/durations.txt as it is (a cold
# run's build times are not what the next warm run will take). With arguments, the named tests run one after another (and
# tests/durations.txt is left alone).
#
# Each test's TAP is kept in build/test-logs/NAME.tap; after a failing run the
# failed tests' "not ok" lines and diagnostics are printed (prove hides them),
# then the summary line.
set -u
cd "$(dirname "$0")/.."
. tests/common.sh   # checkout_state
LOGS=build/test-logs
DURATIONS=tests/durations.txt
TAGS=tests/tags.txt
DEFAULT_SECONDS=30   # a test with no measured time (a unit test: 1)
LIGHT=70             # a light test's CPU time, in % of its wall time, at most
if [ "${1:-}" = --one ]; then   # prove's --exec: run one test, keep its TAP and wall time
    name=$(basename "$2")
    t0=${EPOCHREALTIME//[.,]/}
    # NAME.steps: each TAP line with the seconds since the test started and
    # since the line before (where a test spends its time, for trimming it)
    "$2" | while IFS= read -r line; do
        printf '%s\n' "$line"
        now=${EPOCHREALTIME//[.,]/}
        printf '%7.1f %6.1f %s\n' "$(( (now - t0) / 100000 ))e-1" "$(( (now - ${last:-$t0}) / 100000 ))e-1" "$line" >&3
        last=$now
    done 3> "$LOGS/$name.steps" | tee "$LOGS/$name.tap"
    rc=${PIPESTATUS[0]}
    echo "$(( (${EPOCHREALTIME//[.,]/} - t0) / 100000 )) $rc" > "$LOGS/$name.time"   # tenths of a second, exit status
    exit "$rc"
fi

# --- the schedule ------------------------------------------------------------
declare -A secs=() cpus=() tags=()   # by test name (basename: plan.t, test_seqstop)
while read -r s n c _; do
    [[ $s =~ ^[0-9]+(\.[0-9])?$ && -n ${n:-} ]] && secs[$n]=$s
    [[ ${c:-} =~ ^[0-9]+(\.[0-9])?$ ]] && cpus[$n]=$c
done < <(grep -v '^#' "$DURATIONS" 2>/dev/null)
declare -A tagline=()   # by test name: its line in tags.txt (the timing tests run in that order)
while read -r n rest; do
    rest=${rest%%#*}; [ -n "$n" ] && tags[$n]=" $(echo $rest) " && tagline[$n]=${#tagline[@]}
done < <(grep -v '^#' "$TAGS" 2>/dev/null)
tenths() {   # a test's expected wall time in tenths of a second
    local s=${secs[${1##*/}]:-}
    [ -n "$s" ] || { [[ ${1##*/} == test_* ]] && s=1 || s=$DEFAULT_SECONDS; }
    [[ $s == *.* ]] && echo "$(( 10#${s%.*} * 10 + 10#${s#*.} ))" || echo "$(( 10#$s * 10 ))"
}
has() { [[ ${tags[${1##*/}]:-} == *" $2 "* ]]; }
light() {   # measured as mostly waiting: CPU at most LIGHT % of its wall time (and 3 s or more)
    local c=${cpus[${1##*/}]:-} w
    [ -n "$c" ] && [ -n "${secs[${1##*/}]:-}" ] || return 1
    w=$(tenths "$1"); c=${c/./}
    [ "$w" -ge 30 ] && [ $(( 10#$c * 100 )) -le $(( LIGHT * w )) ]
}
tagsof() { local x; x=$(echo ${tags[${1##*/}]:-}); [ -z "$x" ] || echo " [$x]"; }
longest_first() {   # the tests given, longest expected first (then by name,
    # not by path: an integration test's area folder does not order it)
    local t
    for t in "$@"; do echo "$(tenths "$t") ${t##*/} $t"; done | sort -k1,1nr -k2,2 -k3,3 | cut -d' ' -f3
}
lightest_first() {   # the tests given, least CPU per wall second first: the
    # lightest go beside lane 1's timing tests
    local t
    for t in "$@"; do echo "$(( 10#${cpus[${t##*/}]/./} * 1000 / $(tenths "$t") )) ${t##*/} $t"; done | sort -k1,1n -k2,2 -k3,3 | cut -d' ' -f3
}
# Sets lane1, lane2, lane3 (tests in running order) and alone from the tests
# given; lane3 only when LANES is 3.
schedule() {
    local t head1=() head2=() hosts2=() tail2=() rest=() sum1=0 sum2=0
    lane1=() lane2=() lane3=() alone=()
    for t in "$@"; do
        if has "$t" alone; then alone+=("$t")
        elif has "$t" timing; then head1+=("$t"); sum1=$((sum1 + $(tenths "$t")))
        elif has "$t" waits; then head2+=("$t"); sum2=$((sum2 + $(tenths "$t")))
        elif has "$t" hosts; then hosts2+=("$t"); sum2=$((sum2 + $(tenths "$t")))
        elif has "$t" vm; then tail2+=("$t"); sum2=$((sum2 + $(tenths "$t")))
        elif [ "$LANES" = 3 ] && light "$t"; then lane3+=("$t")
        else rest+=("$t")
        fi
    done
    local mid1=() mid2=()
    [ ${#rest[@]} -gt 0 ] && for t in $(longest_first "${rest[@]}"); do
        if [ "$sum1" -le "$sum2" ]; then mid1+=("$t"); sum1=$((sum1 + $(tenths "$t")))
        else mid2+=("$t"); sum2=$((sum2 + $(tenths "$t")))
        fi
    done
    # the timing tests in tags.txt's order: machines.t's busy loop first,
    # beside lane 2's first waiting test (later, beside an emulated memcached
    # under load on the same CPU, the loop was once not found)
    [ ${#head1[@]} -gt 0 ] && lane1+=($(for t in "${head1[@]}"; do echo "${tagline[${t##*/}]:-999} $t"; done | sort -n | cut -d' ' -f2))
    lane1+=("${mid1[@]}")
    # lane 2: the waiting tests (beside lane 1's timing ones), the SSH host
    # tests, the rest, and last the vm tests (never beside the host tests)
    [ ${#head2[@]} -gt 0 ] && lane2+=($(longest_first "${head2[@]}"))
    [ ${#hosts2[@]} -gt 0 ] && lane2+=($(longest_first "${hosts2[@]}"))
    lane2+=("${mid2[@]}")
    [ ${#tail2[@]} -gt 0 ] && lane2+=($(longest_first "${tail2[@]}"))
    [ ${#lane3[@]} -gt 0 ] && lane3=($(lightest_first "${lane3[@]}"))
    [ ${#alone[@]} -gt 0 ] && alone=($(longest_first "${alone[@]}"))
    return 0
}
fmt() { printf '%d:%02d' $(($1 / 600)) $(($1 / 10 % 60)); }   # tenths -> m:ss
print_plan() {   # each lane's tests with their expected start and end
    local lane t at n=0 end1=0 end2=0 end3=0 w1=0 w2=0 h=0
    for lane in lane1 lane2 lane3 alone; do
        local -n L=$lane
        [ "$lane" = lane3 ] && [ ${#lane3[@]} -eq 0 ] && continue
        at=0; [ "$lane" = alone ] && at=$(( end1 > end2 ? (end1 > end3 ? end1 : end3) : (end2 > end3 ? end2 : end3) ))
        echo "== $lane"
        for t in "${L[@]}"; do
            local d; d=$(tenths "$t")
            printf '  %5s-%5s %6s s  %s%s\n' "$(fmt "$at")" "$(fmt $((at + d)))" \
                "$(( d / 10 )).$(( d % 10 ))" "$t" "$(tagsof "$t")"
            at=$((at + d)); n=$((n + 1))
            [[ -z ${secs[${t##*/}]:-} ]] && echo "      (no measured time: counted $(( $(tenths "$t") / 10 )) s)"
        done
        case $lane in lane1) end1=$at ;; lane2) end2=$at ;; lane3) end3=$at ;; esac
    done
    for t in "${lane1[@]}"; do has "$t" timing && w1=$((w1 + $(tenths "$t"))); done
    for t in "${lane2[@]}"; do has "$t" waits && w2=$((w2 + $(tenths "$t"))); done
    echo "== $n tests; lane 1 ends at $(fmt "$end1"), lane 2 at $(fmt "$end2")$([ ${#lane3[@]} -gt 0 ] && echo ", lane 3 at $(fmt "$end3")"), the alone ones at $(fmt "$at")"
    [ "$w1" -le "$w2" ] || echo "note: the timing tests (until $(fmt "$w1")) outlast lane 2's waiting ones (until $(fmt "$w2"))"
}
# Rewrites tests/durations.txt: the tests of this run that passed get the
# time they took; the others keep theirs. Names of tests that no longer exist
# are dropped.
save_durations() {
    local f n d rc tmp c
    declare -A ran_cpu=()
    # prove's timer line of each test: "[hh:mm:ss] PATH .... ok  N ms ( ... = C CPU)"
    while read -r n c; do ran_cpu[$n]=$c; done < <(cat "$LOGS"/prove*.out 2>/dev/null |
        sed -nE 's/^\[[0-9:]+\] ([^ ]+) \.+ ok .*= *([0-9]+\.[0-9]+) CPU\)$/\1 \2/p' |
        awk '{ n = $1; sub(".*/", "", n); printf "%s %.1f\n", n, $2 }')
    for f in "$LOGS"/*.time; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .time); read -r d rc < "$f"
        [ "$rc" = 0 ] || [ -z "${secs[$n]:-}" ] || continue
        secs[$n]="$(( d / 10 )).$(( d % 10 ))"
        [ -n "${ran_cpu[$n]:-}" ] && cpus[$n]=${ran_cpu[$n]}
    done
    tmp=$(mktemp "$DURATIONS.XXXXXX") || return
    {
        echo "# SECONDS NAME CPU: each test's wall time in the last full run of tests/run.sh,"
        echo "# and the CPU seconds it took (written by it; the lanes are scheduled from it,"
        echo "# see tests/run.sh)"
        for n in "${!secs[@]}"; do
            compgen -G "tests/integration/*/$n" > /dev/null || [ -e "tests/long/$n" ] || [ -e "tests/unit/$n.c" ] || continue
            echo "${secs[$n]} $n${cpus[$n]:+ ${cpus[$n]}}"
        done | sort -k2,2
    } > "$tmp" && mv "$tmp" "$DURATIONS"
}

prove1=(prove --exec "bash $PWD/tests/run.sh --one" --timer)   # one test at a time, TAP kept
run=("${prove1[@]}")
alone=()
full=0
if [ $# -gt 0 ]; then
    tests=("$@")
else
    full=1
    tests=()   # the unit tests of tests/unit/ (a stale build/tests/test_* is not one)
    for c in tests/unit/test_*.c; do tests+=("build/tests/$(basename "$c" .c)"); done
    tests+=(tests/integration/*/*.t)   # a folder per area (docs/TESTING.md)
    LANES=${MTB_TEST_LANES:-2}
    if [ "$LANES" != 1 ]; then
        schedule "${tests[@]}"
        if [ "${MTB_TEST_PLAN:-0}" = 1 ]; then print_plan; exit 0; fi
        tests=("${lane1[@]}" "${lane2[@]}" "${lane3[@]}")
        # prove -jN: the second lane's tests one after another, the third's
        # too, and all the others (the first lane) one after another beside
        # them; each lane in the order given
        if [ ${#lane3[@]} -gt 0 ]; then
            run+=(-j3 --rules="seq={$(IFS=,; echo "${lane2[*]}")}" --rules="seq={$(IFS=,; echo "${lane3[*]}")}" --rules='seq=**')
        elif [ ${#lane2[@]} -gt 0 ]; then
            run+=(-j2 --rules="seq={$(IFS=,; echo "${lane2[*]}")}" --rules='seq=**')
        fi
    elif [ "${MTB_TEST_PLAN:-0}" = 1 ]; then
        lane1=("${tests[@]}") lane2=() lane3=() alone=(); print_plan; exit 0
    fi
fi
rm -rf "$LOGS"; mkdir -p "$LOGS"
# the checkout as the suite found it (tests/checkout.t compares after):
# tests write under their temporary directories, never into the clone
[ "$full" = 1 ] && checkout_state > "$LOGS/checkout.before"
start=$(date +%s)
"${run[@]}" "${tests[@]}" 2>&1 | tee "$LOGS/prove.out"
rc=${PIPESTATUS[0]}
if [ ${#alone[@]} -gt 0 ]; then
    echo "=== alone, both lanes ended: ${alone[*]##*/}"
    "${prove1[@]}" "${alone[@]}" 2>&1 | tee "$LOGS/prove-alone.out"
    [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if [ "$full" = 1 ]; then
    echo "=== the checkout after the suite"
    MTB_CHECKOUT_BEFORE="$LOGS/checkout.before" "${prove1[@]}" tests/checkout.t 2>&1 | tee "$LOGS/prove-checkout.out"
    [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
[ "$full" = 1 ] && [ "${MTB_TEST_DURATIONS:-1}" != 0 ] && save_durations
if [ "$rc" != 0 ]; then
    for f in "$LOGS"/*.tap; do
        grep -q '^not ok' "$f" || ! grep -q '^1\.\.' "$f" || continue
        echo "=== $(basename "$f" .tap): failed checks and diagnostics"
        grep -E '^(not ok|#)' "$f" | tail -n 60
    done
    echo "=== (each test's whole TAP: $LOGS/)"
fi
# one line for both prove runs: files, tests, checks failed, result
files=0 checks=0
for o in "$LOGS/prove.out" ${alone[0]:+"$LOGS/prove-alone.out"} $([ "$full" = 1 ] && echo "$LOGS/prove-checkout.out"); do
    l=$(grep -E '^Files=[0-9]+, Tests=[0-9]+' "$o" | tail -n 1)
    [ -n "$l" ] || { rc=1; continue; }
    f=${l#Files=}; f=${f%%,*}; t=${l#*Tests=}; t=${t%%,*}
    files=$((files + f)); checks=$((checks + t))
done
failed=$(cat "$LOGS"/*.tap 2>/dev/null | grep -E '^not ok' | grep -vc '# TODO')
# a test that died before its plan (not executable, killed) has no failed check to count
noplan=$(grep -L '^1\.\.' "$LOGS"/*.tap 2>/dev/null | wc -l)
echo "Files=$files, Tests=$checks, $(( $(date +%s) - start )) wallclock secs: $((checks - failed)) passed, $failed failed$([ "$noplan" -gt 0 ] && echo ", $noplan tests ended without a plan"). Result: $([ "$rc" = 0 ] && echo PASS || echo FAIL)"
exit "$rc"
