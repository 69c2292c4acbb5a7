#!/bin/bash
# The suite's timing-sensitive tests under a planted disturbance (make
# test-disturbed): those tests/tags.txt tags `alone` or `timing` (they time
# something of their own: capacity searches, the nightly's throughput, the
# bisection of a planted slowdown, mtload's calm run, the quiet check, REPS=auto)
# and the tests whose latency bounds come from the machine's floor
# (nightly-capacity.t), run one after another while the machine is disturbed:
#   DISTURB=hog    (default) a busy loop per CPU at normal priority, beside the
#                  service and the client alike;
#   DISTURB=wake   a process per CPU that sleeps 1-20 ms and spins 1-5 ms, so
#                  the CPUs keep waking and going idle (a noisy neighbour's
#                  pattern, where idle wake-ups cost milliseconds);
#   DISTURB=none   nothing (the same tests undisturbed, to compare).
# Prints prove's summary; exit 0 when every test passed. A test that fails only
# here bounds something by a fixed margin the noise can break.
#   make test-disturbed [DISTURB=hog|wake|none] [TESTS="tests/integration/cmd/capacity-md1.t ..."]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
DISTURB=${DISTURB:-hog}
if [ -z "${TESTS:-}" ]; then
    names=$(awk '!/^#/ && ($2 == "alone" || $2 == "timing") { print $1 }' tests/tags.txt) 
    TESTS=""
    for n in $names nightly-capacity.t; do
        case $n in
        test_*) TESTS="$TESTS build/tests/$n" ;;
        *) TESTS="$TESTS $(ls tests/integration/*/"$n" 2>/dev/null | head -1)" ;;
        esac
    done
fi
pids=()
stop() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop EXIT
trap 'exit 130' INT TERM
n=$(nproc)
case $DISTURB in
hog)
    for _ in $(seq "$n"); do ( while :; do :; done ) & pids+=($!); done ;;
wake)
    for _ in $(seq "$n"); do
        python3 -c '
import random, time
while True:
    time.sleep(random.uniform(0.001, 0.020))
    end = time.perf_counter() + random.uniform(0.001, 0.005)
    while time.perf_counter() < end: pass' & pids+=($!)
    done ;;
none) ;;
*) echo "tests/disturbed.sh: DISTURB=$DISTURB: hog, wake or none" >&2; exit 2 ;;
esac
echo "=== disturbance: $DISTURB (${#pids[@]} processes), tests:$TESTS"
# shellcheck disable=SC2086
bash tests/run.sh $TESTS
