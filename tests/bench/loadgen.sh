#!/bin/bash
# tests/bench/loadgen.sh - mtload against the standard clients, on loopback
# (run by `make bench-loadgen`). Prints figures; it is not a pass/fail test.
#
# One native memcached thread on CPU 0 (taskset), each client on CPU 1, equal
# threads (1), connections (16) and pipeline depth (1), SET:GET 1:10 over a
# preloaded key space: mtload, memcaslap and, where installed,
# memtier_benchmark. Then one nginx worker on CPU 0 serving a 1 KiB file:
# mtload and wrk -t1 -c16.
#
# Operations are counted by the servers themselves (memcached cmd_get+cmd_set,
# nginx stub_status requests), so every client is measured the same way; client
# CPU is the user+sys time of the client process (/usr/bin/time). The figure of
# merit is operations per client CPU-second.
# With REPS=n the clients take turns n times (mtload, memcaslap, memtier,
# mtload, ...) and the sums are reported, which evens out other tenants' load.
#   DURATION=10 REPS=1 CONNS=16 KEYS=100000 VALUE=100 bash tests/bench/loadgen.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/common.sh"
MTL="$ROOT/build/mtload"
DURATION=${DURATION:-10}
REPS=${REPS:-1}
CONNS=${CONNS:-16}
KEYS=${KEYS:-100000}
VALUE=${VALUE:-100}
SRV_CPU=${SRV_CPU:-0}
CLI_CPU=${CLI_CPU:-1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mtload-bench.XXXXXX")
PIDS=""
cleanup() {
    local p
    for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.2
    for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the system python: a version-manager shim can take seconds per start
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
die() { echo "loadgen.sh: $*" >&2; exit 1; }
[ -x "$MTL" ] || die "build/mtload is not built (make build/mtload)"
command -v memcached >/dev/null || die "memcached is not installed (make deps)"
wait_port() {
    local i
    for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done
    return 1
}
mc_ops() { "$PY" - "$1" <<'PY'
import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=5)
s.sendall(b"stats\r\n"); buf=b""
while not buf.endswith(b"END\r\n"): buf+=s.recv(65536)
st=dict(l.split()[1:3] for l in buf.decode().split("\r\n") if l.startswith("STAT"))
print(int(st["cmd_get"])+int(st["cmd_set"]))
PY
}

RESULTS="$TMP/results"
: >"$RESULTS"
# measure NAME OPS-COMMAND -- CLIENT-COMMAND...: run the client pinned, record
# server-counted ops and the client's CPU time
measure() {
    local name=$1 opscmd=$2; shift 3
    local o0 o1 cpu
    o0=$($opscmd)
    /usr/bin/time -f "%U %S %e" -o "$TMP/$name.time" taskset -c "$CLI_CPU" "$@" \
        >"$TMP/$name.out" 2>&1
    local rc=$?
    o1=$($opscmd)
    read -r u s e <"$TMP/$name.time" 2>/dev/null || { u=0; s=0; e=0; }
    if [ $rc != 0 ]; then
        echo "  $name exited $rc:"; tail -5 "$TMP/$name.out" | sed 's/^/    /'
    fi
    echo "$name $((o1 - o0)) $u $s $e" >>"$RESULTS"
}

echo "mtload benchmark: server CPU $SRV_CPU, client CPU $CLI_CPU, ${DURATION}s per client,"
echo "1 thread, $CONNS connections, pipeline 1; memcached SET:GET 1:10, $KEYS keys, ${VALUE}-byte values; $REPS round(s)"
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- memcached --------------------------------------------------------------
port=$(free_port)
taskset -c "$SRV_CPU" memcached -U 0 -l 127.0.0.1 -p "$port" -t 1 -m 1024 -u nobody \
    >"$TMP/memcached.log" 2>&1 &
disown
PIDS="$PIDS $!"
wait_port "$port" || die "memcached did not start: $(cat "$TMP/memcached.log")"
"$MTL" --server "127.0.0.1:$port" --preload --keys "$KEYS" --value-size "$VALUE" \
    --conns 4 --pipeline 16 --quiet || die "preload failed"
MCOPS="mc_ops $port"

if command -v memcaslap >/dev/null; then
    cat >"$TMP/memcaslap.cfg" <<CFG
key
30 30 1
value
$VALUE $VALUE 1
cmd
0 0.0909
1 0.9091
CFG
fi
for rep in $(seq "$REPS"); do
    measure mtload "$MCOPS" -- "$MTL" --server "127.0.0.1:$port" --threads 1 --conns "$CONNS" \
        --pipeline 1 --ratio 1:10 --keys "$KEYS" --value-size "$VALUE" --duration "${DURATION}s" \
        --json "$TMP/mtload.json"
    if command -v memcaslap >/dev/null; then
        measure memcaslap "$MCOPS" -- memcaslap -s "127.0.0.1:$port" -T 1 -c "$CONNS" \
            -t "${DURATION}s" -F "$TMP/memcaslap.cfg"
    elif [ "$rep" = 1 ]; then
        echo "  memcaslap not installed (libmemcached-tools): skipped"
    fi
    if command -v memtier_benchmark >/dev/null; then
        measure memtier "$MCOPS" -- memtier_benchmark -s 127.0.0.1 -p "$port" -P memcache_text \
            -t 1 -c "$CONNS" --pipeline 1 --ratio 1:10 --key-maximum "$KEYS" -d "$VALUE" \
            --test-time "$DURATION" --hide-histogram
    elif [ "$rep" = 1 ]; then
        echo "  memtier_benchmark not installed: skipped"
    fi
done

# ---- nginx --------------------------------------------------------------------
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ -x "$NGINX" ]; then
    hport=$(free_port)
    ng="$TMP/nginx"
    native_nginx_conf "$ng" "$hport"
    head -c 1024 /dev/zero | tr '\0' 'x' >"$ng/html/1k.html"
    taskset -c "$SRV_CPU" "$NGINX" -p "$ng" -c "$ng/nginx.conf" >"$ng/logs/stdout.log" 2>&1 &
    disown
    PIDS="$PIDS $!"
    wait_port "$hport" || die "nginx did not start: $(cat "$ng/logs/error.log")"
    # stub_status counts its own request: subtract it
    ng_ops() { curl -s "http://127.0.0.1:$hport/nginx_status" | awk 'NR==3 {print $3 - 1}'; }
    NGOPS=ng_ops
    for rep in $(seq "$REPS"); do
        measure mtload-http "$NGOPS" -- "$MTL" --protocol http --server "127.0.0.1:$hport" \
            --threads 1 --conns "$CONNS" --pipeline 1 --paths /1k.html --duration "${DURATION}s"
        if command -v wrk >/dev/null; then
            measure wrk "$NGOPS" -- wrk -t1 -c"$CONNS" -d"${DURATION}s" "http://127.0.0.1:$hport/1k.html"
        elif [ "$rep" = 1 ]; then
            echo "  wrk not installed: skipped"
        fi
    done
