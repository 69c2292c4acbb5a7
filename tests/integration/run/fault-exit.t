#!/bin/bash
# Exit status tells the truth: a bench where one run fails (its memcached is
# killed mid-run) exits 1, names the count and the failed record, and keeps
# the ok record. (Once exited 0: the failure count was read before the plan
# ran, C leaving the order of argument evaluation unspecified.) ~25 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
setsid "$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 3 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err" &
pid=$!
note_pgid "$pid"
# kill the second run's memcached once its load is running (bounded wait)
for _ in $(seq 1 400); do
    [ -s "$R/002-memcached-default-tagged-sync-rep1/mtload.log" ] && svc=$(service_pid "$R/002-memcached-default-tagged-sync-rep1" memcached) && [ -n "$svc" ] && break
    sleep 0.1
done
sleep 1
[ -n "${svc:-}" ] && kill -KILL "$svc"
wait "$pid"; rc=$?
is "$rc" 1 "exit status 1 when a run failed" || dump "$T_TMP/err"
ok "$(grep -q '^mtebench: 1 of 2 runs did not finish cleanly (exit 1):' "$T_TMP/err"; echo $?)" "says how many runs failed"
ok "$(grep -q "^  $R/002-memcached-default-tagged-sync-rep1/record.json: error: memcached died during the run" "$T_TMP/err"; echo $?)" \
   "names the failed record and why" || dump "$T_TMP/err" 8
ok "$(jq_e '.status=="ok"' "$R/001-memcached-default-plain-off-rep1/record.json" >/dev/null; echo $?)" "the ok record kept"
ok "$(jq_e '.status=="error"' "$R/002-memcached-default-tagged-sync-rep1/record.json" >/dev/null; echo $?)" "the failed record written"
done_testing
