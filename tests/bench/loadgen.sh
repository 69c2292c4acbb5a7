#!/bin/bash
# tests/bench/loadgen.sh - mtload against the standard clients and against the
# floor, on loopback (run by `make bench-loadgen`). Prints figures; it is not a
# pass/fail test.
#
# One native memcached thread on CPU 0 (taskset), each client on CPU 1, equal
# threads (1) and connections (16), SET:GET 1:10 over a preloaded key space.
# At pipeline 1: mtload with each engine (io_uring, epoll), memcaslap,
# memtier_benchmark and the floor with each engine; at pipeline 16 (the
# study's memcached setting; memcaslap and wrk do not pipeline): mtload with
# each engine, memtier_benchmark and the floor. memtier_benchmark is not in
# Debian: MEMTIER=/path/to/memtier_benchmark (default: the one in PATH, if any;
# no test uses it). It runs with mtload's settings and over mtload's preloaded
# keys (--key-prefix mtl:, keys 1..KEYS-1 drawn uniformly, R:R), so that its
# GETs hit as mtload's do: with its own prefix (memtier-) every GET would miss,
# and a miss ("END") is a smaller answer than a hit. The floor (build/bench/floor, from
# tests/bench/floor.c) sends the same requests and only counts responses off
# by their known lengths: no parsing, no clock, no histogram, no timeouts; it
# is the least any client must spend, so mtload's cost is given as a multiple
# of it. Then one nginx worker on CPU 0 serving a 1 KiB file: mtload with each
# engine and wrk -t1 -c16.
#
# Operations are counted by the servers themselves (memcached cmd_get+cmd_set,
# nginx stub_status requests), so every client is measured the same way; client
# CPU is the user+sys time of the client process (/usr/bin/time). The figure of
# merit is operations per client CPU-second. The clients take turns ROUNDS
# times (rotating who goes first), and the table gives the median of the
# rounds and their spread (min-max, relative to the median), which evens out
# and shows other tenants' load.
#   ROUNDS=3 DURATION=10 CONNS=16 KEYS=100000 VALUE=100 PIPELINES="1 16" MEMTIER=path bash tests/bench/loadgen.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/common.sh"
MTL="$ROOT/build/mtload"
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-${REPS:-3}}
FLOOR="$ROOT/build/bench/floor"
ENGINES=$("$ROOT/build/mtload" --engines 2>/dev/null | tr '\n' ' ')
CONNS=${CONNS:-16}
KEYS=${KEYS:-100000}
VALUE=${VALUE:-100}
PIPELINES=${PIPELINES:-1 16}   # memcached pipeline depths (e.g. "1 2 4 8 16": where auto's engine choice comes from)
SRV_CPU=${SRV_CPU:-0}
CLI_CPU=${CLI_CPU:-1}
MEMTIER=${MEMTIER:-$(command -v memtier_benchmark || true)}
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
[ -x "$FLOOR" ] || die "build/bench/floor is not built (make build/bench/floor)"
[ -z "$MEMTIER" ] || [ -x "$MEMTIER" ] || die "MEMTIER=$MEMTIER is not an executable"
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
    # the last line: GNU time puts "Command exited with non-zero status" first
    read -r u s e < <(tail -n 1 "$TMP/$name.time" 2>/dev/null) || { u=0; s=0; e=0; }
    if [ $rc != 0 ]; then
        echo "  $name exited $rc:"; tail -5 "$TMP/$name.out" | sed 's/^/    /'
    fi
    echo "$name $((o1 - o0)) $u $s $e $ROUND" >>"$RESULTS"
}