else
    echo "  nginx not installed: HTTP comparison skipped"
fi

# ---- report ---------------------------------------------------------------------
echo
"$PY" - "$RESULTS" <<'PY'
import sys
rows, tot, order = {}, {}, []
for line in open(sys.argv[1]):
    name, *v = line.split()
    if name not in tot:
        tot[name] = [0, 0.0, 0.0, 0.0]; order.append(name)
    for i, x in enumerate(v):
        tot[name][i] += float(x)
print(f"{'client':<12} {'ops':>10} {'ops/s':>10} {'user s':>8} {'sys s':>8} {'ops/client-CPU-s':>17}")
for name in order:
    ops, u, s, e = tot[name]
    ops = int(ops)
    cpu = u + s
    eff = ops / cpu if cpu > 0 else 0.0
    rows[name] = eff
    print(f"{name:<12} {ops:>10} {ops / e if e else 0:>10.0f} {u:>8.2f} {s:>8.2f} {eff:>17.0f}")
print()
def ratio(a, b, target):
    if a in rows and b in rows and rows[b] > 0:
        r = rows[a] / rows[b]
        print(f"{a}/{b}: {r:.2f}x ops per client CPU-second (target >= {target}) "
              f"{'ok' if r >= target else 'BELOW TARGET'}")
ratio("mtload", "memcaslap", 1.5)
ratio("mtload", "memtier", 1.0)
ratio("mtload-http", "wrk", 1.0)
PY
if [ -f "$TMP/mtload.json" ]; then
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("mtload client_bound:", str(d["cpu"]["client_bound"]).lower(), " busy:", [t["busy"] for t in d["cpu"]["threads"]])' "$TMP/mtload.json"
fi
