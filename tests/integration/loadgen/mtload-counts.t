#!/bin/bash
# mtload's counts against the servers' own counters: memcached `stats`
# (cmd_set, cmd_get) and nginx `stub_status` (requests), for every engine
# usable here (epoll, io_uring).
. "$(dirname "$0")/../../lib.sh"
MTL="$B/mtload"
# the system python: a version-manager shim can take seconds per start
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
[ -x "$MTL" ] || skip_all "build/mtload is not built"
[ -x /usr/bin/memcached ] || skip_all "memcached is not installed"

# jget FILE KEY.PATH: one field of a JSON file
jget() { "$PY" -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[k]
print(str(v).lower() if isinstance(v,bool) else v)' "$1" "$2"; }

# mc_stat PORT NAME: a memcached general statistic
mc_stat() { "$PY" - "$1" "$2" <<'PY'
import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=5)
s.sendall(b"stats\r\n"); buf=b""
while not buf.endswith(b"END\r\n"): buf+=s.recv(65536)
for l in buf.decode().split("\r\n"):
    f=l.split()
    if len(f)==3 and f[1]==sys.argv[2]: print(f[2])
PY
}

# run_mtload NAME ARGS...: run bounded in time; output in $T_TMP/NAME.{out,err,json}
run_mtload() {
    local name=$1; shift
    timeout 60 "$MTL" --engine "$E" --json "$T_TMP/$E-$name.json" "$@" >"$T_TMP/$E-$name.out" 2>"$T_TMP/$E-$name.err"
}

# ---- memcached ---------------------------------------------------------
port=$(free_port)
spawn "$T_TMP/mc.log" /usr/bin/memcached -U 0 -l 127.0.0.1 -p "$port" -t 1 -u nobody >"$T_TMP/mc.pid"
if ! wait_port "$port" 10; then
    ok 1 "memcached listens on $port"; dump "$T_TMP/mc.log"; done_testing
