#!/bin/bash
# HdrHistogram's formats against HdrHistogram's own Java implementation
# (Debian libhdrhistogram-java, a test-only dependency): mtload's .hlog read by
# HistogramLogProcessor gives mtload's JSON figures; its .hgrm is line for line
# Java's; a log written by Java's HistogramLogWriter is read by `mtebench
# report` with Java's figures; two hosts' logs merged equal their merged
# histogram; bad logs are named errors and leave nothing written.
# Real memcached (native), real mtload; a real nginx under emu driven by wrk
# (its histogram as driver.hlog). About 15 s warm.
. "$(dirname "$0")/../../lib.sh"
MTL="$B/mtload"; MTB="$B/mtebench"
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
JAR=/usr/share/java/hdrhistogram.jar
[ -x "$MTL" ] && [ -x "$MTB" ] || skip_all "build/mtload or build/mtebench is not built"
[ -x /usr/bin/memcached ] || skip_all "memcached is not installed"
[ -f "$JAR" ] || skip_all "libhdrhistogram-java is not installed (make deps)"
command -v javac >/dev/null || skip_all "javac is not installed (default-jdk-headless; make deps)"
HLP() { java -cp "$JAR" org.HdrHistogram.HistogramLogProcessor "$@"; }

port=$(free_port)
spawn "$T_TMP/mc.log" /usr/bin/memcached -U 0 -l 127.0.0.1 -p "$port" -t 2 -u nobody >"$T_TMP/mc.pid"
wait_port "$port" 10 || { ok 1 "memcached listens"; dump "$T_TMP/mc.log"; done_testing; }
timeout 30 "$MTL" --server "127.0.0.1:$port" --preload --keys 2000 --conns 2 >/dev/null 2>&1

# two "client hosts" at once, each also writes .hgrm
pids=
for h in a b; do
    timeout 30 "$MTL" --server "127.0.0.1:$port" --keys 2000 --threads 2 --conns 4 --pipeline 4 --ratio 1:4 \
        --duration 2s --json "$T_TMP/$h.json" --hlog "$T_TMP/$h.hlog" --hgrm "$T_TMP/$h.hgrm" >"$T_TMP/$h.out" 2>&1 &
    pids="$pids $!"
done
wait $pids
for h in a b; do [ -s "$T_TMP/$h.hlog" ] && [ -s "$T_TMP/$h.json" ]; ok $? "mtload $h wrote its .hlog and JSON" || dump "$T_TMP/$h.out"; done
head -1 "$T_TMP/a.hlog" | grep -qx '#\[Histogram log format version 1.3\]'; ok $? ".hlog starts with the format version line"
grep -qx '#\[ValueUnit: ns\]' "$T_TMP/a.hlog"; ok $? ".hlog states its unit"

# ---- mtload's log read by HistogramLogProcessor ---------------------------
HLP -i "$T_TMP/a.hlog" -listtags >"$T_TMP/tags" 2>&1
is "$(grep -v Tags "$T_TMP/tags" | sort | tr '\n' ' ')" "GET GET-uncorrected SET SET-uncorrected request request-uncorrected " \
   "HistogramLogProcessor lists the tags"
for tag in request GET SET request-uncorrected; do
    HLP -i "$T_TMP/a.hlog" -tag "$tag" -csv -o "$T_TMP/j-$tag" >/dev/null 2>&1
done
"$PY" - "$T_TMP" <<'PY'
import csv, json, sys
d = sys.argv[1]
j = json.load(open(d + "/a.json"))
n = [0]; bad = [0]
def ok(c, what):
    n[0] += 1
    print("#", ("ok" if c else "NOT OK"), "-", what)
    if not c: bad[0] += 1
def rows(tag):
    return list(csv.DictReader(l for l in open("%s/j-%s" % (d, tag)) if not l.startswith("#")))
def width_us(v_us):               # mtload's bucket (2 significant digits) at v
    ns = int(v_us * 1000)
    e = ns.bit_length() - 1
    return (1 << max(e - 7, 0)) / 1000.0
