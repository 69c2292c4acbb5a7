#!/bin/bash
# A plan entry with an slo: a capacity search inside a plan and the nightly.
# The plan is refused at load for what `mtebench capacity` refuses (nothing
# run); --dry-run lists the search; then one real night: memcached's
# test-only plants `slow` (the baseline, 300 us a command) and `slower`
# (400 us) natively, p99 <= 20 ms or four times the machine's latency
# floor where that is more (far above a neighbour's hiccups: the
# capacity is where the plant falls behind), searched into RESULTS/capacity-cap/.
# The history gains a capacity row per configuration (schema 5's table),
# with the overhead beside the measured one; the dashboard shows the two
# capacity series and the overhead's; the Prometheus textfile carries
# mtebench_capacity_requests_per_second and mtebench_capacity_overhead_ratio;
# the Grafana view mtebench_capacity_v reads the rows; ingesting the same
# results again adds nothing. It runs alone (tests/tags.txt: beside the
# other lane's emulated benches and capacity search its own ended short). (The change points of a capacity series, one
# estimate a night, are tests/unit/test_nightly.c's: a step needs about 7
# nights either side, 10 minutes of searches here.) Two runs at a new rate
# (the entry's reps), 1 s runs: ~30 s. (0.6 s runs, one a rate, once found
# p99 5.5 ms at 58/s beside the other lane: "below".)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
command -v sqlite3 > /dev/null || skip_all "no sqlite3 (make deps)"

plan() { # NAME, then the entry's extra lines on stdin
    { printf '[plan]\nname = capnight\nduration = 1s\nwarmup = 0.3s\n\n[cap]\nservice = memcached\n'; cat; } > "$T_TMP/$1.conf"
}
refused() { # WHAT EXPECTED CONF
    "$M" plan "$T_TMP/$3.conf" --platform host --results "$T_TMP/none" > "$T_TMP/r.out" 2>&1
    local rc=$?
    ok "$([ "$rc" = 2 ] && grep -q -- "$2" "$T_TMP/r.out" && [ ! -e "$T_TMP/none" ]; echo $?)" "refused at load: $1 (exit 2, nothing run)" ||
        { echo "# exit $rc"; dump "$T_TMP/r.out" 5; }
}
printf 'slo = p99:1ms\nrate = 100\n' | plan rate
refused "a RATE beside the slo" "RATE is what the search chooses" rate
printf 'slo = p99\n' | plan badslo
refused "an SLO without a bound" "expected PERCENTILE:BOUND" badslo
printf 'confidence = 99%%\n' | plan noslo
refused "confidence without an slo" "confidence is a key of an entry with an slo" noslo
printf 'slo = p99:1ms\nconfidence = 50%%\n' | plan badconf
refused "a confidence out of range" "confidence '50%' is not a level" badconf
printf 'slo = p99:1ms\nloads = 50\n' | plan badloads
refused "bad loads" "invalid LOADS '50'" badloads
printf 'slo = p99:1ms\nreps = 20\n' | plan badreps
refused "too many runs at a new rate" "reps '20' is not a number of runs at a new rate from 1 to 14" badreps

# the bound: 20 ms, or four times this machine's latency floor where that is more
ms=$(floor_bound_ms 20 4)
diag "the bound: p99 <= $ms ms"
printf 'variants = slower\nbaseline_variant = slow\nmodes = off\nkeys = 100\nslo = p99:%sms\nreps = 2\n' "$ms" | plan cap
"$M" plan "$T_TMP/cap.conf" --platform host --dry-run > "$T_TMP/dry" 2>&1
ok "$(grep -q "capacity at p99:${ms}ms: baseline slow/off against slower in off, poisson arrivals" "$T_TMP/dry"; echo $?)" \
    "--dry-run lists the capacity search" || dump "$T_TMP/dry"

H="$T_TMP/history.sqlite"; D="$T_TMP/dash"; P="$T_TMP/prom"; R="$T_TMP/night1"
mkdir -p "$P"
"$M" nightly --plan "$T_TMP/cap.conf" --platform host --history "$H" --out "$D" --prom-textfile "$P" --results "$R" \
    > "$T_TMP/n1.out" 2> "$T_TMP/n1.err"
