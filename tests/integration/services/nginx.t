#!/bin/bash
# nginx under emu: the tagged build in sync mode is proved and measured by
# mtload (counts equal nginx's stub_status), by wrk, and over HTTPS.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/r"
run() { # workload name
    "$M" run --service nginx --variant tagged --mode sync --platform emu --workload "$1" \
        --duration 2 --warmup 0 --results "$R/$1" > "$T_TMP/$1.out" 2>&1
}
rec() { echo "$R/$1/001-tagged-sync/record.json"; }

run default
is "$?" 0 "nginx tagged/sync run (mtload)" || dump "$T_TMP/default.out"
ok "$(jq_e '.status=="ok" and .proof.ok and .proof.probe.tcf=="sync" and .driver=="mtload"' "$(rec default)" >/dev/null; echo $?)" "proved and measured" \
    || dump "$(dirname "$(rec default)")/service.log"
ok "$(jq_e '.summary.ops_per_sec > 0 and .load.totals.requests > 0 and .load.totals.errors.protocol == 0' "$(rec default)" >/dev/null; echo $?)" "requests served, no protocol errors"
# stub_status counts every request, including the status request that ends the window
req=$(jq '.load.totals.requests' "$(rec default)")
delta=$(jq '.service_counters.delta.requests' "$(rec default)")
is "$delta" "$((req + 1))" "mtload's requests equal nginx's stub_status count (+1 status request)"
ok "$(jq_e '.config.workload.params.paths == "/f1024.bin" and .config.workload.name == "default"' "$(rec default)" >/dev/null; echo $?)" "workload recorded"

run wrk
is "$?" 0 "nginx run driven by wrk" || dump "$T_TMP/wrk.out"
ok "$(jq_e '.status=="ok" and .driver=="wrk" and .load.schema=="mtload/1" and .summary.p99_us > 0 and (.load.histogram|length) > 0' "$(rec wrk)" >/dev/null; echo $?)" \
   "wrk's results in the same record format"
ok "$(jq_e '.load.cpu.user_s >= 0 and (.load.cpu.client_bound|type)=="boolean"' "$(rec wrk)" >/dev/null; echo $?)" "client CPU recorded for wrk"

run https
is "$?" 0 "nginx over HTTPS (certificate made at run time)" || dump "$T_TMP/https.out"
ok "$(jq_e '.status=="ok" and .summary.ops_per_sec > 0' "$(rec https)" >/dev/null; echo $?)" "HTTPS requests measured"
ok "$(grep -q 'https://127.0.0.1' "$R/https/001-tagged-sync/wrk.log"; echo $?)" "wrk spoke HTTPS"
done_testing
