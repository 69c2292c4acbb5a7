#!/bin/bash
# `mtebench capacity` refuses bad input before any build or run, naming what
# is wrong (exit 2): an SLO without a percentile or a bound, an unknown
# percentile, a negative bound, a bound without a unit, no SLO at all, a
# service with no offered load (RocksDB, by name and why), a workload whose
# driver has no open-loop rate, a RATE (the search chooses it), bad LOADS,
# more runs at a rate than a point holds, an unknown baseline variant,
# --slo given to another command; ARRIVAL is
# checked (and pgbench's Poisson-only rate says so). --dry-run states the
# configurations and the time and runs nothing.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
cd "$T_TMP" || exit 1
refused() { # WHAT EXPECTED-TEXT ARGS...
    local what=$1 want=$2
    shift 2
    "$M" "$@" > "$T_TMP/o" 2> "$T_TMP/e"
    local rc=$?
    if [ "$rc" = 2 ] && grep -q -- "$want" "$T_TMP/e"; then
        ok 0 "$what: exit 2, '$want'"
    else
        ok 1 "$what: exit 2, '$want' (exit $rc)"
        dump "$T_TMP/e"
    fi
}
C=(capacity --service memcached --mode async --platform emu)
refused "no SLO" "no SLO given" "${C[@]}"
refused "an SLO without a percentile" "expected PERCENTILE:BOUND" "${C[@]}" --slo 1ms
refused "an SLO without a bound" "expected PERCENTILE:BOUND" "${C[@]}" --slo p99
refused "an unknown percentile" "unknown percentile 'p97'" "${C[@]}" --slo p97:1ms
refused "a negative bound" "the bound must be positive" "${C[@]}" --slo p99:-1ms
refused "a bound without a unit" "needs a unit: us, ms or s" "${C[@]}" --slo p99:1
refused "only an error rate" "no latency bound" "${C[@]}" --slo errors:1%
refused "RocksDB, by name" "rocksdb runs inside its benchmark's process" capacity --service rocksdb --mode async \
    --platform emu --slo p99:1ms
refused "a workload driven by wrk" "has no open-loop rate" capacity --service nginx --workload wrk --mode async \
    --platform emu --slo p99:1ms
refused "a RATE" "RATE is what the search chooses" "${C[@]}" --slo p99:1ms --rate 1000
refused "bad LOADS" "invalid LOADS" "${C[@]}" --slo p99:1ms --loads 50
refused "too many runs at a rate" "invalid REPS '20'" "${C[@]}" --slo p99:1ms --reps 20
refused "an unknown baseline variant" "BASELINE_VARIANT" "${C[@]}" --slo p99:1ms --baseline-variant nosuch
refused "--slo given to bench" "is an option of capacity" bench --service memcached --mode async --platform emu \
    --slo p99:1ms
refused "a confidence level out of range" "invalid CONFIDENCE '50%'" "${C[@]}" --slo p99:1ms --confidence 50%
refused "a confidence level that is not a number" "invalid CONFIDENCE 'high'" "${C[@]}" --slo p99:1ms --confidence high
refused "an unknown ARRIVAL" "invalid arrival 'bursty'" "${C[@]}" --slo p99:1ms --arrival bursty
refused "pgbench asked for uniform arrivals" "draws poisson arrivals only" bench --service postgresql --mode async \
    --platform emu --rate 100 --arrival uniform

# --dry-run: what it would do and how long, nothing run
"$M" "${C[@]}" --slo p99:1ms,p99.9:5ms --duration 5s --warmup 1s --dry-run --results "$T_TMP/none" > "$T_TMP/o" 2>&1
is "$?" 0 "--dry-run: exit 0"
ok "$(grep -q 'SLO p99:1ms,p99.9:5ms, poisson arrivals' "$T_TMP/o" && grep -q 'baseline plain/off' "$T_TMP/o" &&
      grep -q 'measured tagged/async' "$T_TMP/o" && grep -q '^time: about' "$T_TMP/o" &&
      grep -q 'emulated: not hardware timing' "$T_TMP/o"; echo $?)" "--dry-run: configurations, SLO, arrivals, time, emulated"
ok "$( [ ! -e "$T_TMP/none" ]; echo $?)" "--dry-run ran nothing"
done_testing