echo "mtload benchmark: server CPU $SRV_CPU, client CPU $CLI_CPU, ${DURATION}s per client and round, $ROUNDS rounds,"
echo "1 thread, $CONNS connections; memcached SET:GET 1:10, $KEYS keys, ${VALUE}-byte values; engines here: $ENGINES"
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: other tenants' load shows in the spread)"

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
# the clients of one round, as "name command..." lines run in turn
mc_clients() {
    local p e
    for p in $PIPELINES; do
        # the default (--engine auto): what a user gets, named by the engine it chose
        echo "mtload-default-p$p $MTL --server 127.0.0.1:$port --threads 1 --conns $CONNS --pipeline $p --ratio 1:10 --keys $KEYS --value-size $VALUE --duration ${DURATION}s --quiet --json $TMP/mtload-default-p$p.json"
        for e in $ENGINES; do
            echo "mtload-$e-p$p $MTL --engine $e --server 127.0.0.1:$port --threads 1 --conns $CONNS --pipeline $p --ratio 1:10 --keys $KEYS --value-size $VALUE --duration ${DURATION}s --quiet"
            echo "floor-$e-p$p $FLOOR $e $port $CONNS $p $DURATION $KEYS $VALUE"
        done
        # memtier: the keys mtload preloaded (mtl:1..mtl:KEYS-1; --key-minimum must be >= 1)
        [ -n "$MEMTIER" ] &&
            echo "memtier-p$p $MEMTIER -s 127.0.0.1 -p $port -P memcache_text -t 1 -c $CONNS --pipeline $p --ratio 1:10 --key-prefix mtl: --key-minimum 1 --key-maximum $((KEYS - 1)) --key-pattern R:R -d $VALUE --test-time $DURATION --hide-histogram"
    done
    command -v memcaslap >/dev/null &&
        echo "memcaslap-p1 memcaslap -s 127.0.0.1:$port -T 1 -c $CONNS -t ${DURATION}s -F $TMP/memcaslap.cfg"
}
command -v memcaslap >/dev/null || echo "  memcaslap not installed (libmemcached-tools): skipped"
[ -n "$MEMTIER" ] && echo "  memtier: $MEMTIER ($("$MEMTIER" --version 2>/dev/null | head -n 1))"
[ -n "$MEMTIER" ] || echo "  memtier_benchmark not found (MEMTIER=/path/to/memtier_benchmark): skipped"
mapfile -t MC < <(mc_clients)
# run_rounds OPS-COMMAND LINES...: every line once per round, rotated per round
run_rounds() {
    local opscmd=$1; shift
    local lines=("$@") n=$# r i
    for r in $(seq "$ROUNDS"); do
        ROUND=$r
        echo "  round $r/$ROUNDS ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))" >&2
        for i in $(seq 0 $((n - 1))); do
            # shellcheck disable=SC2086
            set -- ${lines[$(((i + r - 1) % n))]}
            local name=$1; shift
            measure "$name" "$opscmd" -- "$@"
        done
    done
}
run_rounds "$MCOPS" "${MC[@]}"

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
    HT=("mtload-http-default-p1 $MTL --protocol http --server 127.0.0.1:$hport --threads 1 --conns $CONNS --pipeline 1 --paths /1k.html --duration ${DURATION}s --quiet --json $TMP/mtload-http-default-p1.json")
    for e in $ENGINES; do
        HT+=("mtload-http-$e-p1 $MTL --engine $e --protocol http --server 127.0.0.1:$hport --threads 1 --conns $CONNS --pipeline 1 --paths /1k.html --duration ${DURATION}s --quiet")
        HT+=("floor-http-$e-p1 $FLOOR $e $hport $CONNS 1 $DURATION http /1k.html")
    done
    if command -v wrk >/dev/null; then
        HT+=("wrk-p1 wrk -t1 -c$CONNS -d${DURATION}s http://127.0.0.1:$hport/1k.html")
    else
        echo "  wrk not installed: skipped"
    fi
    run_rounds "$NGOPS" "${HT[@]}"
else
    echo "  nginx not installed: HTTP comparison skipped"
fi

# ---- report ---------------------------------------------------------------------
echo
"$PY" - "$RESULTS" "$TMP" <<'PY'
import sys, json, os, statistics as st
runs, order = {}, []
for line in open(sys.argv[1]):
    name, ops, u, s, e, r = line.split()
    if name not in runs:
        runs[name] = []; order.append(name)
    cpu = float(u) + float(s)
    runs[name].append((int(ops), float(u), float(s), float(e), int(ops) / cpu if cpu > 0 else 0.0))
med = {}
print(f"{'client':<22} {'ops/s':>9} {'user s':>7} {'sys s':>7} {'ops/client-CPU-s':>17} {'spread of rounds':>22}")
for name in order:
    rs = runs[name]
    eff = [x[4] for x in rs]
    m = st.median(eff); med[name] = m
    ops_s = st.median([x[0] / x[3] if x[3] else 0 for x in rs])
    spread = f"{min(eff):.0f}-{max(eff):.0f} (±{(max(eff) - min(eff)) / 2 / m * 100 if m else 0:.0f}%)"
    print(f"{name:<22} {ops_s:>9.0f} {st.median([x[1] for x in rs]):>7.2f} {st.median([x[2] for x in rs]):>7.2f} {m:>17.0f} {spread:>22}  n={len(rs)}")
print()
def per_round(a, b):
    # a's operations per client CPU-second over b's, round by round (the rounds are interleaved,
    # so a round's two runs share the machine's state)
    return [x[4] / y[4] for x, y in zip(runs[a], runs[b]) if y[4] > 0]
def judge(rr, target, below=False):
    # the median of the per-round ratios against a target: ok, MISSED when every round misses it,
    # undecided when the rounds fall on both sides (the machine's noise is larger than the gap)
    # (judged as shown: to two decimals)
    good = [(round(x, 2) <= target if below else round(x, 2) >= target) for x in rr]
    r = round(st.median(rr), 2)
    v = "ok" if (r <= target if below else r >= target) else "MISSED" if not any(good) else \
        f"undecided ({sum(good)} of {len(rr)} rounds meet it: more ROUNDS)"
    return f"(target {'<=' if below else '>='} {target}) {v}"
