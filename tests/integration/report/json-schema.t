#!/bin/bash
# docs/schema/ against what the code writes now: mtload's JSON (a real mtload
# against a real native memcached), a run record and its load (a real
# `mtebench run` of memcached under emu, 1 s), the summary.json of `mtebench
# report` over that run and over the fixture records; and the schemas are not
# vacuous: a record without config.service, a summary without configs and an
# mtload JSON with a negative count fail. Debian's python3-jsonschema. ~10 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"; MTL="$B/mtload"
PY=/usr/bin/python3
S="$ROOT/docs/schema"
CHK() { "$PY" "$ROOT/tests/tools/schema_check.py" "$@"; }
"$PY" -c 'import jsonschema' 2>/dev/null || skip_all "python3-jsonschema is not installed (make deps)"
[ -x /usr/bin/memcached ] || skip_all "memcached is not installed"

port=$(free_port)
spawn "$T_TMP/mc.log" /usr/bin/memcached -U 0 -l 127.0.0.1 -p "$port" -t 1 -u nobody >"$T_TMP/mc.pid"
wait_port "$port" 10 || { ok 1 "memcached listens"; done_testing; }
timeout 30 "$MTL" --server "127.0.0.1:$port" --keys 500 --ratio 1:4 --duration 1s --json "$T_TMP/mtload.json" >/dev/null 2>&1
CHK "$S/mtload-1.schema.json" "$T_TMP/mtload.json" >"$T_TMP/c1" 2>&1; ok $? "mtload's JSON is mtload/1" || dump "$T_TMP/c1"
timeout 30 "$MTL" --server "127.0.0.1:$port" --preload --keys 500 --json "$T_TMP/pre.json" >/dev/null 2>&1
CHK "$S/mtload-1.schema.json" "$T_TMP/pre.json" >"$T_TMP/c2" 2>&1; ok $? "... and its --preload JSON" || dump "$T_TMP/c2"

"$M" run --service memcached --platform emu --duration 1 --warmup 0 --results "$T_TMP/r" >"$T_TMP/run.out" 2>&1
ok $? "mtebench run (memcached, emu, 1 s)" || dump "$T_TMP/run.out"
rec=$(ls "$T_TMP"/r/*/record.json)
CHK "$S/record.schema.json" $rec >"$T_TMP/c3" 2>&1; ok $? "the run's record is mtebench-run/1 (its load mtload/1)" || dump "$T_TMP/c3"
CHK "$S/record.schema.json" "$ROOT"/tests/fixtures/records-6a9d852/*/record.json >"$T_TMP/c4" 2>&1
ok $? "the fixture records of 6a9d852 are too" || dump "$T_TMP/c4"
"$M" report --out "$T_TMP/rep" --name run "$T_TMP/r" >/dev/null 2>&1
"$M" report --out "$T_TMP/rep" --name fx "$ROOT/tests/fixtures/records-6a9d852" >/dev/null 2>&1
CHK "$S/summary.schema.json" "$T_TMP/rep/run/summary.json" "$T_TMP/rep/fx/summary.json" >"$T_TMP/c5" 2>&1
ok $? "report's summary.json (one run; 4 runs with overheads) is mtebench-summary/1" || dump "$T_TMP/c5"

# the schemas refuse what is not so
jq 'del(.config.service)' $rec >"$T_TMP/bad-rec.json"
CHK "$S/record.schema.json" "$T_TMP/bad-rec.json" >"$T_TMP/c6" 2>&1
is "$?" 1 "a record without config.service is refused"
grep -q "service" "$T_TMP/c6"; ok $? "... naming it"
jq 'del(.configs)' "$T_TMP/rep/fx/summary.json" >"$T_TMP/bad-sum.json"
CHK "$S/summary.schema.json" "$T_TMP/bad-sum.json" >/dev/null 2>&1; is "$?" 1 "a summary without configs is refused"
jq '.totals.requests = -1' "$T_TMP/mtload.json" >"$T_TMP/bad-ml.json"
CHK "$S/mtload-1.schema.json" "$T_TMP/bad-ml.json" >/dev/null 2>&1; is "$?" 1 "an mtload JSON with a negative count is refused"
jq '.status = "ok" | del(.summary)' $rec >"$T_TMP/bad-rec2.json"
CHK "$S/record.schema.json" "$T_TMP/bad-rec2.json" >/dev/null 2>&1; is "$?" 1 "an ok record without summary is refused"
done_testing
