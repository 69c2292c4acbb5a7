#!/bin/bash
# `mtebench capacity` against queueing arithmetic. memcached's test-only
# variants `slow` and `slower` spin 300 us and 400 us per command: one worker
# thread, a fixed time per request, Poisson arrivals from 16 connections of
# one request each: an M/D/1 queue (first come first served as epoll hands
# the connections over). The service time D is memcached's own CPU time per
# command in the search's open-loop runs (its rusage, through the recipe's
# counters: 1 / the closed-loop pilot's ops/s is about 2% shorter, probably
# one wake-up serving several connections there, and the capacity moves
# about 1.5 times as much), and the fixed delay c every request also sees (loopback, the
# client) the median latency at the lowest probed rate less D (below
# utilisation 0.5 the median request does not wait). The M/D/1 capacity for
# p99 <= 2.2 ms, computed here with Erlang's waiting-time formula in exact
# decimal arithmetic (Python's decimal, not the harness's code) for a
# response time W + D + c, must be at most 70% of the plant's saturation,
# and the interval must exclude saturation. The real server is no ideal
# M/D/1 queue: its service times jitter (timer ticks, wake-ups, the client
# on the other core), which only lowers its capacity; over 14 searches here
# (28 estimates, some beside a build) the estimate came out 1% above to 20%
# below the prediction, the slower plant's the further, one CI run's 95%
# interval ended 0.3% below it, and a noisy CI run (acc65e6: p99 1.2 ms at
# half the predicted load) put the slow plant's 99% interval at 76% to 83%
# of it. Jitter's effect has no fixed size on a shared machine, so the
# interval (99%, CONFIDENCE) is held between two queues of the same mean
# service time and fixed delay: its low end at or under the M/D/1 capacity
# (no jitter), its high end at or over the M/M/1 capacity (exponential
# service times: response time Exp(mu - lambda), p99 = ln 100 / (mu - lambda)),
# which for these plants is about 45% and 13% of the M/D/1 figure.
# How far below M/D/1 each estimate came is printed (diag), not asserted.
# The slower plant's capacity is lower (the capacity overhead slow / slower
# above 1, its interval inside what the two intervals allow). The outputs
# (table, capacity.json, capacity.md, curves.csv, capacity.html with its
# plot, a merged .hlog per point, a record per run) agree with each other,
# `mtebench report` of the results directory shows the capacity section, and
# capacity.json matches its schema (docs/schema/capacity.schema.json).
# Native builds (PLATFORM=host, mode off); `alone` in tests/tags.txt: a
# neighbour's CPU use would lengthen the spins. (~50 s warm; cold adds the
# tagged native tree and the two incremental builds.)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/cap"
"$M" capacity --service memcached --platform host --mode off --baseline-variant slow --variant slower \
    --slo p99:2.2ms --confidence 99% --duration 1.5s --warmup 0.5s --keys 100 --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
rc=$?
is "$rc" 0 "capacity ran (exit 0)" || { dump "$T_TMP/err"; dump "$T_TMP/out"; }
J="$R/capacity.json"
jq_e '.schema == "mtebench-capacity/1" and .arrival == "poisson" and .confidence == 0.99 and (.configs | length) == 2 and
      .configs[0].variant == "slow" and .configs[0].baseline and .configs[1].variant == "slower"' "$J" > /dev/null \
    && ok 0 "capacity.json: the baseline slow/off and slower/off, Poisson arrivals" \
    || ok 1 "capacity.json: the baseline slow/off and slower/off, Poisson arrivals"

# the arithmetic, independent of the harness
cat > "$T_TMP/md1.py" <<'EOF'
import json, math, sys
from decimal import Decimal as D, getcontext
getcontext().prec = 80
def cdf(lam, d, t):   # P(response <= t) of M/D/1, Erlang's formula for the wait
    w = t - d
    if w < 0:
        return 0.0
    s = D(0)
    for k in range(int(math.floor(w / d)) + 1):
        x = D(lam) * (D(k) * D(d) - D(w))
        s += x ** k / math.factorial(k) * (-x).exp()
    return float((1 - D(lam * d)) * s)
def capacity(d, bound, q=0.99):
    lo, hi = 0.0, 1.0
    for _ in range(40):
        m = (lo + hi) / 2
        lo, hi = (m, hi) if cdf(m / d, d, bound) >= q else (lo, m)
    return lo / d