def ratio(a, b, what, target=None, below=False):
    if a in med and b in med and med[b] > 0:
        rr = per_round(a, b)
        r = st.median(rr)
        verdict = judge(rr, target, below) if target is not None else ""
        print(f"{a}/{b}: {r:.2f}x {what}, rounds {min(rr):.2f}-{max(rr):.2f} {verdict}")
print("ops per client CPU-second, mtload against the others (higher is better):")
ratio("mtload-default-p1", "memcaslap-p1", "")
ratio("mtload-io_uring-p1", "memcaslap-p1", "", 1.3)
ratio("mtload-epoll-p1", "memcaslap-p1", "")
# memtier at both depths: mtload as a user runs it (auto), and each engine
ratio("mtload-default-p1", "memtier-p1", "", 1.0)
ratio("mtload-default-p16", "memtier-p16", "", 1.0)
for e in ("io_uring", "epoll"):
    for p in ("p1", "p16"):
        ratio(f"mtload-{e}-{p}", f"memtier-{p}", "")
ratio("mtload-http-io_uring-p1", "wrk-p1", "", 1.3)
ratio("mtload-http-epoll-p1", "wrk-p1", "")
ratio("mtload-io_uring-p16", "mtload-epoll-p16", "", 1.0)
print("the floor against the others: the most any client can gain over them here:")
for fl in ("floor-io_uring-p1", "floor-epoll-p1"):
    ratio(fl, "memcaslap-p1", "")
for p in ("p1", "p16"):
    for e in ("io_uring", "epoll"):
        ratio(f"floor-{e}-{p}", f"memtier-{p}", "")
for fl in ("floor-http-io_uring-p1", "floor-http-epoll-p1"):
    ratio(fl, "wrk-p1", "")
ratio("mtload-io_uring-p1", "mtload-epoll-p1", "")
print("mtload's cost as a multiple of the floor's (CPU per operation; lower is better):")
for p in ("p1", "p16", "http-p1"):
    for e in ("io_uring", "epoll"):
        a, b = (f"mtload-http-{e}-p1", f"floor-http-{e}-p1") if p == "http-p1" else (f"mtload-{e}-{p}", f"floor-{e}-{p}")
        if a in med and b in med and med[a] > 0:
            rr = per_round(b, a)
            print(f"{a} vs {b}: {st.median(rr):.2f}x, rounds {min(rr):.2f}-{max(rr):.2f} {judge(rr, 1.15, True)}")
    pre = "floor-http" if p == "http-p1" else "floor"
    fl = [f"{pre}-{e}-{p[-2:] if p == 'http-p1' else p}" for e in ("io_uring", "epoll")]
    fl = [k for k in fl if k in med]
    if fl:
        best = max(fl, key=lambda k: med[k])
        for e in ("io_uring", "epoll"):
            a = f"mtload-http-{e}-p1" if p == "http-p1" else f"mtload-{e}-{p}"
            if a in med and med[a] > 0:
                rr = per_round(best, a)
                print(f"{a} vs the best floor ({best}): {st.median(rr):.2f}x")
# the default engine (--engine auto) is never the slower one: against epoll, and
# within 1.1x of the best floor (the least CPU per operation any client spends here)
print("the default (--engine auto) against epoll and the floor:")
for p, dflt, ep, floors in (("p1", "mtload-default-p1", "mtload-epoll-p1", ("floor-io_uring-p1", "floor-epoll-p1")),
                            ("p16", "mtload-default-p16", "mtload-epoll-p16", ("floor-io_uring-p16", "floor-epoll-p16")),
                            ("http-p1", "mtload-http-default-p1", "mtload-http-epoll-p1",
                             ("floor-http-io_uring-p1", "floor-http-epoll-p1"))):
    if dflt not in med or med[dflt] <= 0:
        continue
    try:
        d = json.load(open(os.path.join(sys.argv[2], dflt + ".json")))
        eng, note = d.get("engine", "?"), d.get("engine_note", "")
    except (OSError, ValueError):
        eng, note = "?", ""
    line = f"{dflt}: auto ran {eng}" + (f" ({note})" if note else "")
    if ep in med and med[ep] > 0:
        rr = per_round(dflt, ep)
        same = eng == "epoll"
        line += f"; vs epoll {st.median(rr):.2f}x, rounds {min(rr):.2f}-{max(rr):.2f} " + \
                ("(the same engine)" if same else judge(rr, 1.0))
    fl = [k for k in floors if k in med]
    if fl:
        best = max(fl, key=lambda k: med[k])
        rr = per_round(best, dflt)
        line += f"; the best floor ({best}) {st.median(rr):.2f}x, rounds {min(rr):.2f}-{max(rr):.2f} {judge(rr, 1.1, True)}"
    print(line)
PY
