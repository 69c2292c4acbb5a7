#!/bin/bash
# Does a capacity hold when re-measured? A capacity search, then five runs at
# 0.9x its interval's lower end (each should meet the SLO) and five at 1.25x
# its upper end (each should miss it or fall behind the rate), as separate
# `mtebench run`s of RECHECK_S seconds with their own seeds. Prints each run
# and the counts; exit 0 when at least four of five meet below and four of
# five miss above. docs/CAPACITY.md ("Does it hold?").
#
#   tests/bench/capacity-recheck.sh OUT SLO [capacity options]
#   e.g. tests/bench/capacity-recheck.sh /tmp/recheck p99:500us --service memcached \
#            --platform host --mode off --variant plain --duration 10s
# The first bound of SLO is rechecked; the baseline configuration's capacity.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
M="$ROOT/build/mtebench"
[ $# -ge 2 ] || { echo "usage: $0 OUT SLO [capacity options]" >&2; exit 2; }
OUT=$1 SLO=$2
shift 2
RECHECK_S=${RECHECK_S:-30}
mkdir -p "$OUT" || exit 1
t0=$(date +%s)
"$M" capacity --slo "$SLO" --results "$OUT/search" "$@" > "$OUT/search.txt" 2> "$OUT/search.err" ||
    { echo "capacity search failed: $OUT/search.err" >&2; tail -5 "$OUT/search.err" >&2; exit 1; }
J="$OUT/search/capacity.json"
st=$(jq -r '.configs[0].capacity[0].status' "$J")
[ "$st" = found ] || { echo "no capacity found ($st): see $OUT/search.txt" >&2; exit 1; }
read -r lo hi pct bound variant mode arrival < <(jq -r '[.configs[0].capacity[0].lo, .configs[0].capacity[0].hi,
    .slo.bounds[0].percentile, .slo.bounds[0].bound_us, .configs[0].variant, .configs[0].mode, .arrival] | @tsv' "$J")
echo "search: $(jq -r '.configs[0].capacity[0] | "\(.bound): \(.capacity | floor)/s [\(.lo | floor), \(.hi | floor)]"' "$J")" \
     "in $(( $(date +%s) - t0 )) s ($(jq -r .search.runs "$J") runs)"
# the options of the search that make a run the same run (all but the search's own)
run_opts=()
while [ $# -gt 0 ]; do
    case $1 in
        --slo | --loads | --baseline-variant | --results | --variant | --mode | --reps | --max-time | --duration) shift 2 ;;
        --slo=* | --loads=* | --baseline-variant=* | --results=* | --variant=* | --mode=* | --reps=* | --max-time=* | --duration=*) shift ;;
        *) run_opts+=("$1"); shift ;;
    esac
done
check() { # FACTOR RATE: five runs, the number meeting the bound
    local name=$1 rate=$2 met=0
    for k in 1 2 3 4 5; do
        local d="$OUT/$name-$k"
        "$M" run "${run_opts[@]}" --variant "$variant" --mode "$mode" --rate "$rate" --arrival "$arrival" \
            --seed $((900 + k)) --duration "${RECHECK_S}s" --results "$d" > /dev/null 2> "$d.err"
        local rec
        rec=$(find "$d" -name record.json | head -1)
        local v ach sched ok
        read -r v ach sched < <(jq -r --arg p "$pct" '[.load.latency_us.corrected[$p], .load.totals.accounting.answered,
            (.load.totals.accounting.sent + .load.totals.accounting.unsent)] | @tsv' "$rec")
        ok=$(awk -v v="$v" -v b="$bound" -v a="$ach" -v s="$sched" 'BEGIN { print (v <= b && a >= 0.99 * s) ? 1 : 0 }')
        met=$((met + ok))
        printf '  %s run %d at %.0f/s: %s %.0f us, answered %s of %s scheduled: %s\n' "$name" "$k" "$rate" "$pct" "$v" \
            "$ach" "$sched" "$([ "$ok" = 1 ] && echo meets || echo misses)" >&2
    done
    echo "$met"
}
below=$(awk -v x="$lo" 'BEGIN { printf "%.3f", 0.9 * x }')
above=$(awk -v x="$hi" 'BEGIN { printf "%.3f", 1.25 * x }')
m_below=$(check below "$below")
m_above=$(check above "$above")
echo "0.9 x lower end ($below/s): $m_below of 5 runs of ${RECHECK_S} s meet $pct <= $bound us"
echo "1.25 x upper end ($above/s): $((5 - m_above)) of 5 runs of ${RECHECK_S} s miss it or fall behind"
echo "total time: $(( $(date +%s) - t0 )) s"
[ "$m_below" -ge 4 ] && [ "$m_above" -le 1 ]