def near(java_ms, mine_us, what):
    a, b = java_ms * 1000, mine_us
    ok(abs(a - b) <= width_us(max(a, b)) + 0.5 + 0.002 * 0,
       "%s: HdrHistogram %.3f us, mtload %.3f us (within one bucket)" % (what, a, b))
expect = {"request": j["latency_us"]["corrected"]["count"], "GET": j["totals"]["gets"],
          "SET": j["totals"]["sets"], "request-uncorrected": j["latency_us"]["uncorrected"]["count"]}
for tag, want in expect.items():
    r = rows(tag)
    ok(int(r[-1]["Total_Count"]) == want, "%s: total count %s = mtload's %d" % (tag, r[-1]["Total_Count"], want))
r = rows("request")
last = r[-1]
c = j["latency_us"]["corrected"]
for col, key in (("Total_50%", "p50"), ("Total_99%", "p99"), ("Total_99.9%", "p99.9"), ("Total_Max", "max")):
    near(float(last[col]), c[key], "request %s" % key)
ok(len(r) == len(j["timeseries"]), "one interval per second of the time series (%d)" % len(r))
ok([int(x["Int_Count"]) for x in r] == [s["ops"] for s in j["timeseries"]],
   "per-interval counts are the time series' ops per second")
print("# %d checks, %d failed" % (n[0], bad[0]))
sys.exit(1 if bad[0] else 0)
PY
ok $? "HistogramLogProcessor's figures match mtload's JSON"

# .hgrm: Java's percentile listing of the same distribution, line for line
HLP -i "$T_TMP/a.hlog" -tag request -o "$T_TMP/j-hgrm" >/dev/null 2>&1
grep -v '^#\[Overall\|^#\[StartTime' "$T_TMP/j-hgrm.hgrm" >"$T_TMP/java.hgrm"
diff "$T_TMP/java.hgrm" "$T_TMP/a.hgrm" >"$T_TMP/hgrm.diff"
ok $? "mtload's .hgrm is HdrHistogram's outputPercentileDistribution, line for line" || dump "$T_TMP/hgrm.diff" 10

# ---- mtebench report reads mtload's log: the JSON's figures ---------------
"$MTB" report --out "$T_TMP/rep" --name own "$T_TMP/a.hlog" >"$T_TMP/own.out" 2>&1
ok $? "mtebench report reads mtload's .hlog" || dump "$T_TMP/own.out"
"$PY" - "$T_TMP/rep/own/summary.json" "$T_TMP/a.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["configs"][0]; j = json.load(open(sys.argv[2]))["latency_us"]["corrected"]
bad = [k for k, m in (("p50_us", "p50"), ("p99_us", "p99"), ("p999_us", "p99.9")) if abs(s[k]["median"] - j[m]) > 0.002]
print("# report", {k: s[k]["median"] for k in ("p50_us", "p99_us", "p999_us")}, "mtload", {m: j[m] for m in ("p50", "p99", "p99.9")})
sys.exit(1 if bad else 0)
PY
ok $? "the report's p50/p99/p99.9 of the log are mtload's JSON figures"

# ---- a log written by HdrHistogram's Java implementation --------------------
javac -cp "$JAR" -d "$T_TMP" "$ROOT/tests/java/HlogWrite.java" 2>"$T_TMP/javac.err"
ok $? "the Java log writer compiles" || dump "$T_TMP/javac.err"
java -cp "$JAR:$T_TMP" HlogWrite "$T_TMP/java-unit.hlog" yes >"$T_TMP/java.fig"
java -cp "$JAR:$T_TMP" HlogWrite "$T_TMP/java-nounit.hlog" no >/dev/null
"$MTB" report --out "$T_TMP/rep" --name java "$T_TMP/java-unit.hlog" >"$T_TMP/java.out" 2>&1
ok $? "mtebench report reads HdrHistogram's own log (#[ValueUnit: us])" || dump "$T_TMP/java.out"
"$MTB" report --out "$T_TMP/rep" --name java2 --hlog-unit us "$T_TMP/java-nounit.hlog" >"$T_TMP/java2.out" 2>&1
ok $? "... and one without a unit line, given --hlog-unit us" || dump "$T_TMP/java2.out"
for r in java java2; do
"$PY" - "$T_TMP/rep/$r/summary.json" "$T_TMP/java.fig" "$T_TMP/rep/$r/runs.csv" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))["configs"][0]
fig = dict(l.split() for l in open(sys.argv[2]))
run = list(csv.DictReader(open(sys.argv[3])))[0]
def width_us(v):
    ns = int(v * 1000); e = ns.bit_length() - 1
    return (1 << max(e - 7, 0)) / 1000.0
