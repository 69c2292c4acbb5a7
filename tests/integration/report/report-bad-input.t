#!/bin/bash
# Bad input to `mtebench report`: a directory without records, a corrupt
# record, a record of another schema version, a record with a misspelt or a
# mistyped config key, a missing directory. Each gets
# a message naming the file; good records are still reported and the bad ones
# listed in the report; exit 0 when a report is written, 2 when nothing is usable.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
OUT="$T_TMP/reports"

# Good records, synthesised with jq (the report only reads records; real
# runs are exercised by report.t).
good="$T_TMP/good"
mkdir -p "$good/001-plain-off-rep1" "$good/002-tagged-async-rep1"
mk() { # mk DIR VARIANT MODE OPS
    jq -n --arg v "$2" --arg m "$3" --argjson ops "$4" '{
      schema: "mtebench-run/1", status: "ok", mtebench_version: "test", started: "2026-01-01T00:00:00Z",
      finished: "2026-01-01T00:00:05Z", error: null,
      config: {service: "memcached", variant: $v, mode: $m, platform: "emu", kernel: "host", rep: 1, index: 1,
               total: 2, plan: "bench", workload: {mix: "1:10", conns: 16, pipeline: 1, keys: 100, duration_s: 2}},
      platform: {name: "emu", emulated: true, cpu_model: "Test CPU", cpus: 2},
      kernel: {name: "host", uname_r: "6.1.0", uname_v: "#1", machine: "x86_64"},
      build: {service: "memcached", variant: $v, key: "0123456789abcdef0123", target: "aarch64", version: "1.6"},
      load: {histogram: [[100, 5], [200, 3], [400, 1]], timeseries: [{t: 1, ops: $ops}, {t: 2, ops: $ops}]},
      summary: {ops_per_sec: $ops, p50_us: 100, p99_us: 400, p999_us: 400, requests: 9, errors: 0, client_bound: false}}' > "$1/record.json"
}
mk "$good/001-plain-off-rep1" plain off 1000
mk "$good/002-tagged-async-rep1" tagged async 800

mkdir -p "$T_TMP/empty"
"$M" report --out "$OUT" "$T_TMP/empty" > "$T_TMP/o1" 2> "$T_TMP/e1"
is "$?" 2 "a directory without records: exit 2"
ok "$(grep -q "$T_TMP/empty: no records" "$T_TMP/e1"; echo $?)" "... and the message names it" || dump "$T_TMP/e1"
ok "$(grep -q 'nothing usable' "$T_TMP/e1"; echo $?)" "... and says nothing is usable"

mkdir -p "$T_TMP/corrupt/001-x"
printf '{"schema": "mtebench-run/1", "config": {' > "$T_TMP/corrupt/001-x/record.json"
"$M" report --out "$OUT" "$T_TMP/corrupt" > "$T_TMP/o2" 2> "$T_TMP/e2"
is "$?" 2 "only a corrupt record: exit 2"
ok "$(grep -q "$T_TMP/corrupt/001-x/record.json: corrupt record: not valid JSON" "$T_TMP/e2"; echo $?)" "... message names the file" || dump "$T_TMP/e2"

"$M" report --out "$OUT" "$T_TMP/nonexistent" > "$T_TMP/o3" 2> "$T_TMP/e3"
is "$?" 2 "a missing directory: exit 2"
ok "$(grep -q "$T_TMP/nonexistent: no such directory" "$T_TMP/e3"; echo $?)" "... message names it"

"$M" report > "$T_TMP/o4" 2> "$T_TMP/e4"
is "$?" 2 "no directory given: exit 2 with usage"
ok "$(grep -q 'usage: mtebench report' "$T_TMP/e4"; echo $?)" "... usage printed"

