#!/bin/bash
# The machine's latency floor (harness/run/floor.c): a native memcached on
# loopback driven by mtload at 50, 500 and 5000 requests/s. `doctor` prints
# it (and --json gives every rate's percentiles and the best of each); the
# quiet check before a plan measures it and its records carry it
# (environment.quiet.checks.floor; a single `run`'s record says it was not
# measured, as far runs are single runs); MTEBENCH_FLOOR=0 skips it, and any other
# value than 0 or 1 is refused by name. `capacity` measures it before a
# search and refuses a bound below it (exit 2) with the figure, without a
# run. What is asserted holds on any machine: the figures are whatever this
# machine shows, checked for consistency (p50 <= p99, the best is the least
# over the rates), and a 1 us bound is below any loopback round trip.
# (~35 s: five floor measurements of ~6 s and three short emulated runs)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
MTEBENCH_FLOOR=1 "$M" doctor > "$T_TMP/doctor.txt" 2> "$T_TMP/doctor.err"
is "$?" 0 "doctor with the floor (exit 0)" || dump "$T_TMP/doctor.err"
ok "$(grep -Eq '^latency floor +p99 [0-9]+ us at best \(at [0-9]+/s\), loopback to memcached' "$T_TMP/doctor.txt"; echo $?)" \
    "doctor prints the floor's best p99 and where it was measured" || dump "$T_TMP/doctor.txt"
is "$(grep -Ec '^  at +(50|500|5000)/s +p50 +[0-9]+ us, p90 +[0-9]+ us, p99 +[0-9]+ us, p99.9 +[0-9]+ us \([0-9]+ requests\)' "$T_TMP/doctor.txt")" 3 \
    "doctor prints each rate's p50, p90, p99 and p99.9"

MTEBENCH_FLOOR=1 "$M" doctor --json > "$T_TMP/doctor.json" 2> "$T_TMP/doctor.err"
F=$(jq -c .floor "$T_TMP/doctor.json")
diag "floor: $F"
jq_e '.points | length == 3 and ([.[].rate] == [50, 500, 5000]) and
      all(.[]; .count > 0 and .p50 > 0 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= ."p99.9")' <<< "$F" > /dev/null
ok $? "doctor --json: three rates, each with requests and ordered percentiles"
jq_e '.best.p99.us == ([.points[].p99] | min) and .best.p50.us == ([.points[].p50] | min) and
      (.best.p99.rate as $r | [.points[] | select(.rate == $r)][0].p99 == .best.p99.us)' <<< "$F" > /dev/null
ok $? "the best of each percentile is the least over the rates, with its rate"
# the low rate's count: about rate x seconds (3 s at 50/s)
jq_e '.points[0] | .count >= 100 and .count <= 200 and .seconds == 3' <<< "$F" > /dev/null
ok $? "the low rate measured about 150 requests in its 3 s"

MTEBENCH_FLOOR=0 "$M" doctor > "$T_TMP/d0.txt" 2>&1
ok "$(grep -q '^latency floor *not measured: MTEBENCH_FLOOR=0' "$T_TMP/d0.txt"; echo $?)" "MTEBENCH_FLOOR=0: doctor says the floor was not measured, and why"
MTEBENCH_FLOOR=yes "$M" doctor > "$T_TMP/dy.txt" 2>&1
is "$?" 2 "MTEBENCH_FLOOR=yes refused (exit 2)"
ok "$(grep -q 'MTEBENCH_FLOOR=yes: 0 (skip the floor) or 1 expected' "$T_TMP/dy.txt"; echo $?)" "naming what is accepted" || dump "$T_TMP/dy.txt"

# the quiet check alone measures it too
MTEBENCH_FLOOR=1 "$M" quiet > "$T_TMP/q.txt" 2>&1
ok "$(grep -Eq '^latency floor: p99 [0-9]+ us at best \(at [0-9]+/s\), loopback to memcached' "$T_TMP/q.txt"; echo $?)" \
    "quiet prints the floor" || dump "$T_TMP/q.txt"

# capacity: a bound no machine can meet is refused before any run
MTEBENCH_FLOOR=1 "$M" capacity --service memcached --platform emu --mode async --slo p99:1us \
    --results "$T_TMP/cap" > "$T_TMP/cap.out" 2> "$T_TMP/cap.err"
is "$?" 2 "capacity with p99 <= 1 us: refused (exit 2)" || dump "$T_TMP/cap.err"
ok "$(grep -Eq 'capacity: p99 at [0-9]+/s is [0-9.]+ ms here at best: p99 <= 1 us cannot be met on this machine at any rate' "$T_TMP/cap.err"; echo $?)" \
    "the refusal names the floor's figure and the bound" || dump "$T_TMP/cap.err"
is "$(grep -Ec '^  at +(50|500|5000)/s: p50' "$T_TMP/cap.err")" 3 "and prints the floor at each rate"
ok "$([ ! -e "$T_TMP/cap" ]; echo $?)" "no run made, no results directory"

# a plan's records carry the floor its quiet check measured; a single run's say it was not
MTEBENCH_FLOOR=1 "$M" bench --service memcached --mode async --platform emu --reps 1 --duration 0.5 --warmup 0.2 \
    --results "$T_TMP/run" > "$T_TMP/run.out" 2> "$T_TMP/run.err"
is "$?" 0 "a bench with the floor measured before its runs" || dump "$T_TMP/run.err"
ok "$(grep -Eq '^mtebench: latency floor on loopback: p99 [0-9]+ us at best' "$T_TMP/run.err"; echo $?)" "bench says the floor"
is "$(jq -s '[.[] | select(.environment.quiet.checks.floor | (.points | length) == 3 and .best.p99.us > 0 and
      (.server | startswith("memcached")))] | length' "$T_TMP"/run/*/record.json)" 2 \
    "each of its records carries the floor (environment.quiet.checks.floor)"
MTEBENCH_FLOOR=0 "$M" quiet --json > "$T_TMP/q0.json" 2> /dev/null
jq_e '.quiet.checks.floor == {"skipped": "MTEBENCH_FLOOR=0"}' "$T_TMP/q0.json" > /dev/null
ok $? "MTEBENCH_FLOOR=0: the quiet check (a plan's environment block) says the floor was skipped" || jq -c .quiet.checks "$T_TMP/q0.json"
MTEBENCH_FLOOR=1 "$M" run --service memcached --variant plain --mode off --platform emu --duration 0.5 --warmup 0.2 \
    --results "$T_TMP/one" > /dev/null 2> "$T_TMP/one.err"
jq_e '.environment.quiet.checks.floor.skipped | startswith("a single run")' "$T_TMP"/one/*/record.json > /dev/null
ok $? "a single run does not spend 6 s on it, and its record says so" || dump "$T_TMP/one.err"
done_testing