bad = []
if int(run["requests"]) != int(fig["count"]):
    bad.append("count %s != %s" % (run["requests"], fig["count"]))
for k, m in (("p50_us", "p50"), ("p99_us", "p99"), ("p999_us", "p99.9")):
    a, b = s[k]["median"], float(fig[m])
    if abs(a - b) > width_us(max(a, b)) + 1.0:     # + HdrHistogram's own 1 us bucket (3 digits)
        bad.append("%s %.3f vs Java %.3f" % (k, a, b))
print("# Java", fig, "report", {k: s[k]["median"] for k in ("p50_us", "p99_us", "p999_us")}, bad)
sys.exit(1 if bad else 0)
PY
ok $? "[$r] count and p50/p99/p99.9 are Java's (within one bucket)"
done

# ---- two hosts merged ---------------------------------------------------------
"$MTB" hlog-merge "$T_TMP/ab.hlog" "$T_TMP/a.hlog" "$T_TMP/b.hlog" 2>"$T_TMP/merge.err"
ok $? "hlog-merge writes the merged log" || dump "$T_TMP/merge.err"
HLP -i "$T_TMP/ab.hlog" -tag request -csv -o "$T_TMP/j-ab" >/dev/null 2>&1
"$MTB" report --out "$T_TMP/rep" --name ab "$T_TMP/ab.hlog" >/dev/null 2>&1
"$PY" - "$T_TMP" <<'PY'
import csv, json, math, sys
d = sys.argv[1]
a, b = (json.load(open("%s/%s.json" % (d, h))) for h in "ab")
hist = {}
for j in (a, b):
    for v, c in j["histogram"]:
        hist[v] = hist.get(v, 0) + c
vals = sorted(hist); total = sum(hist.values())
def pct(p):
    x = p / 100.0 * total; want = max(1, math.ceil(x - x * 1e-12)); seen = 0
    for v in vals:
        seen += hist[v]
        if seen >= want: return v
r = [x for x in csv.DictReader(l for l in open(d + "/j-ab") if not l.startswith("#"))]
s = json.load(open(d + "/rep/ab/summary.json"))["configs"][0]
bad = []
if int(r[-1]["Total_Count"]) != a["latency_us"]["corrected"]["count"] + b["latency_us"]["corrected"]["count"]:
    bad.append("count")
ia = [x["ops"] for x in a["timeseries"]]; ib = [x["ops"] for x in b["timeseries"]]
if [int(x["Int_Count"]) for x in r] != [x + y for x, y in zip(ia, ib)]:
    bad.append("per-second counts")
for k, p in (("p50_us", 50), ("p99_us", 99), ("p999_us", 99.9)):
    if abs(s[k]["median"] - pct(p)) > 0.002:
        bad.append("%s %.3f vs merged histogram %.3f" % (k, s[k]["median"], pct(p)))
print("# merged:", bad)
sys.exit(1 if bad else 0)
PY
ok $? "merged log = the two hosts' histograms added: count, per-second counts, p50/p99/p99.9"

