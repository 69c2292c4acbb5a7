#!/bin/bash
# How close does `mtebench capacity` come to queueing theory? A benchmark,
# not a test: it prints figures and judges nothing (docs/CAPACITY.md,
# "Against queueing arithmetic"). memcached's test-only variants `slow` and
# `slower` (300 us and 400 us of spinning per command, one worker thread,
# native) are searched at SLO, then each estimate is set beside the M/D/1
# capacity (no jitter) and the M/M/1 one (exponential service times) of the
# same mean service time and fixed delay (tests/tools/md1.py). The machine's
# latency floor is printed first: a bound near it leaves the search little
# room (capacity refuses one below it).
#   tests/bench/capacity-md1.sh [OUT] [SLO]     (default: a temporary dir, p99:2.2ms)
#   make bench-capacity SLO=p99:3ms
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
M="$ROOT/build/mtebench"
OUT=${1:-}; [ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/capacity-md1.XXXXXX")
SLO=${2:-p99:2.2ms}
mkdir -p "$OUT" || exit 1
echo "the latency floor (mtebench doctor):"
MTEBENCH_FLOOR=1 "$M" doctor | sed -n '/^latency floor/,/^machine profile/p' | grep -v '^machine profile'
echo "capacity of slow and slower at $SLO (99% intervals), results in $OUT/search"
t0=$(date +%s)
MTEBENCH_FLOOR=0 "$M" capacity --service memcached --platform host --mode off --baseline-variant slow --variant slower \
    --slo "$SLO" --confidence 99% --duration 1.5s --warmup 0.5s --keys 100 --results "$OUT/search" \
    > "$OUT/search.txt" 2> "$OUT/search.err" || { echo "capacity failed: $OUT/search.err" >&2; tail -5 "$OUT/search.err" >&2; exit 1; }
echo "search: $(( $(date +%s) - t0 )) s"
python3 "$ROOT/tests/tools/md1.py" "$OUT/search/capacity.json" > "$OUT/md1.json" || exit 1
printf '%-8s %-8s %10s %22s %10s %10s %8s %8s %8s\n' plant status D_us capacity "[99%]" "M/D/1" "M/M/1" "/M/D/1" rho
jq -r '.[] | [.variant, .status, (.d_us // 0 | floor), (.capacity // 0 | floor), "[\(.lo // 0 | floor), \(.hi // 0 | floor)]",
              (.pred // 0 | floor), (.mm1 // 0 | floor), (.of_pred // 0 | . * 1000 | round / 1000), (.rho // 0 | . * 100 | round / 100)] | @tsv' \
    "$OUT/md1.json" | while IFS=$'\t' read -r v st d c ci p mm r rho; do
    printf '%-8s %-8s %10s %12s %20s %10s %10s %8s %8s\n' "$v" "$st" "$d" "$c/s" "$ci" "$p/s" "$mm/s" "$r" "$rho"
done
echo "capacity overhead slow/slower: $(jq -c '.overheads[0].capacity' "$OUT/search/capacity.json"); M/D/1 predicts $(jq -r '(.[0].pred // 0) / (.[1].pred // 1) | . * 1000 | round / 1000' "$OUT/md1.json")"