is "$?" 0 "a night of one capacity search (exit 0)" || { dump "$T_TMP/n1.out"; dump "$T_TMP/n1.err" 20; }
C="$R/capacity-cap/capacity.json"
jq_e '.plan == "capnight" and .entry == "cap" and ([.configs[].variant] == ["slow", "slower"]) and
      (.configs | all(.capacity[0].status == "found" and (.pilot_records | length) == 2))' "$C" > /dev/null
ok $? "RESULTS/capacity-cap/capacity.json: the plan's, both configurations found, their pilots' records" ||
    jq -c '{plan, entry, c: [.configs[] | {variant, capacity}]}' "$C" | sed 's/^/# /'
ok "$(grep -q '^slow/off .*/s \[' "$T_TMP/n1.out"; echo $?)" "the search's table printed"
is "$(sqlite3 "$H" "SELECT count(*) FROM nights")" 1 "the history: one night"
is "$(sqlite3 "$H" "SELECT count(*) FROM runs")" 0 "no matrix runs (the search's runs are its own)"
is "$(sqlite3 "$H" "SELECT group_concat(variant || '/' || mode || ':' || status || ':' || baseline || ':' ||
    (capacity > 0) || ':' || (lo <= capacity AND capacity <= hi) || ':' || coalesce(overhead > 0, 'none'), ' ')
    FROM (SELECT * FROM capacity ORDER BY variant)")" "slow/off:found:1:1:1:none slower/off:found:0:1:1:1" \
    "a capacity row per configuration, the estimate inside its interval, an overhead on the measured one (its size is a timing: not asserted; beside a neighbour slower/slow once came out <= 1)"
sqlite3 "$H" "SELECT series FROM capacity" > "$T_TMP/keys"
ok "$(grep -c "^capacity:capnight/memcached/default mix 1:10/slow/off/host/.* at p99 <= $ms ms, poisson arrivals#" "$T_TMP/keys" |
      grep -qx 1; echo $?)" "series keyed by the pilot's configuration, the bound and the arrivals" || dump "$T_TMP/keys"
is "$(sqlite3 "$H" "SELECT count(*) FROM mtebench_capacity_v WHERE capacity > 0 AND config NOT LIKE '%#%'")" 2 \
    "the view mtebench_capacity_v (dashboards) reads them"
A="$D/analysis.json"
ok "$(jq_e '[.series[] | select(.key | startswith("capacity:")) | .metric] | sort == ["capacity","capacity","capacity overhead"]' \
      "$A" > /dev/null; echo $?)" "the nightly's analysis: two capacity series and the overhead's" ||
    jq -c '[.series[] | {key, metric, points}]' "$A" | sed 's/^/# /'
is "$(grep -c '<section class="series"' "$D/index.html")" 3 "dashboard: a section per capacity series"
ok "$(grep -q 'href="[^"]*capacity-cap/capacity.html"' "$D/index.html"; echo $?)" "dashboard links to the night's capacity page"
F="$P/mtebench-nightly.prom"
ok "$(grep -q "^mtebench_capacity_requests_per_second{service=\"memcached\",variant=\"slower\",mode=\"off\",.*slo=\"p99 <= $ms ms\",stat=\"estimate\"} [0-9]" "$F" &&
      grep -q '^mtebench_capacity_overhead_ratio{.*variant="slower".*stat="ci_low"} [0-9]' "$F"; echo $?)" \
    "Prometheus textfile: the capacities and the overhead" || dump "$F" 20
"$M" nightly --ingest "$R" --history "$H" --out "$D" > "$T_TMP/i.out" 2> "$T_TMP/i.err"
ok "$([ $? = 0 ] && grep -q 'already in the history' "$T_TMP/i.err" && ! grep -q 'no records' "$T_TMP/i.err" &&
      [ "$(sqlite3 "$H" 'SELECT count(*) FROM capacity')" = 2 ]; echo $?)" \
    "the same results ingested again: nothing added, exit 0 (a plan's searches alone are no missing records)" ||
    dump "$T_TMP/i.err"
# on a failure, last (where CI's excerpt of the output ends): how each search ended, a line per configuration
[ "$T_FAIL" = 0 ] || jq -r '"search: \(.search.runs) runs, stopped: \(.search.stopped)", (.configs[] |
    "\(.variant)/\(.mode): \(.capacity[0].status) \(.capacity[0].capacity // "-")/s; pilot \(.pilot_ops); rates:" +
    ([.points[] | " \(.rate | floor)\(if .meets.p99 then "+" else "-" end)"] | add // ""))' "$C" 2>&1 | sed 's/^/# /'
done_testing
