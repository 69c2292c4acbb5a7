#!/bin/bash
# A run whose load generator saw errors above its limit is marked: the record
# carries mtload's accounting and error rate, and a record so marked shows in
# the table (ERRORS, and a warning) and in the HTML report's run list. (Once
# such runs were "ok" with no word anywhere.) ~12 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/r1"
"$M" run --service memcached --mode off --platform emu --duration 1 --warmup 0 --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "a clean run" || dump "$T_TMP/err"
rec="$R/001-plain-off/record.json"
ok "$(jq_e '.summary.error_rate == 0 and .summary.errors_over_limit == false and (.load.totals.accounting.sent == .load.totals.accounting.answered)' "$rec" >/dev/null; echo $?)" \
   "the record carries the error rate and mtload's accounting"
# the same record as if a fifth of its requests had been lost
mkdir -p "$T_TMP/bad/001-plain-off"
jq '.summary.errors_over_limit = true | .summary.error_rate = 0.2' "$rec" > "$T_TMP/bad/001-plain-off/record.json"
MTEBENCH_ROOT="$T_TMP" "$M" report "$T_TMP/bad" > "$T_TMP/rep.out" 2> "$T_TMP/rep.err"
is "$?" 0 "report runs"
ok "$(grep -Eq '^  plain/off .* ERRORS$' "$T_TMP/rep.out"; echo $?)" "the table marks the configuration" || dump "$T_TMP/rep.out"
ok "$(grep -q 'warning: memcached plain/off: errors: in some run more requests than the limit' "$T_TMP/rep.out"; echo $?)" "and warns"
html=$(sed -n 's/^report: //p' "$T_TMP/rep.out")
ok "$(grep -q '20.000% of requests answered with an error, lost or never sent' "$html" 2>/dev/null; echo $?)" "the HTML report names the run's error rate" || diag "html: $html"
done_testing
