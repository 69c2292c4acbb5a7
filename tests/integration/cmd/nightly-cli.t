#!/bin/bash
# mtebench nightly without running services: bad options, a corrupt history
# or an unreachable PostgreSQL server refused before anything runs, and --ingest of result
# directories (records rewritten from a template, so no run is needed).
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"

"$M" nightly --threshold 2 > /dev/null 2> "$T_TMP/e1"
is "$?" 2 "--threshold 2 refused"
ok "$(grep -q "not a p-value" "$T_TMP/e1"; echo $?)" "and named"
echo "a note, not a database" > "$T_TMP/corrupt.sqlite"
"$M" nightly --history "$T_TMP/corrupt.sqlite" --ingest "$T_TMP" > /dev/null 2> "$T_TMP/e2"
is "$?" 4 "corrupt history: exit 4" || dump "$T_TMP/e2"
ok "$(grep -q 'is corrupt.*not starting a new history' "$T_TMP/e2"; echo $?)" "reported as corrupt"
is "$(cat "$T_TMP/corrupt.sqlite")" "a note, not a database" "and left as it was"
# nothing listens on port 1: refused before anything runs (the PostgreSQL
# history itself: history-postgresql.t)
"$M" nightly --history 'postgresql://lab:pw-s3cret@127.0.0.1:1/mtebench' --ingest "$T_TMP" > "$T_TMP/o3" 2> "$T_TMP/e3"
is "$?" 4 "PostgreSQL server unreachable: exit 4"
ok "$(grep -Eq 'postgresql://lab:\*\*\*@127.0.0.1:1/mtebench: (cannot connect to PostgreSQL|.*built without libpq)' "$T_TMP/e3"; echo $?)" \
    "says it cannot connect (or mtebench is built without libpq)" || dump "$T_TMP/e3"
ok "$(! grep -q 's3cret' "$T_TMP/e3" "$T_TMP/o3"; echo $?)" "without the password"

# three ingested nights of synthetic records: the third 30% slower
mk() { # mk NIGHT DAY FACTOR
    for rep in 1 2 3 4 5 6; do
        d="$T_TMP/n$1/00$rep-plain-off"; mkdir -p "$d"
        jq -n --argjson rep $rep --argjson f "$3" --arg day "$2" '{schema:"mtebench-run/1", status:"ok",
          started:"2026-01-\($day)T01:0\($rep):00Z", mtebench_version:"v1", config:{service:"memcached",
          variant:"plain", mode:"off", platform:"emu", kernel:"host", plan:"ingest", rep:$rep,
          workload:{name:"default", mix:"1:10", conns:16, duration_s:1}}, build:{key:"b1"},
          kernel:{uname_r:"6.1", uname_v:"#1"}, machine:{name:"auto"},
          summary:{ops_per_sec:(10000 * $f + 137 * ($rep % 3)), p50_us:50, p99_us:(200 / $f), p999_us:400}}' > "$d/record.json"
    done
}
mk 1 01 1; mk 2 02 1; mk 3 03 1; mk 4 04 1
"$M" nightly --history "$T_TMP/h.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n1" "$T_TMP/n2" "$T_TMP/n3" > "$T_TMP/o1" 2>&1
is "$?" 0 "three steady nights ingested: exit 0" || dump "$T_TMP/o1"
"$M" nightly --history "$T_TMP/h.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n1" > "$T_TMP/o2" 2>&1
ok "$(grep -q 'already in the history' "$T_TMP/o2"; echo $?)" "ingesting a night twice adds nothing"
is "$(sqlite3 "$T_TMP/h.sqlite" 'SELECT count(*) FROM nights')" 3 "still 3 nights"
mk 5 05 0.7
"$M" nightly --history "$T_TMP/h.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n4" "$T_TMP/n5" > "$T_TMP/o3" 2>&1
is "$?" 3 "a 30% slower night: exit 3" || dump "$T_TMP/o3"
ok "$(jq_e '[.new[] | .metric] | sort == ["p99","throughput"]' "$T_TMP/d/analysis.json" >/dev/null; echo $?)" "throughput down and p99 up both reported"
ok "$(grep -q 'same revisions' "$T_TMP/d/digest.md"; echo $?)" "digest names the revisions either side"
"$M" nightly --history "$T_TMP/h.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n5" > "$T_TMP/o4" 2>&1
is "$?" 0 "next run without new nights: the regression is open, not new (exit 0)"
ok "$(grep -q '## Still open' "$T_TMP/o4"; echo $?)" "and listed as still open"
done_testing
