#!/bin/bash
# Ctrl-C in the middle of a bench kills every child, and the records of the
# runs that finished stay intact.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
setsid "$M" bench --service memcached --mode sync --platform emu --reps 3 --duration 2 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err" &
pid=$!
note_pgid "$pid"
# wait (bounded) until the first record exists and the second run is going
for _ in $(seq 1 300); do
    [ -f "$R/001-memcached-default-plain-off-rep1/record.json" ] && [ -f "$R/002-memcached-default-tagged-sync-rep1/service.log" ] && break
    sleep 0.1
done
ok "$( [ -f "$R/001-memcached-default-plain-off-rep1/record.json" ]; echo $?)" "first run finished before the interrupt"
sleep 1
kill -INT "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
ok "$(! kill -0 "$pid" 2>/dev/null; echo $?)" "mtebench exited on SIGINT"
wait "$pid"; rc=$?
is "$rc" 130 "exit status 130"
sleep 0.3
ok "$(! pgrep -f "$B/mtload.*$R" >/dev/null && ! pgrep -f "memcached.*$R" >/dev/null && ! pgrep -f "qemu-aarch64.*$R" >/dev/null; echo $?)" \
   "no memcached, qemu or mtload left running"
ok "$(jq_e '.status=="ok"' "$R/001-memcached-default-plain-off-rep1/record.json" >/dev/null; echo $?)" "finished record intact"
ok "$(! ls "$R"/*/*.tmp.* >/dev/null 2>&1; echo $?)" "no half-written files"
ok "$(grep -q 'interrupted' "$T_TMP/err"; echo $?)" "says it was interrupted"
done_testing
