#!/bin/bash
# Records written by mtebench 6a9d852 (tests/fixtures/records-6a9d852: a
# `bench --service memcached --mode sync --platform emu --duration 2s
# --warmup 0s --reps 2` made by that commit) still load: `mtebench report`
# reports all four, `nightly --ingest` adds them, and the nightly's series
# keys are the ones 6a9d852 gave them (nightly-series.txt, written by 6a9d852's
# nightly from the same records), on host "unknown" (the records name none:
# schema 4 keys series by host too). A history written by 6a9d852 from them
# (history-schema2.sql, its SQLite dump) is migrated and keeps its series.
# Takes a few seconds.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
FX="$ROOT/tests/fixtures/records-6a9d852"
cp -r "$FX" "$T_TMP/records"
R="$T_TMP/records"

"$M" report --name old --out "$T_TMP/rep" "$R" > "$T_TMP/o1" 2> "$T_TMP/e1"
is "$?" 0 "report of 6a9d852's records: exit 0" || dump "$T_TMP/e1"
is "$(jq '[.configs[].runs] | add' "$T_TMP/rep/old/summary.json")" 4 "summary.json: the 4 runs are used"
is "$(jq '.overheads | length' "$T_TMP/rep/old/summary.json")" 1 "one overhead (tagged/sync against plain/off)"
is "$(jq '.overheads[0].pairs' "$T_TMP/rep/old/summary.json")" 2 "... of 2 pairs"
is "$(($(wc -l < "$T_TMP/rep/old/runs.csv") - 1))" 4 "runs.csv: 4 rows"
ok "$(grep -q 'tagged/sync' "$T_TMP/rep/old/report.md"; echo $?)" "report.md lists tagged/sync"
# p99.9 overhead (tagged p99.9 / baseline p99.9 per pair), from records that predate it
p999=$(jq '[.[] | select(.config.variant == "plain") | .summary.p999_us] as $b | [.[] | select(.config.variant == "tagged")] | map(.summary.p999_us / ($b[.config.rep - 1])) | sort | add / 2' -s "$R"/00[1234]*/record.json)
jqok() { ok "$(jq_e "$1" "$T_TMP/rep/old/summary.json" > /dev/null; echo $?)" "$2"; }
jqok '[.metrics.pair[] | select(.key == "p999_ratio" and .of == "p999_us")] | length == 1' "summary.json: the metric table describes p999_ratio"
jqok ".overheads[0].p999_ratio.median - $p999 | fabs < 1e-9" "summary.json: p99.9 overhead = median of the pairs' p99.9 ratios ($p999)"
ok "$(grep -q 'p99.9 overhead \[CI\]' "$T_TMP/rep/old/report.md" && grep -q '<th>p99.9 overhead</th>' "$T_TMP/rep/old/index.html"; echo $?)" "p99.9 overhead in report.md and index.html"
is "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^p999_ratio/) c = i } NR > 1 && $c != "" { n++ } END { print n }' <(tr -d '\r' < "$T_TMP/rep/old/runs.csv"))" 2 "runs.csv: p999_ratio on the 2 tagged rows"

H="$T_TMP/h.sqlite"
"$M" nightly --ingest "$R" --history "$H" --out "$T_TMP/dash" > "$T_TMP/o2" 2> "$T_TMP/e2"
is "$?" 0 "nightly --ingest of 6a9d852's records: exit 0" || dump "$T_TMP/e2"
is "$(sqlite3 "$H" 'SELECT count(*) FROM runs')" 4 "4 runs in the history"
is "$(sqlite3 "$H" 'SELECT count(*) FROM overheads')" 2 "2 overhead pairs"
is "$(sqlite3 "$H" 'SELECT count(*) FROM runs WHERE emulated = 1')" 4 "emulated from platform.emulated"
jq -r '.series[] | "\(.metric)\t\(.key)"' "$T_TMP/dash/analysis.json" | sort > "$T_TMP/series"
sed 's/#/ on unknown#/' "$FX/nightly-series.txt" | sort > "$T_TMP/old-series"   # 6a9d852's keys, on their host
missing=$(comm -23 "$T_TMP/old-series" "$T_TMP/series")
ok "$(grep -q '^p99.9 overhead	overhead:' "$T_TMP/series"; echo $?)" "the nightly analyses p99.9 overhead on the overhead series"
is "$(sqlite3 "$H" 'SELECT count(*) FROM overheads WHERE p999_ratio > 0')" 2 "history: p999_ratio of each pair"
is "$missing" "" "every nightly series of 6a9d852 is there with the same key and metric, on host unknown" || dump "$T_TMP/series"

# the history 6a9d852 wrote from the same records: migrated, same series
H2="$T_TMP/h2.sqlite"
sed "s#@RECORDS@#$R#g; s#@DASH@#$T_TMP/dash0#g" "$FX/history-schema2.sql" | sqlite3 "$H2"  # its paths made ours
is "$(sqlite3 "$H2" 'PRAGMA user_version')" 2 "6a9d852's history is schema 2"
"$M" nightly --ingest "$R" --history "$H2" --out "$T_TMP/dash2" > "$T_TMP/o3" 2> "$T_TMP/e3"
ok "$(grep -q 'already in the history\|night' "$T_TMP/e3"; echo $?)" "nightly opens and migrates it" || dump "$T_TMP/e3"
is "$(sqlite3 "$H2" 'PRAGMA user_version')" 6 "migrated to schema 6"
jq -r '.series[] | "\(.metric)\t\(.key)"' "$T_TMP/dash2/analysis.json" | sort > "$T_TMP/series2"
is "$(comm -23 "$T_TMP/old-series" "$T_TMP/series2")" "" "the migrated history keeps 6a9d852's series (on host unknown)" || dump "$T_TMP/series2"
is "$(sqlite3 "$H2" "SELECT count(*) FROM runs WHERE host = 'unknown'")" 4 "... its runs on host unknown"
is "$(sqlite3 "$H2" 'SELECT count(*) FROM runs')" 4 "no run added twice"
done_testing