# mixed: the good records, a corrupt one, one of another schema, an empty dir
mkdir -p "$good/003-corrupt" "$good/004-future"
echo 'not json at all' > "$good/003-corrupt/record.json"
jq '.schema = "mtebench-run/2"' "$good/001-plain-off-rep1/record.json" > "$good/004-future/record.json"
"$M" report --out "$OUT" "$good" "$T_TMP/empty" > "$T_TMP/o5" 2> "$T_TMP/e5"
is "$?" 0 "good records among bad ones: report written, exit 0" || dump "$T_TMP/e5"
ok "$(grep -q "$good/003-corrupt/record.json: corrupt record" "$T_TMP/e5"; echo $?)" "corrupt record named on stderr"
ok "$(grep -q "$good/004-future/record.json: schema version \"mtebench-run/2\" is not mtebench-run/1" "$T_TMP/e5"; echo $?)" \
    "other schema version named on stderr"
R="$OUT/good"
ok "$( [ -s "$R/index.html" ]; echo $?)" "default name: the first directory's basename ($R)"
is "$(jq '.bad_records | length' "$R/summary.json")" 3 "summary.json lists the 3 bad inputs"
is "$(jq '[.configs[].runs] | add' "$R/summary.json")" 2 "the 2 good records are reported"
ok "$(grep -q 'id="bad"' "$R/index.html" && grep -q '003-corrupt/record.json' "$R/index.html" && grep -q '004-future/record.json' "$R/index.html"; echo $?)" \
    "index.html lists the records not used"
ok "$(grep -q 'Records not used' "$R/report.md" && grep -q '004-future' "$R/report.md"; echo $?)" "report.md lists them too"
jqc() { ok "$(jq_e "$1" "$R/summary.json" >/dev/null; echo $?)" "$2"; }
jqc '.overheads[0].slowdown.median == 1.25 and .overheads[0].pairs == 1' "overhead of the synthetic pair: 1000/800 = 1.25x"
jqc '[.warnings[] | select(test("single run"))] | length == 2' "a single run per configuration is stated (no interval)"

# a key misspelt or mistyped in a record's config: named (the file and the key), the record left out, the
# others reported; never read as an empty field
mkdir -p "$T_TMP/typo/001-plain-off-rep1" "$T_TMP/typo/002-tagged-async-rep1" "$T_TMP/typo/003-typo" "$T_TMP/typo/004-rep"
cp "$good/001-plain-off-rep1/record.json" "$T_TMP/typo/001-plain-off-rep1/"
cp "$good/002-tagged-async-rep1/record.json" "$T_TMP/typo/002-tagged-async-rep1/"
jq '.config.varaint = .config.variant | del(.config.variant)' "$good/002-tagged-async-rep1/record.json" \
    > "$T_TMP/typo/003-typo/record.json"
jq '.config.rep = "1"' "$good/002-tagged-async-rep1/record.json" > "$T_TMP/typo/004-rep/record.json"
"$M" report --out "$OUT" "$T_TMP/typo" > "$T_TMP/o7" 2> "$T_TMP/e7"
is "$?" 0 "records with a misspelt and a mistyped config key beside good ones: report written, exit 0" || dump "$T_TMP/e7"
ok "$(grep -q "$T_TMP/typo/003-typo/record.json: .*config.variant: missing (a string)" "$T_TMP/e7" &&
      grep -q "$T_TMP/typo/004-rep/record.json: .*config.rep: string, not a whole number" "$T_TMP/e7"; echo $?)" \
    "each named on stderr: the file and the key, missing or of the wrong type" || dump "$T_TMP/e7"
is "$(jq -c '[(.bad_records | length), ([.configs[].runs] | add)]' "$OUT/typo/summary.json")" "[2,2]" \
    "summary.json lists the two as not used and reports the two good records"

# a record with status error is a run, not a bad record; alone it is not usable
mkdir -p "$T_TMP/err/001"
jq '.status = "error" | .error = "mode not proved" | del(.summary)' "$good/001-plain-off-rep1/record.json" > "$T_TMP/err/001/record.json"
"$M" report --out "$OUT" "$T_TMP/err" > "$T_TMP/o6" 2> "$T_TMP/e6"
is "$?" 2 "only a failed run: nothing usable, exit 2"
ok "$(grep -q 'no record with status ok' "$T_TMP/e6"; echo $?)" "... says why"
done_testing
