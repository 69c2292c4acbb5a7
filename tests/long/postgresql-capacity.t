#!/bin/bash
# A capacity search through pgbench: PostgreSQL under emu, tagged/off against
# tagged/async (the tagged build serves as both, so no plain aarch64 build is
# needed), p99 <= 50 ms, runs of 5 s. pgbench's --rate draws Poisson
# arrivals and its records say so; each run's achieved rate is its offered
# one within 3 Poisson standard deviations plus 3% (the driver's warm-up cut
# at pgbench's first transaction: before, a whole-second clock made ops/s up
# to 20% too high); both configurations get a capacity with an interval,
# async's lower (under emulation it halves); the overhead interval is there
# beside the closed-loop one; the search ended by its rule. Kept out of
# `make test` for its time (~5 min of emulated PostgreSQL runs).
. "$(dirname "$0")/../lib.sh"
R="$T_TMP/pg"
t0=$(date +%s)
"$B/mtebench" capacity --service postgresql --platform emu --mode async --baseline-variant tagged \
    --slo p99:50ms --duration 5s --warmup 1s --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "capacity through pgbench: exit 0" || { dump "$T_TMP/err"; dump "$T_TMP/out"; }
echo "# $(( $(date +%s) - t0 )) s"
sed 's/^/# /' "$T_TMP/out" | head -12
J="$R/capacity.json"
jq_e '.arrival == "poisson" and .search.stopped == "done" and (.configs | length) == 2 and
      ([.configs[] | .capacity[0] | .status == "found" and .lo > 0 and .lo <= .capacity and .capacity <= .hi] | all) and
      .configs[1].capacity[0].capacity < .configs[0].capacity[0].capacity' "$J" > /dev/null
ok $? "both configurations have a capacity with its interval, async's the lower" ||
    jq -c '[.configs[] | [.variant, .mode, .closed_loop_ops, .capacity]]' "$J"
jq_e '.overheads[0] | (.capacity | .lo <= .est and .est <= .hi) and (.closed_loop | .pairs == 2)' "$J" > /dev/null
ok $? "the capacity overhead with its interval, beside the closed-loop overhead"
rec=$(jq -r '.configs[0].points[0].records[0]' "$J")
is "$(jq -r '.config.workload.arrival' "$rec")" poisson "a pgbench open-loop record says poisson"
bad=$(jq '[.configs[].points[] | select(.achieved > .rate * 1.03 + 3 * (.rate * 5 | sqrt) / 5)] | length' "$J")
is "$bad" 0 "no point achieved more than its offered rate (pgbench's window is the measured one)"
python3 "$ROOT/tests/tools/schema_check.py" "$ROOT/docs/schema/capacity.schema.json" "$J" > /dev/null
ok $? "capacity.json matches its schema"
done_testing
