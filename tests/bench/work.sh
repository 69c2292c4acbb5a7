#!/bin/bash
# MTE's work per request, counted (docs/COUNTING.md): REPS counted runs
# (`mtebench run --platform vm --count`) of each configuration, interleaved;
# per configuration the median of each count per request, its spread over
# the runs ((max - min) / median), and its ratio to the first
# configuration's median. A benchmark: it prints figures and judges nothing.
# Counted runs are never timed: no throughput or latency is printed.
#   tests/bench/work.sh [OUT] [CONFIGS] [REPS]
#   make bench-work CONFIGS=plain/off@stock,tagged/async@stock REPS=5
# CONFIGS: variant/mode@kernel, comma-separated (default
# plain/off@stock,tagged/async@stock); SERVICE (memcached), DURATION (2),
# MIX, CONNS (1) and RATE (200: open loop; 0 closed) from the environment:
# by default the load of bench's counted pair (plan/plan_work.h), one
# request at a time, each finding the service asleep.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
M="$ROOT/build/mtebench"
OUT=${1:-}; [ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/work.XXXXXX")
CONFIGS=${2:-plain/off@stock,tagged/async@stock}
REPS=${3:-5}
SERVICE=${SERVICE:-memcached}
mkdir -p "$OUT" || exit 1
IFS=, read -ra cfgs <<< "$CONFIGS"
for c in "${cfgs[@]}"; do
    case "$c" in */*@*) ;; *) echo "work.sh: bad configuration '$c' (want variant/mode@kernel)" >&2; exit 2 ;; esac
done
extra=()
[ -n "${MIX:-}" ] && extra+=(--mix "$MIX")
extra+=(--conns "${CONNS:-1}")
[ "${RATE:-200}" != 0 ] && extra+=(--rate "${RATE:-200}")
echo "counted runs of $SERVICE: ${cfgs[*]}, $REPS each, interleaved; records under $OUT"
n=0 total=$(( ${#cfgs[@]} * REPS ))
for r in $(seq 1 "$REPS"); do
    for c in "${cfgs[@]}"; do
        v=${c%%/*} rest=${c#*/}; m=${rest%@*} k=${c#*@}
        n=$((n + 1))
        d="$OUT/$v-$m-$k-$r"
        printf '[%d/%d] %s/%s on %s, repetition %d ... ' "$n" "$total" "$v" "$m" "$k" "$r"
        if "$M" run --service "$SERVICE" --variant "$v" --mode "$m" --platform vm --kernel "$k" --count \
               --duration "${DURATION:-2}" --warmup 0 "${extra[@]}" --results "$d" > "$d.out" 2> "$d.err"; then
            jq -r '.work | "\(.requests) requests"' "$d"/*/record.json
        else
            echo "failed: $d.err"
            tail -3 "$d.err"
        fi
    done
done
# one line per configuration, role and EL: medians, spreads, ratios
jq -rn --arg cfgs "$CONFIGS" '
  def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                     else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def spread: (median) as $m | if $m == null or $m == 0 then 0 else ((max - min) / $m) end;
  def keys_: ["insns", "loads", "stores", "loads_checked", "stores_checked", "tag0_lower", "unchecked_tco", "tag_bytes", "wfe", "spin_insns", "spin_wfe"];
  [inputs | select(.work.per_request) | {c: "\(.config.variant)/\(.config.mode)@\(.config.kernel)", w: .work.per_request}] as $rs
  | ($cfgs | split(",")) as $order
  | ["configuration", "role", "EL", "runs"] + (keys_ | map(., "spread", "x base")) | @tsv,
    ( $order[] as $c | ["workers", "tasks", "service", "interrupts", "client"][] as $role | [0, 1][] as $el
      | [$rs[] | select(.c == $c) | .w[$role]["el\($el)"] | select(. != null)] as $vals
      | [$rs[] | select(.c == $order[0]) | .w[$role]["el\($el)"]] as $base
      | select(($vals | length) > 0)
      | [$c, $role, "EL\($el)", ($vals | length)] +
        (keys_ | map(. as $k | ([$vals[][$k]] | median) as $m | ([$base[][$k]] | median) as $b
                     | ($m * 100 | round / 100), ([$vals[][$k]] | spread * 1000 | round / 10 | tostring + "%"),
                     (if $b == null or $b == 0 then "-" else ($m / $b * 1000 | round / 1000 | tostring + "x") end)))
      | @tsv )' "$OUT"/*/*/record.json | column -t -s "$(printf '\t')" | tee "$OUT/table.txt"
echo "exact (counted): the guest's instruction stream under QEMU, not a timing; spread: (max - min) / median over the runs"