# ---- a merged configuration's .hgrm: two runs of one configuration added ----
mkdir -p "$T_TMP/d1" "$T_TMP/d2"; cp "$T_TMP/a.hlog" "$T_TMP/d1/run.hlog"; cp "$T_TMP/b.hlog" "$T_TMP/d2/run.hlog"
"$MTB" report --out "$T_TMP/rep" --name two "$T_TMP/d1/run.hlog" "$T_TMP/d2/run.hlog" >"$T_TMP/two.out" 2>&1
HLP -i "$T_TMP/ab.hlog" -tag request -o "$T_TMP/j-ab2" >/dev/null 2>&1
grep -v '^#\[Overall\|^#\[StartTime' "$T_TMP/j-ab2.hgrm" >"$T_TMP/java-ab.hgrm"
f=$(ls "$T_TMP"/rep/two/hgrm/*.hgrm 2>/dev/null)
is "$(echo "$f" | grep -c .)" 1 "report writes one .hgrm for the configuration of two runs" || dump "$T_TMP/two.out"
diff "$T_TMP/java-ab.hgrm" "$f" >"$T_TMP/two.diff" 2>&1
ok $? "... and it is HdrHistogram's listing of the two runs' histograms added" || dump "$T_TMP/two.diff" 10

# ---- another driver (wrk): its histogram as driver.hlog beside the record ----
if [ -x /usr/bin/wrk ]; then
    "$MTB" run --service nginx --platform emu --workload wrk --duration 1 --warmup 0 --results "$T_TMP/nw" \
        >"$T_TMP/nw.out" 2>&1
    rec=$(ls "$T_TMP"/nw/*/record.json 2>/dev/null)
    is "$(jq -r '.load.hlog' "$rec" 2>/dev/null)" driver.hlog "a wrk run names driver.hlog in its record" || dump "$T_TMP/nw.out"
    HLP -i "$(dirname "$rec")/driver.hlog" -tag request -csv -o "$T_TMP/j-wrk" >/dev/null 2>&1
    "$PY" - "$T_TMP/j-wrk" "$rec" <<'PY'
import csv, json, sys
r = [x for x in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))][-1]
s = json.load(open(sys.argv[2]))["summary"]
p99 = float(r["Total_99%"]) * 1000
ns = int(s["p99_us"] * 1000); w = (1 << max(ns.bit_length() - 8, 0)) / 1000.0
print("# wrk: HdrHistogram count %s p99 %.1f us; record %d, %.1f us" % (r["Total_Count"], p99, s["requests"], s["p99_us"]))
sys.exit(0 if int(r["Total_Count"]) == s["requests"] and abs(p99 - s["p99_us"]) <= w + 0.5 else 1)
PY
    ok $? "HistogramLogProcessor reads it: the record's requests and p99 (within one bucket)"
else
    ok 0 "# SKIP wrk is not installed"
fi

# ---- bad logs: named errors, nothing written --------------------------------
awk 'NR==8{ $0=substr($0,1,length($0)-24) }1' "$T_TMP/a.hlog" >"$T_TMP/cut.hlog"
awk 'NR==8{ $0=substr($0,1,length($0)-40) "AAAAAAAAAAAAAAAAAAAA" substr($0,length($0)-19) }1' "$T_TMP/a.hlog" >"$T_TMP/corrupt.hlog"
head -c 300 "$T_TMP/a.hlog" >"$T_TMP/short.hlog"
sed 's/ValueUnit: ns/ValueUnit: bytes/' "$T_TMP/a.hlog" >"$T_TMP/unit.hlog"
for b in cut:'cut.hlog:8: truncated histogram' corrupt:'corrupt.hlog:8: corrupt compressed histogram' \
         short:'short.hlog: no intervals' unit:"unit.hlog:3: unit 'bytes' is not a time unit"; do
    n=${b%%:*}; want=${b#*:}
    "$MTB" report --out "$T_TMP/rep" --name "bad-$n" "$T_TMP/$n.hlog" >"$T_TMP/bad-$n.out" 2>&1
    st=$?
    is "$st" 2 "$n log: exit 2"
    grep -qF "$want" "$T_TMP/bad-$n.out"; ok $? "$n log: named error ($want)" || dump "$T_TMP/bad-$n.out" 3
    [ ! -e "$T_TMP/rep/bad-$n" ]; ok $? "$n log: no report written"
done
"$MTB" hlog-merge "$T_TMP/m.hlog" "$T_TMP/a.hlog" "$T_TMP/cut.hlog" >"$T_TMP/bad-merge.out" 2>&1
is "$?" 2 "hlog-merge of a cut log: exit 2"
[ -z "$(ls "$T_TMP" | grep '^m\.hlog')" ]; ok $? "hlog-merge of a cut log leaves no output nor temporary file"
done_testing
