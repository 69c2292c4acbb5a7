#!/bin/bash
# The report end to end: a real short bench of memcached under emu, a second
# "kernel" made from its records, `mtebench report` over both, and the HTML
# opened in headless Chromium (no console errors, no external requests,
# tables and SVG plots present, a screenshot saved beside the report).
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
command -v chromium >/dev/null || skip_all "chromium not installed (make deps)"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed (make deps)"

RES="$T_TMP/results"
name="t30-$$-$(date +%s)"
"$M" bench --service memcached --mode async --platform emu --reps 2 --duration 2 --warmup 0 \
    --results "$RES/$name" > "$T_TMP/bench.out" 2> "$T_TMP/bench.err"
is "$?" 0 "short emu bench (REPS=2, 2 s) succeeds" || dump "$T_TMP/bench.err"
html=$(awk '/^html:/{print $2}' "$T_TMP/bench.out")
ok "$(grep -q 'plain/off' "$T_TMP/bench.out" && [ -s "$html" ]; echo $?)" "make bench prints the table and the HTML report's path ($html)"
# bench writes under the checkout's reports/: remove what this test made
[ -n "$html" ] && rm -rf "$(dirname "$html")" "$ROOT/reports/$name.md"

# A second kernel. Until the vm platform lands there is only the host kernel,
# so the kernel comparison table is exercised by copying the records and
# renaming their kernel (config.kernel and kernel.name) with jq. The figures
# are the same runs: no difference is expected, and none should be claimed.
mkdir -p "$RES/fake-tcma1"
for d in "$RES/$name"/*/; do
    r=$(basename "$d"); mkdir -p "$RES/fake-tcma1/$r"
    jq '.config.kernel = "tcma1-fake" | .kernel.name = "tcma1-fake"' "$d/record.json" > "$RES/fake-tcma1/$r/record.json"
done

OUT="$T_TMP/reports"
"$M" report --name e2e --out "$OUT" "$RES/$name" "$RES/fake-tcma1" > "$T_TMP/rep.out" 2> "$T_TMP/rep.err"
is "$?" 0 "report over two result dirs exits 0" || dump "$T_TMP/rep.err"
R="$OUT/e2e"
for f in index.html report.md runs.csv summary.json; do
    ok "$( [ -s "$R/$f" ]; echo $?)" "$f written"
done
ok "$(grep -q "^report: $R/index.html" "$T_TMP/rep.out"; echo $?)" "the command prints the report's path"

# summary.json
S="$R/summary.json"
jqok() { ok "$(jq_e "$1" "$S" >/dev/null; echo $?)" "$2"; }
jqok '.schema == "mtebench-summary/1" and .emulated == true' "summary: schema, emulated"
jqok '[.configs[] | select(.runs == 2)] | length == 4' "summary: 4 configurations of 2 runs (2 variants x 2 kernels)"
jqok '.configs[0].ops_per_sec | .median > 0 and .lo <= .median and .median <= .hi and .conf == 0.5' "summary: median with CI; 2 runs achieve 50%"
jqok '.configs[0] | has("p50_us") and has("p90_us") and has("p99_us") and has("p999_us") and has("p9999_us")' "summary: every latency percentile"
jqok '[.overheads[] | select(.pairs == 2 and .slowdown.median > 0)] | length == 2' "summary: overhead per kernel, 2 pairs each"
jqok '[.geomeans[] | select(.slowdown.geomean > 0)] | length == 2' "summary: geometric mean per kernel"
jqok '.kernels | length == 2' "summary: kernel comparison for plain/off and tagged/async"
jqok '.kernels[0] | .kernel_a == "host" and .kernel_b == "tcma1-fake" and .pairs == 2 and (.delta.median | fabs) < 1e-9 and .significant == false' "kernel comparison: identical runs give delta 0, not significant"
jqok '.kernels[0].note | test("TCMA1") and test("platform emu")' "kernel note: no difference expected under emulation, platform named"
jqok '[.warnings[] | select(test("low confidence"))] | length >= 1' "warning: low confidence with 2 runs"
jqok '.environment | (.cpu_model|length) >= 1 and (.kernels|length) == 2 and (.builds|length) >= 2 and .first_started != null' "environment block"

# runs.csv: the documented columns, one row per run
hdr='record,status,service,variant,mode,platform,emulated,kernel,kernel_release,mix,keys,value_size,threads,conns,pipeline,duration_s,warmup_s,rate,arrival,timeout_s,service_threads,rep,index,started,finished,ops_per_sec,requests,errors,p50_us,p90_us,p99_us,p999_us,p9999_us,client_bound,build_key,mtebench_version,error,slowdown,p99_ratio,p999_ratio,host,allocator'
is "$(head -1 "$R/runs.csv" | tr -d '\r')" "$hdr" "runs.csv header = the documented columns"
is "$(($(wc -l < "$R/runs.csv") - 1))" 8 "runs.csv: one row per run (8)"
is "$(awk -F, 'NR==1{for(i=1;i<=NF;i++) c[$i]=i} NR>1 && $2=="ok" && $7=="true" && $c["ops_per_sec"]>0 && $c["service_threads"]>=1' "$R/runs.csv" | wc -l)" 8 "runs.csv rows: status ok, emulated, ops_per_sec, service_threads"

# the HTML: tables, plots, labels
H="$R/index.html"
ntab=$(grep -c '<table>' "$H"); nsvg=$(grep -c '<svg' "$H")
ok "$( [ "$ntab" -ge 5 ]; echo $?)" "HTML has the tables ($ntab)"
ok "$( [ "$nsvg" -ge 3 ]; echo $?)" "HTML has inline SVG plots: overhead, spectrum, time series ($nsvg)"
is "$(grep -c '<caption>.*emulated: not hardware timing' "$H")" "$ntab" "every table labelled emulated"
is "$(grep -c '>emulated: not hardware timing</text>' "$H")" "$nsvg" "every plot labelled emulated"
ok "$(grep -q 'id="kernels"' "$H" && grep -q 'TCMA1 effect shows only on MTE hardware' "$H"; echo $?)" "kernel comparison table with its note"
ok "$(grep -q 'Environment' "$H" && grep -q 'mtebench version' "$H"; echo $?)" "environment block"
ok "$(grep -q 'Kernel comparison' "$R/report.md" && grep -q 'emulated' "$R/report.md"; echo $?)" "report.md has the kernel table and the label"

# --- the page in headless Chromium ------------------------------------------
# How "no external requests" is checked, three ways that do not depend on
# the network being up or down:
#  1. statically: the page contains nothing that fetches (no <script>, <link>,
#     <img>, <iframe>, <object>, <embed>, src=, @import, url() other than
#     url(#local-id), and no href/xlink:href to http(s)). The SVGs' xmlns
#     attributes carry http://www.w3.org/... URIs: those are XML namespace
#     names, never fetched, so a plain grep for "http" would be wrong.
#  2. in the browser: a copy of the page gets a probe script that, on load,
#     writes the number of Resource Timing entries (every fetch the page made,
#     failed ones included) into <body data-resources>; --dump-dom shows it.
#     It must be 0.
#  3. --host-resolver-rules maps every host to NOTFOUND, so even a missed
#     reference cannot reach the network; and any console message (the page
#     has no scripts, so any message is an error) fails the test. Chromium
#     logs console messages to stderr as ":CONSOLE" lines (--enable-logging).
# A negative control page (an <img> from http and a console.error) must trip
# checks 2 and 3, proving they can fail.
CHROME_FLAGS=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
    --disable-component-update --disable-sync --user-data-dir="$T_TMP/chromium"
    --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0)
fetches() { grep -Eio '<script|<link|<img|<iframe|<object|<embed|src=|@import|url\([^#]|(xlink:)?href=.https?:' "$1" | sort | uniq -c; }
probe() { # probe PAGE OUTPREFIX: dump the DOM with the resource probe, log to OUTPREFIX.log
    sed 's#</body>#<script>window.addEventListener("load",function(){document.body.setAttribute("data-resources",String(performance.getEntriesByType("resource").length));});</script></body>#' \
        "$1" > "$2.html"
    timeout 90 chromium "${CHROME_FLAGS[@]}" --dump-dom "file://$2.html" > "$2.dom" 2> "$2.log"
}
is "$(fetches "$H")" "" "static: nothing in the page fetches"
probe "$H" "$T_TMP/page"
ok "$(grep -q 'data-resources="0"' "$T_TMP/page.dom"; echo $?)" "browser: the page made no requests (Resource Timing entries: 0)" \
    || dump "$T_TMP/page.log"
is "$(grep -c ':CONSOLE' "$T_TMP/page.log")" 0 "browser: no console messages" || grep ':CONSOLE' "$T_TMP/page.log" | sed 's/^/#   /'
is "$(grep -o '<table>' "$T_TMP/page.dom" | wc -l)" "$ntab" "browser DOM: the tables parsed"
is "$(grep -o '<svg' "$T_TMP/page.dom" | wc -l)" "$nsvg" "browser DOM: the SVG plots parsed"

printf '<!DOCTYPE html><html><head><title>neg</title></head><body><img src="http://example.invalid/x.png"><script>console.error("deliberate")</script></body></html>\n' > "$T_TMP/neg.html"
ok "$( [ -n "$(fetches "$T_TMP/neg.html")" ]; echo $?)" "negative control: static check flags a fetching page"
probe "$T_TMP/neg.html" "$T_TMP/negp"
ok "$(! grep -q 'data-resources="0"' "$T_TMP/negp.dom" && grep -q 'data-resources="[1-9]' "$T_TMP/negp.dom"; echo $?)" "negative control: the resource probe counts the blocked request"
ok "$(grep -q ':CONSOLE.*deliberate' "$T_TMP/negp.log"; echo $?)" "negative control: the console error is seen"

timeout 90 chromium "${CHROME_FLAGS[@]}" --screenshot="$R/screenshot.png" --window-size=1280,2000 "file://$H" \
    > "$T_TMP/shot.log" 2>&1
ok "$(file "$R/screenshot.png" | grep -q 'PNG image data, 1280 x 2000'; echo $?)" "screenshot saved beside the report (1280x2000 PNG)" || dump "$T_TMP/shot.log"
ok "$( [ "$(stat -c %s "$R/screenshot.png")" -gt 20000 ]; echo $?)" "screenshot is not blank (size $(stat -c %s "$R/screenshot.png") bytes)"
diag "report: $H (screenshot: $R/screenshot.png; removed with the test's temp dir)"
done_testing
