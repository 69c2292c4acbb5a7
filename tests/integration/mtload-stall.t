#!/bin/bash
# Truth under stalls: memcached is paused (SIGSTOP) for 200 ms once a second
# during a 6 s open-loop run at 2000 req/s; the corrected p99 must show the
# stall (>= 100 ms). Unpaused, the corrected and uncorrected views must agree.
# Run for every engine usable here (epoll, io_uring).
. "$(dirname "$0")/../lib.sh"
MTL="$B/mtload"
# the system python: a version-manager shim can take seconds per start
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
[ -x "$MTL" ] || skip_all "build/mtload is not built"
[ -x /usr/bin/memcached ] || skip_all "memcached is not installed"

jget() { "$PY" -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print(v)' "$1" "$2"; }

# Server on CPU 0, client on CPU 1 where there are two CPUs, so that neither
# delays the other.
SRV_CPU=""; CLI_CPU=""
if [ "$(nproc)" -ge 2 ]; then SRV_CPU="taskset -c 0"; CLI_CPU="--cpus 1"; fi

port=$(free_port)
spawn "$T_TMP/mc.log" $SRV_CPU /usr/bin/memcached -U 0 -l 127.0.0.1 -p "$port" -t 1 -u nobody >"$T_TMP/mc.pid"
if ! wait_port "$port" 10; then
    ok 1 "memcached listens on $port"; dump "$T_TMP/mc.log"; done_testing
fi
mcpid=$(pgrep -f -- "-p $port " | head -1)
timeout 30 "$MTL" --server "127.0.0.1:$port" --preload --keys 1000 --quiet
ok $? "preload"

# The client polls during the last 500 us before each send (--spin) and, where
# permitted, runs SCHED_FIFO: on a shared VM a timer wake-up is often late by
# more than 100 us (more than memcached's whole response time), and without
# real-time priority a polling client is preempted by the other tenants. Both
# would show as client lateness in the corrected view, which is not what this
# test is about. The server keeps normal priority.
PRIO=()
if command -v chrt >/dev/null && chrt -f 50 true 2>/dev/null; then PRIO=(chrt -f 50); fi
LOAD=(--server "127.0.0.1:$port" --keys 1000 --rate 2000 --conns 16 --pipeline 4 --spin 500us $CLI_CPU)

for E in $(mtload_engines); do
    # ---- stalled: 200 ms SIGSTOP once per second, in its own process group ----
    cat >"$T_TMP/$E-pauser.sh" <<SH
while kill -0 $mcpid 2>/dev/null; do
    sleep 0.8; kill -STOP $mcpid; sleep 0.2; kill -CONT $mcpid
done
SH
    spawn "$T_TMP/$E-pauser.log" bash "$T_TMP/$E-pauser.sh" >"$T_TMP/$E-pauser.pid"
    timeout 60 "${PRIO[@]}" "$MTL" "${LOAD[@]}" --engine "$E" --duration 6s --json "$T_TMP/$E-stall.json" >"$T_TMP/$E-stall.out" 2>&1
    st=$?
    # A stall that overlaps the run's end leaves the schedule's backlog unsent
    # (16 conns x pipeline 4 in flight, 2000 req/s due): mtload counts those
    # as never sent and, above --error-limit, exits 3 (docs/MTLOAD.md). That
    # is the only shortfall a stalled server may cause: every request sent is
    # answered, none lost, no error.
    acc=$("$PY" -c "import json; t=json.load(open('$T_TMP/$E-stall.json'))['totals']; a=t['accounting']; e=t['errors']
print(int(a['sent'] == a['answered'] + a['in_flight_end'] and a['lost_timeout'] + a['lost_closed'] + a['lost_garbled'] == 0
      and e['server'] + e['protocol'] + e['timeout'] + e['connect'] == 0))" 2>/dev/null || echo 0)
    ok "$( { [ "$st" = 0 ] || [ "$st" = 3 ]; } && [ "$acc" = 1 ] && echo 0 || echo 1)" \
       "[$E] stalled run exits 0, or 3 for requests never sent only (exit $st; sent all answered: $acc)"
    kill -- -"$(cat "$T_TMP/$E-pauser.pid")" 2>/dev/null; kill -CONT "$mcpid" 2>/dev/null
    cp99=$(jget "$T_TMP/$E-stall.json" latency_us.corrected.p99)
    up99=$(jget "$T_TMP/$E-stall.json" latency_us.uncorrected.p99)
    ok "$("$PY" -c "print(0 if $cp99 >= 100000 else 1)")" \
       "[$E] stalled: corrected p99 ${cp99} us >= 100 ms (uncorrected p99 ${up99} us)"
    is "$(jget "$T_TMP/$E-stall.json" totals.errors.timeout)" 0 "[$E] stalled: no timeouts (200 ms < 1 s)"
    [ "$T_FAIL" = 0 ] || { dump "$T_TMP/$E-stall.out"; dump "$T_TMP/$E-pauser.log"; }

    # ---- unpaused: the two views agree --------------------------------------
    # The statistic is the median. Without server stalls the two views differ only
    # by the client's own lateness in sending (timer wake-up, being descheduled).
    # On a shared 2-core VM the tails of both views are dominated by other tenants
    # preempting the client or the server for milliseconds, and the corrected view
    # rightly charges the client's share to latency, so p99 differs between runs by
    # far more than 10% for reasons unrelated to coordinated omission. The median
    # is what a stall-free server must leave equal. Noise from other tenants is
    # transient, so up to three attempts are made. The slack is 10% or 25 us,
    # whichever is larger: beside the suite's other lane (load average ~4) a
    # warm suite saw medians 10-17 us apart at ~100 us in all three attempts;
    # a correction gone wrong (the send interval here is 500 us) or a stall
    # (200 ms) is far beyond either.
    agree=1
    for attempt in 1 2 3; do
        timeout 60 "${PRIO[@]}" "$MTL" "${LOAD[@]}" --engine "$E" --duration 3s --json "$T_TMP/$E-calm.json" >"$T_TMP/$E-calm.out" 2>&1 || continue
        c50=$(jget "$T_TMP/$E-calm.json" latency_us.corrected.p50)
        u50=$(jget "$T_TMP/$E-calm.json" latency_us.uncorrected.p50)
        diag "attempt $attempt: corrected p50 $c50 us, uncorrected p50 $u50 us"
        if "$PY" -c "import sys; sys.exit(0 if abs($c50 - $u50) <= max(0.10 * $u50, 25) else 1)"; then
            agree=0; break
        fi
    done
    ok $agree "[$E] unpaused: corrected and uncorrected p50 agree within 10% or 25 us ($c50 vs $u50 us)"
    [ "$agree" = 0 ] || { dump "$T_TMP/$E-calm.out"; uptime | sed 's/^/# /'; }
done
done_testing