fi
for E in $(mtload_engines); do
diag "engine $E"
    set0=$(mc_stat "$port" cmd_set); get0=$(mc_stat "$port" cmd_get)

    run_mtload pre --server "127.0.0.1:$port" --preload --keys 5000 --conns 4 --pipeline 8
    ok $? "[$E] preload exits 0" || true
    is "$(jget "$T_TMP/$E-pre.json" totals.sets)" 5000 "[$E] preload SETs every key once"
    is "$(jget "$T_TMP/$E-pre.json" schema)" "mtload/1" "[$E] JSON schema mtload/1"

    run_mtload closed --server "127.0.0.1:$port" --keys 5000 --threads 2 --conns 8 --pipeline 4 \
        --ratio 1:4 --duration 2s --hgrm "$T_TMP/$E-closed.hgrm"
    ok $? "[$E] closed-loop run exits 0"
    run_mtload open --server "localhost:$port" --keys 5000 --conns 4 --rate 3000 --arrival poisson \
        --requests 3000 --key-pattern zipf:0.99 --value-size 100:8,2000:2
    ok $? "[$E] open-loop run exits 0"
    run_mtload miss --server "127.0.0.1:$port" --keys 1000 --key-prefix nokey: --ratio 0:1 --requests 500
    ok $? "[$E] all-miss run exits 0"

    set1=$(mc_stat "$port" cmd_set); get1=$(mc_stat "$port" cmd_get)
    sets=0; gets=0
    for r in pre closed open miss; do
        sets=$((sets + $(jget "$T_TMP/$E-$r.json" totals.sets)))
        gets=$((gets + $(jget "$T_TMP/$E-$r.json" totals.gets)))
    done
    is "$((set1 - set0))" "$sets" "[$E] memcached cmd_set delta equals mtload's SETs ($sets)"
    is "$((get1 - get0))" "$gets" "[$E] memcached cmd_get delta equals mtload's GETs ($gets)"
    is "$(jget "$T_TMP/$E-open.json" totals.requests)" 3000 "[$E] --requests 3000 gives 3000 requests"
    is "$(jget "$T_TMP/$E-miss.json" totals.misses)" 500 "[$E] unknown keys are counted as misses"
    c=$(jget "$T_TMP/$E-closed.json" totals.gets); h=$(jget "$T_TMP/$E-closed.json" totals.hits)
    is "$h" "$c" "[$E] after preload every GET hits"
    errs=$("$PY" -c 'import json,sys
t=0
for f in sys.argv[1:]:
    e=json.load(open(f))["totals"]["errors"]; t+=sum(e.values())
print(t)' "$T_TMP/$E"-{pre,closed,open,miss}.json)
    is "$errs" 0 "[$E] no errors of any kind"
    "$PY" - "$T_TMP/$E-closed.json" <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
need={"schema","config","duration_s","totals","latency_us","histogram","timeseries","cpu"}
assert need <= set(d), need - set(d)
for v in ("corrected","uncorrected"):
    assert set(d["latency_us"][v]) >= {"mean","p50","p90","p99","p99.9","p99.99","max","count"}
assert sum(c for _, c in d["histogram"]) == d["latency_us"]["corrected"]["count"] == d["totals"]["requests"]
assert len(d["timeseries"]) >= 2 and all(set(s) >= {"t","ops","p50_us","p99_us","errors"} for s in d["timeseries"])
assert sum(s["ops"] for s in d["timeseries"]) == d["totals"]["requests"]
assert len(d["cpu"]["threads"]) == 2 and isinstance(d["cpu"]["client_bound"], bool)
assert d["latency_us"]["corrected"]["p50"] <= d["latency_us"]["corrected"]["p99"] <= d["latency_us"]["corrected"]["max"]
PY
    ok $? "[$E] JSON has the documented fields, consistent histogram and time series"
    grep -q '#\[Mean' "$T_TMP/$E-closed.hgrm" && grep -q '1.000000000000' "$T_TMP/$E-closed.hgrm"
    ok $? "[$E] .hgrm file written"
    if [ "$T_FAIL" != 0 ]; then
        for r in pre closed open miss; do diag "--- $r"; dump "$T_TMP/$E-$r.out"; dump "$T_TMP/$E-$r.err"; done
        dump "$T_TMP/mc.log"
    fi
    is "$(jget "$T_TMP/$E-closed.json" engine)" "$E" "[$E] the JSON records the engine that ran"
    is "$(jget "$T_TMP/$E-closed.json" config.engine)" "$E" "[$E] ... and the one asked for"
done

# ---- nginx -------------------------------------------------------------
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$NGINX" ]; then
    diag "nginx not installed: HTTP counts skipped"; done_testing
fi
hport=$(free_port)
ng="$T_TMP/nginx"
native_nginx_conf "$ng" "$hport" 'location = /chunked { default_type text/plain; return 200 "chunk"; }'
head -c 1024 /dev/zero | tr '\0' 'x' >"$ng/html/file.html"
spawn "$ng/logs/stdout.log" "$NGINX" -p "$ng" -c "$ng/nginx.conf" >"$T_TMP/ng.pid"
if ! wait_port "$hport" 10; then
    ok 1 "nginx listens on $hport"; dump "$ng/logs/stdout.log"; dump "$ng/logs/error.log"; done_testing
fi
# stub_status counts itself: the "requests" it reports includes that request
ng_requests() { curl -s "http://127.0.0.1:$hport/nginx_status" | awk 'NR==3 {print $3}'; }
for E in $(mtload_engines); do
    r0=$(ng_requests)
    run_mtload http --protocol http --server "127.0.0.1:$hport" --threads 2 --conns 8 \
        --pipeline 2 --paths /file.html:3,/missing:1 --duration 2s
    ok $? "[$E] HTTP run exits 0"
    r1=$(ng_requests)
    hreq=$(jget "$T_TMP/$E-http.json" totals.requests)
    is "$((r1 - r0 - 1))" "$hreq" "[$E] nginx stub_status requests delta equals mtload's requests ($hreq)"
    hm=$(jget "$T_TMP/$E-http.json" totals.misses); hh=$(jget "$T_TMP/$E-http.json" totals.hits)
    ok "$([ "$hm" -gt 0 ] && [ "$hh" -gt "$hm" ]; echo $?)" "[$E] 404s counted as misses ($hh hits, $hm misses)"
    is "$(jget "$T_TMP/$E-http.json" totals.errors.protocol)" 0 "[$E] no HTTP protocol errors"
    if [ "$T_FAIL" != 0 ]; then
        dump "$T_TMP/$E-http.out"; dump "$T_TMP/$E-http.err"; dump "$ng/logs/error.log"
    fi
done
done_testing