r = json.load(open(sys.argv[1]))
bound = r["slo"]["bounds"][0]["bound_us"] * 1e-6
out = []
for c in r["configs"]:
    sat = c["closed_loop_ops"]
    # the service time: memcached's CPU time per command in the open-loop runs at half its saturation or more
    # (memcached's rusage through the recipe's counters); at saturation (the pilot) it is a little shorter:
    # one epoll wake-up serves several connections
    per = []
    for p in c["points"]:
        if p["rate"] < 0.5 * sat:
            continue
        for f in p["records"]:
            dl = json.load(open(f))["service_counters"]["delta"]
            per.append((dl["rusage_user_us"] + dl["rusage_system_us"]) / (dl["cmd_get"] + dl["cmd_set"]) * 1e-6)
    per.sort()
    d = per[len(per) // 2]
    low = min(c["points"], key=lambda p: p["rate"])
    fixed = max(0.0, low["corrected"]["p50"] * 1e-6 - d)
    pred = capacity(d, bound - fixed)
    # M/M/1 with the same mean service time: P(response <= t) = 1 - exp(-(1/d - lam) t)
    mm1 = max(0.0, 1 / d - math.log(100) / (bound - fixed))
    e = c["capacity"][0]
    out.append(dict(variant=c["variant"], sat=sat, d_us=d * 1e6, d_pilot_us=1e6 / sat, fixed_us=fixed * 1e6, pred=pred,
                    mm1=mm1, of_pred=e.get("capacity", 0) / pred,
                    rho=pred * d, **{k: e.get(k) for k in ("status", "capacity", "lo", "hi")}))
print(json.dumps(out))
EOF
P=$(python3 "$T_TMP/md1.py" "$J")
diag "M/D/1 against the search: $P"
ok "$(grep -q 'capacity \[99% interval\]' "$T_TMP/out"; echo $?)" "the table names the intervals' level (99%)"
for i in 0 1; do
    v=$(jq -r ".[$i].variant" <<< "$P")
    t="$v: the interval lies between the M/M/1 and M/D/1 capacities (lo <= M/D/1, hi >= M/M/1)"
    jq_e ".[$i] | .status == \"found\" and .lo <= .pred and .hi >= .mm1 and .mm1 < .pred" <<< "$P" > /dev/null \
        && ok 0 "$t" || { ok 1 "$t"; dump "$R/curves.csv"; }
    jq_e ".[$i] | .pred <= 0.7 * .sat and .hi < .sat" <<< "$P" > /dev/null \
        && ok 0 "$v: the prediction is at most 70% of saturation and the interval excludes saturation" \
        || ok 1 "$v: the prediction is at most 70% of saturation and the interval excludes saturation"
done
# the capacity overhead: baseline / measured, its MOVER interval inside the
# range the two capacities' intervals allow; the 400 us plant lower (a 1.33x
# longer service time, about 1.5x in M/D/1 capacity: the ratio is a diag)
ratio=$(jq -r '.[0].pred / .[1].pred' <<< "$P")
diag "predicted ratio (M/D/1) $ratio, measured $(jq -c '.overheads[0].capacity' "$J")"
jq_e '.configs[0].capacity[0] as $a | .configs[1].capacity[0] as $b | .overheads[0].capacity |
      (.est - $a.capacity / $b.capacity | fabs) < 1e-9 * .est and .lo <= .est and .est <= .hi and
      .lo >= $a.lo / $b.hi * (1 - 1e-9) and .hi <= $a.hi / $b.lo * (1 + 1e-9)' "$J" > /dev/null \
    && ok 0 "the capacity overhead is slow / slower, its interval within the two intervals' range" \
    || { ok 1 "the capacity overhead is slow / slower, its interval within the two intervals' range"; jq -c '.overheads' "$J"; }
jq_e '.overheads[0].capacity.est > 1' "$J" > /dev/null
ok $? "the slower plant carries less within the SLO"
jq_e '.overheads[0].closed_loop | .est > 1.2 and .pairs == 2' "$J" > /dev/null \
    && ok 0 "the closed-loop overhead of the pilot pairs beside it" || ok 1 "the closed-loop overhead of the pilot pairs beside it"

# the outputs agree with each other
runs=$(jq '.search.runs' "$J")
is "$(ls "$R"/*/record.json | wc -l)" "$runs" "a record per run ($runs)"
is "$(jq '([.configs[].points[].runs] | add) + 2 * (.configs | length)' "$J")" "$runs" "the points' runs and the pilot pairs are every run"
is "$(($(wc -l < "$R/curves.csv") - 1))" "$(jq '[.configs[].points[]] | length' "$J")" "curves.csv: a row per point"
ok "$(head -1 "$R/curves.csv" | grep -q 'offered,achieved,runs,client_bound,sweep,p50_us,p99_us,p999_us,p50_uncorrected_us'; echo $?)" "curves.csv: corrected and uncorrected percentiles"
is "$(ls "$R"/points/*.hlog | wc -l)" "$(jq '[.configs[].points[]] | length' "$J")" "a merged .hlog per point"
ok "$(grep -q '<svg' "$R/capacity.html" && grep -q 'p99 &lt;= 2.2 ms\|p99 <= 2.2 ms' "$R/capacity.html"; echo $?)" "capacity.html: the plot and the bound"
cap=$(printf "%.0f" "$(jq -r ".configs[0].capacity[0].capacity" "$J")")
ok "$(grep -q "^slow/off .* ${cap}/s \[" "$T_TMP/out" && grep -q "| slow/off | .* | ${cap}/s \[" "$R/capacity.md"; echo $?)" "the table and capacity.md give the same capacity ($cap/s)"
ok "$(grep -q 'every bracket within its tolerance' "$T_TMP/out"; echo $?)" "the search ended by its rule"
jq_e '[.configs[].points | map(.rate) | . == sort] | all' "$J" > /dev/null
ok $? "the points in order of offered load"
"$M" report "$R" --out "$T_TMP/rep" > "$T_TMP/rep.out" 2>&1
ok "$(grep -q 'id="capacity-1"' "$T_TMP/rep/cap/index.html" && grep -q '^## Capacity of memcached' "$T_TMP/rep/cap/report.md" &&
      jq -e '.capacity[0].schema == "mtebench-capacity/1"' "$T_TMP/rep/cap/summary.json" > /dev/null; echo $?)" \
    "mtebench report of the results: the capacity section in index.html, report.md and summary.json" || dump "$T_TMP/rep.out"
python3 "$ROOT/tests/tools/schema_check.py" "$ROOT/docs/schema/capacity.schema.json" "$J" > "$T_TMP/schema" 2>&1
ok $? "capacity.json matches docs/schema/capacity.schema.json" || dump "$T_TMP/schema"
jq 'del(.configs[0].capacity[0].capacity)' "$J" > "$T_TMP/bad.json"
python3 "$ROOT/tests/tools/schema_check.py" "$ROOT/docs/schema/capacity.schema.json" "$T_TMP/bad.json" > /dev/null 2>&1
is $? 1 "the schema refuses a capacity found without its figure"
done_testing
