#!/bin/bash
# Without stalls, mtload's corrected view adds nothing of its own: the
# correction charges only the client's lateness in sending, and a request
# sent on time has the same latency in both views. A 3 s open-loop run at
# 2000 req/s against a native memcached, for every engine usable here (epoll,
# io_uring); mtload-stall.t shows the stalled case.
#
# The statistic is the 10th percentile, computed from the two histograms. A
# correction gone wrong (a constant offset, a schedule that drifts, the wrong
# request's intended time; the send interval here is 500 us) moves every
# request, the fastest tenth with them. The client's real lateness does not:
# on a shared VM the hypervisor took 20-26% of the CPUs during these runs
# (vmstat's `st`), and the client, late for a few milliseconds at a time,
# rightly charged that to the corrected view. That moved the medians apart by
# up to 2x with nothing else running (289.8 against 133.6 us), and by 2-3x
# beside the suite's other lane (CI on 017f382 and 086f154), while the 10th
# percentiles of 12 runs stayed within 1.1 us of each other. The slack is 10% or
# 25 us, whichever is larger. The medians are shown. The test runs alone after
# the lanes (tests/tags.txt) and makes up to three attempts.
. "$(dirname "$0")/../../lib.sh"
mtl_memcached
diag "real-time client: ${RT[*]:-not permitted here}"

# pct JSON KEY Q: the Q quantile of the [value_us, count] buckets in KEY
pct() {
    jq -r --arg k "$2" --argjson q "$3" '.[$k] as $h | ($h | map(.[1]) | add) as $n
        | first(foreach $h[] as $b (0; . + $b[1]; if . >= $q * $n then $b[0] else empty end))' "$1"
}

for E in $(mtload_engines); do
    agree=1 c10="" u10=""
    for attempt in 1 2 3; do
        f="$T_TMP/$E-calm.json"
        timeout 60 "${RT[@]}" "$B/mtload" "${LOAD[@]}" --engine "$E" --duration 3s --json "$f" >"$T_TMP/$E-calm.out" 2>&1 || continue
        c10=$(pct "$f" histogram 0.10); u10=$(pct "$f" histogram_uncorrected 0.10)
        diag "attempt $attempt: p10 corrected $c10 us, uncorrected $u10 us; p50 $(jq -r .latency_us.corrected.p50 "$f") and $(jq -r .latency_us.uncorrected.p50 "$f") us"
        if awk -v c="$c10" -v u="$u10" 'BEGIN { d = c - u; if (d < 0) d = -d; s = 0.10 * u; if (s < 25) s = 25; exit !(u > 0 && d <= s) }'; then
            agree=0; break
        fi
        sleep 1
    done
    ok $agree "[$E] unpaused: corrected and uncorrected p10 agree within 10% or 25 us ($c10 vs $u10 us)"
    [ "$agree" = 0 ] || { dump "$T_TMP/$E-calm.out"; uptime | sed 's/^/# /'; }
done
done_testing
