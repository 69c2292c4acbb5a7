#!/bin/bash
# objtag is a variant like any other in benches and plans: `bench --variant
# objtag` (make bench VARIANT=objtag) measures it against plain/off and the
# summary shows its tag operations per request from memcached's own counters;
# a plan entry's `variants` puts plain, tagged and objtag side by side; an
# unknown variant is refused naming the accepted ones. ~30 s under emu.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/r"
"$M" bench --service memcached --mode sync --variant objtag --platform emu --duration 2 --warmup 0 --reps 1 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "bench --variant objtag runs" || dump "$T_TMP/err"
ok "$(jq -s -e 'map(.config.variant + "/" + .config.mode)|sort == ["objtag/sync","plain/off"]' "$R"/*/record.json >/dev/null; echo $?)" \
   "runs: plain/off and objtag/sync"
ok "$(jq_e '.overheads|length == 1 and .[0].variant == "objtag"' "$R/summary.json" >/dev/null; echo $?)" "overhead of objtag/sync vs plain/off" \
   || jq -c '.overheads' "$R/summary.json" | sed 's/^/# /'
t=$(jq -r '.configs[]|select(.variant=="objtag")|.tag_ops_per_request' "$R/summary.json")
ok "$(jq_e '.tag_ops > 0 and .granules_tagged >= .tag_ops' <<<"$t" >/dev/null; echo $?)" "objtag: tag operations and granules per request ($(jq -c . <<<"$t"))"
ok "$(jq_e '.configs[]|select(.variant=="plain")|.tag_ops_per_request == null' "$R/summary.json" >/dev/null; echo $?)" "plain: none"
ok "$(grep -q '^## tag operations per request' "$R/summary.md"; echo $?)" "summary.md has the table"
ok "$(grep -q '^| memcached | default, mix 1:10, values 100 | objtag/sync | tag_ops ' "$R/summary.md"; echo $?)" \
   "... its rows name the workload's mix and value size (a plan's entries may differ only there)" || dump "$R/summary.md"
rm -rf "$ROOT/reports/$(basename "$R")" "$ROOT/reports/$(basename "$R").md"

"$M" plan "$ROOT/configs/objtag.conf" --platform emu --dry-run > "$T_TMP/dry" 2>&1
is "$?" 0 "configs/objtag.conf expands"
for c in plain/off tagged/sync objtag/sync objtag/async; do
    ok "$(grep -q " $c " "$T_TMP/dry"; echo $?)" "objtag.conf holds $c" || dump "$T_TMP/dry"
done
printf '[plan]\n[x]\nservice = memcached\nmodes = sync\nvariants = tagged, objtagg\n' > "$T_TMP/bad.conf"
"$M" plan "$T_TMP/bad.conf" --platform emu > /dev/null 2> "$T_TMP/e1"
is "$?" 2 "unknown variant in a plan refused"
ok "$(grep -q "\[x\] variants: unknown variant 'objtagg' of memcached (accepted: plain, tagged, objtag" "$T_TMP/e1"; echo $?)" \
   "message names the entry and the accepted variants" || dump "$T_TMP/e1"
"$M" bench --service memcached --mode sync --variant objtagg --platform emu > /dev/null 2> "$T_TMP/e2"
is "$?" 2 "unknown bench --variant refused"
done_testing
