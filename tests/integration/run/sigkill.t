#!/bin/bash
# Nothing outlives the harness, SIGKILL included: the harness is killed with
# SIGKILL in the middle of a run; its watchdog kills the service and mtload,
# the service's port is free again, the finished record is intact, and the
# next harness into the same results directory says the last one did not
# finish. (Once the emulated memcached kept running and its port.) ~35 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
D2="$R/002-memcached-default-tagged-sync-rep1"
setsid "$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 4 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err" &
pid=$!
note_pgid "$pid"
for _ in $(seq 1 600); do
    [ -f "$D2/preload.json" ] && svc=$(service_pid "$D2" memcached) && [ -n "$svc" ] && break
    sleep 0.1
done
ok "$( [ -n "${svc:-}" ]; echo $?)" "the second run's service is running" || dump "$T_TMP/err"
port=$(tr '\0' '\n' < "/proc/$svc/cmdline" | sed -n '/^-p$/{n;p;q}')
# the measurement's mtload (4 s): kill the harness half a second into it
for _ in $(seq 1 100); do pgrep -f "mtload.*$D2/mtload.json" >/dev/null && break; sleep 0.1; done
sleep 0.5
ok "$(pgrep -f "mtload.*$D2" >/dev/null; echo $?)" "its mtload is running"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
left=""
for _ in $(seq 1 50); do
    left="$(pids_in "$D2")$(pgrep -f "$R" || true)"
    [ -z "$left" ] && break
    sleep 0.1
done
is "$left" "" "no process of the killed harness's run is left (service, qemu-aarch64, mtload)"
ok "$("$PY" -c "import socket,sys;s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1);s.bind(('127.0.0.1',int(sys.argv[1])));s.listen()" "$port" 2>/dev/null; echo $?)" \
   "the service's port $port is free"
is "$(jq -r .status "$R/001-memcached-default-plain-off-rep1/record.json")" ok "the finished record is intact"
ok "$(! [ -f "$D2/record.json" ]; echo $?)" "the cut run has no record"
ok "$( [ -f "$R/.mtebench-running" ]; echo $?)" "the results directory keeps the mark of a harness that did not finish"
cp "$R/001-memcached-default-plain-off-rep1/record.json" "$T_TMP/first.json"
# a new attempt into it without saying what to do is refused
"$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 4 --warmup 0 \
    --results "$R" > "$T_TMP/out1" 2> "$T_TMP/err1"
is "$?" 2 "a new attempt into the same results directory is refused"
ok "$(grep -q "^mtebench: $R already holds runs of this plan: --resume $R finishes it" "$T_TMP/err1"; echo $?)" \
   "and told about --resume" || dump "$T_TMP/err1"
"$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 1 --warmup 0 \
    --resume "$R" > "$T_TMP/out1" 2> "$T_TMP/err1"
is "$?" 2 "--resume with another plan (another duration) is refused"
ok "$(grep -q "^mtebench: --resume $R: it holds another plan (bench, 2 cells x 1 reps)" "$T_TMP/err1"; echo $?)" "saying so" || dump "$T_TMP/err1"
# --resume finishes it: the ok run kept, the cut one redone in its place
"$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 4 --warmup 0 \
    --resume "$R" > "$T_TMP/out2" 2> "$T_TMP/err2"
is "$?" 0 "--resume finishes the plan" || dump "$T_TMP/err2"
ok "$(grep -q "^mtebench: $R was left by an mtebench that did not finish (pid $pid, started " "$T_TMP/err2"; echo $?)" \
   "and recognises the stale results directory" || dump "$T_TMP/err2"
ok "$(cmp -s "$T_TMP/first.json" "$R/001-memcached-default-plain-off-rep1/record.json"; echo $?)" "the ok record kept as it was"
is "$(jq -r .status "$D2/record.json")" ok "the cut run redone in its place"
ok "$( [ -f "$R/.attempts/002-memcached-default-tagged-sync-rep1-1/mtload.log" ]; echo $?)" "the cut attempt moved to .attempts"
is "$(grep -c '^mtload memcache' "$D2/mtload.log")" 2 "the redone run's mtload.log holds its own preload and measurement only"
is "$(jq -s 'map(.config.rep)|sort|join(",")' "$R"/0*/record.json)" '"1,1"' "two records, one per cell"
ok "$(! [ -f "$R/.mtebench-running" ]; echo $?)" "the mark is gone once the plan finished"
done_testing
