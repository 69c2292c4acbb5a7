#!/bin/bash
# --prom-textfile: bench and nightly write their figures as Prometheus
# textfiles that Debian's promtool accepts and node_exporter's textfile
# collector serves (scraped over loopback); a directory that cannot take them
# is refused by name before anything runs. One real memcached bench under emu
# (1 rep, 1 s) and the nightly ingesting the fixture records. About 20 s warm.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
command -v promtool >/dev/null || skip_all "promtool is not installed (prometheus; make deps)"
NE=$(command -v prometheus-node-exporter) || skip_all "prometheus-node-exporter is not installed (make deps)"
P="$T_TMP/prom"; mkdir -p "$P"

# ---- refused before anything runs ---------------------------------------
"$M" bench --service memcached --mode sync --platform emu --prom-textfile "$T_TMP/none" >"$T_TMP/e1" 2>&1
is "$?" 2 "a missing textfile directory: exit 2"
grep -q -- "--prom-textfile $T_TMP/none: No such file or directory" "$T_TMP/e1"; ok $? "... named" || dump "$T_TMP/e1"
touch "$T_TMP/file"
"$M" bench --service memcached --mode sync --platform emu --prom-textfile "$T_TMP/file" >"$T_TMP/e2" 2>&1
is "$?" 2 "a file as the textfile directory: exit 2"
grep -q "not a directory" "$T_TMP/e2"; ok $? "... named" || dump "$T_TMP/e2"
mkdir -p "$T_TMP/ro"; chmod 555 "$T_TMP/ro"; chmod 755 "$T_TMP"
runuser -u nobody -- "$M" nightly --ingest "$ROOT/tests/fixtures/records-6a9d852" --history "$T_TMP/ro/h.sqlite" \
    --out "$T_TMP/ro/out" --prom-textfile "$T_TMP/ro" >"$T_TMP/e3" 2>&1
is "$?" 2 "an unwritable textfile directory: exit 2"
grep -q "prom-textfile $T_TMP/ro: not writable" "$T_TMP/e3"; ok $? "... named" || dump "$T_TMP/e3"
is "$(ls -A "$T_TMP/ro" | wc -l)" 0 "... and nothing written there"

# ---- bench: a real run -------------------------------------------------------
"$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 1s --warmup 0 \
    --results "$T_TMP/r" --prom-textfile "$P" >"$T_TMP/bench.out" 2>"$T_TMP/bench.err"
is "$?" 0 "bench with --prom-textfile runs" || dump "$T_TMP/bench.err"
F="$P/mtebench-bench-memcached.prom"
[ -s "$F" ]; ok $? "bench wrote $(basename "$F")"
grep -q "prometheus: $F" "$T_TMP/bench.out"; ok $? "... and says where"
promtool check metrics <"$F" >"$T_TMP/pc1" 2>&1; ok $? "promtool check metrics passes on the bench's textfile" || dump "$T_TMP/pc1"
"$PY" - "$F" "$T_TMP/r/summary.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read(); s = json.load(open(sys.argv[2]))
def sample(name, **lab):
    for l in text.splitlines():
        if not l.startswith(name + "{"): continue
        labs = dict(re.findall(r'(\w+)="([^"]*)"', l.split("}")[0]))
        if all(labs.get(k) == v for k, v in lab.items()): return float(l.rsplit(" ", 1)[1]), labs
    return None, None
bad = []
for c in s["configs"]:
    v, labs = sample("mtebench_ops_per_second", service=c["service"], variant=c["variant"], mode=c["mode"], stat="median")
    if v is None or abs(v - c["ops_per_sec"]["median"]) > 1e-6 * c["ops_per_sec"]["median"]:
        bad.append("ops/s of %s/%s: %s vs %s" % (c["variant"], c["mode"], v, c["ops_per_sec"]["median"]))
    v, _ = sample("mtebench_latency_seconds", variant=c["variant"], mode=c["mode"], percentile="99", stat="median")
    if v is None or abs(v - c["p99_us"]["median"] / 1e6) > 1e-12:
        bad.append("p99 of %s/%s" % (c["variant"], c["mode"]))
    for k in ("service", "variant", "mode", "platform", "kernel", "host", "version"):
        if not labs or k not in labs: bad.append("label %s missing" % k)
o = s["overheads"][0]
for stat, key in (("median", "median"), ("ci_low", "lo"), ("ci_high", "hi")):
    v, _ = sample("mtebench_overhead_ratio", variant=o["variant"], mode=o["mode"], metric="throughput", stat=stat)
    if v is None or abs(v - o["slowdown"][key]) > 1e-9: bad.append("overhead %s" % stat)
print("# textfile vs summary.json:", bad or "same figures")
sys.exit(1 if bad else 0)
PY
ok $? "the textfile's ops/s, p99 and overhead (median, CI bounds) are summary.json's, every label present"
[ -z "$(ls -A "$P" | grep -v '\.prom$')" ]; ok $? "no temporary file left in the textfile directory"

# ---- nightly -----------------------------------------------------------------
"$M" nightly --ingest "$ROOT/tests/fixtures/records-6a9d852" --history "$T_TMP/h.sqlite" --out "$T_TMP/dash" \
    --prom-textfile "$P" >"$T_TMP/n.out" 2>&1
st=$?; ok "$([ $st = 0 ] || [ $st = 3 ]; echo $?)" "nightly --ingest with --prom-textfile (exit $st)" || dump "$T_TMP/n.out"
promtool check metrics <"$P/mtebench-nightly.prom" >"$T_TMP/pc2" 2>&1
ok $? "promtool check metrics passes on the nightly's textfile" || dump "$T_TMP/pc2"

# ---- node_exporter's textfile collector serves them ---------------------------
port=$(free_port)
spawn "$T_TMP/ne.log" "$NE" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$P" \
    --web.listen-address="127.0.0.1:$port" >"$T_TMP/ne.pid"
wait_port "$port" 10; ok $? "node_exporter listens on 127.0.0.1:$port" || dump "$T_TMP/ne.log"
"$PY" - "$port" >"$T_TMP/scrape" <<'PY'
import sys, urllib.request
print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=10).read().decode())
PY
grep -q '^mtebench_ops_per_second{.*service="memcached".*stat="median".*} ' "$T_TMP/scrape"
ok $? "the scrape serves the bench's mtebench_ops_per_second" || dump "$T_TMP/scrape" 20
grep -q '^mtebench_overhead_ratio{.*platform="emu".*' "$T_TMP/scrape"; ok $? "... and the overheads"
grep -q '^node_textfile_scrape_error 0' "$T_TMP/scrape"; ok $? "node_textfile_scrape_error is 0 (both files parsed)"
is "$(grep -c '^node_textfile_mtime_seconds{file=".*mtebench-\(bench-memcached\|nightly\)\.prom"}' "$T_TMP/scrape")" 2 \
   "both textfiles were read"
done_testing
