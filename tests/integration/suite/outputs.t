#!/bin/bash
# What mtebench writes from the suite's fixtures is byte-identical to what
# the version named in tests/fixtures/outputs/README wrote (times and the
# version stamp blanked): every report file (a detect matrix beside the
# runs), the nightly's dashboard, the plans' and benches' dry runs, each
# catalogue (issue "A typed core": a change of structure changes no output). tests/tools/outputs.sh
# writes them; a difference is shown as a diff. After an intended change of
# an output, write the fixture again (outputs.sh's header says how). Needs no
# build of a service (about 5 s).
. "$(dirname "$0")/../../lib.sh"
G="$ROOT/tests/fixtures/outputs"
bash "$ROOT/tests/tools/outputs.sh" "$B/mtebench" "$T_TMP/now" 2> "$T_TMP/err"
is "$?" 0 "tests/tools/outputs.sh wrote the outputs" || dump "$T_TMP/err"
n=$(find "$G" -type f ! -name README | wc -l)
ok "$( [ "$n" -ge 30 ]; echo $?)" "the fixture holds $n output files (reports, the dashboard, dry runs, catalogues)"
for f in report-a report-b nightly catalogue-memcached; do
    ok "$(grep -q '^exit 0$' "$T_TMP/now/$f.txt"; echo $?)" "$f: exit 0" || sed 's/^/#   /' "$T_TMP/now/$f.txt" | tail -5
done
diff -r -x README "$G" "$T_TMP/now" > "$T_TMP/diff"
ok "$?" "every output as the fixture has it ($(find "$T_TMP/now" -type f | wc -l) files)" ||
    { head -60 "$T_TMP/diff" | sed 's/^/#   /'; diag "(tests/tools/outputs.sh build/mtebench tests/fixtures/outputs writes them again)"; }
# the comparison can fail: one number of a record changed changes the report
cp -r "$ROOT/tests/fixtures" "$T_TMP/fx"
mkdir -p "$T_TMP/co/tests/tools" && cp "$ROOT/tests/tools/outputs.sh" "$T_TMP/co/tests/tools/"
cp -r "$ROOT/configs" "$ROOT/services" "$T_TMP/co/" && ln -s "$T_TMP/fx" "$T_TMP/co/tests/fixtures"
r="$T_TMP/fx/records-6a9d852/002-memcached-default-tagged-sync-rep1/record.json"
jq '.summary.ops_per_sec *= 1.5' "$r" > "$T_TMP/r.json" && cp "$T_TMP/r.json" "$r"
bash "$T_TMP/co/tests/tools/outputs.sh" "$B/mtebench" "$T_TMP/planted" 2> /dev/null
diff -rq -x README "$G" "$T_TMP/planted" > "$T_TMP/pdiff"
ok "$( [ $? = 1 ] && grep -q 'report/a/summary.json' "$T_TMP/pdiff"; echo $?)" \
    "a record's throughput changed by half shows as a difference (summary.json among $(wc -l < "$T_TMP/pdiff") files)" ||
    sed 's/^/#   /' "$T_TMP/pdiff"
done_testing
