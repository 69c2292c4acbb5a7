#!/bin/bash
# Every wait has a limit: the service of the first run is stopped (SIGSTOP)
# during its measurement. The run ends as an error naming the counter query
# that got no answer, the next run goes on, the exit status is 1. (Once the
# harness waited in the counter query forever.) ~45 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
D1="$R/001-memcached-default-plain-off-rep1"
setsid "$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 3 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err" &
pid=$!
note_pgid "$pid"
for _ in $(seq 1 600); do
    [ -f "$D1/preload.json" ] && svc=$(service_pid "$D1" memcached) && [ -n "$svc" ] && break
    sleep 0.1
done
ok "$( [ -n "${svc:-}" ]; echo $?)" "found the first run's service" || dump "$T_TMP/err"
sleep 1
[ -n "${svc:-}" ] && kill -STOP "$svc"
# bounded: 3 s of load + 10 s counter limit + stop grace, under emulation
for _ in $(seq 1 900); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
ok "$(! kill -0 "$pid" 2>/dev/null; echo $?)" "the harness finished (did not wait forever)"
kill -KILL -- "-$pid" 2>/dev/null; [ -n "${svc:-}" ] && kill -CONT "$svc" 2>/dev/null
wait "$pid"; rc=$?
is "$rc" 1 "exit status 1" || dump "$T_TMP/err"
is "$(jq -r .status "$D1/record.json" 2>/dev/null)" error "the stopped run is an error"
ok "$(jq -r .error "$D1/record.json" | grep -q '^no answer to the counter query in 10 s'; echo $?)" "its error names the counter query" \
    || jq -r .error "$D1/record.json" | sed 's/^/# /'
is "$(jq -r .status "$R/002-memcached-default-tagged-sync-rep1/record.json" 2>/dev/null)" ok "the next run went on and is ok"
ok "$(grep -q "001-memcached-default-plain-off-rep1/record.json: error: no answer to the counter query" "$T_TMP/err"; echo $?)" "the failed record is named"
ok "$( [ -z "$(pids_in "$D1")" ]; echo $?)" "the stopped service is gone"
done_testing
