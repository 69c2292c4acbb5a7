#!/bin/bash
# An SLO no rate can meet is a result, not a crash: memcached's test-only
# variant `slow` spends 300 us on every command, so p99 <= 100 us holds at
# no rate. The search walks down to a hundredth of the pilot's throughput
# and says so: "none: no rate meets it; at the lowest (R/s) p99 was X us",
# exit 0, in the table, capacity.md and capacity.json (status "below", the
# lowest rate and its p99 above the bound). The baseline alone
# (BASELINE_VARIANT=slow VARIANT=slow MODE=off): no overhead. (~15 s)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/none"
"$M" capacity --service memcached --platform host --mode off --baseline-variant slow --variant slow \
    --slo p99:100us --duration 0.5s --warmup 0.2s --keys 100 --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "an SLO no rate meets: exit 0" || dump "$T_TMP/err"
J="$R/capacity.json"
jq_e '(.configs | length) == 1 and (.overheads | length) == 0 and (.configs[0].capacity[0] |
      .status == "below" and .at_lowest_us > 100 and .lowest_rate > 0)' "$J" > /dev/null
ok $? "capacity.json: below, the lowest rate and its p99 over the bound" || jq -c '.configs[0].capacity' "$J"
low=$(jq -r '.configs[0].capacity[0].lowest_rate' "$J")
sat=$(jq -r '.configs[0].closed_loop_ops' "$J")
ok "$(awk -v l="$low" -v s="$sat" 'BEGIN { exit !(l < s / 50 && l >= s / 100) }'; echo $?)" \
   "the search went down to a hundredth of saturation ($low/s of $sat/s)"
ok "$(grep -q 'none: no rate meets it; at the lowest' "$T_TMP/out" && grep -q 'none: no rate meets it' "$R/capacity.md";
      echo $?)" "the table and capacity.md say so"
done_testing
