#!/bin/bash
# A real memcached under emu: a run writes a complete record, and a short
# bench prints the table with the emulated label and writes its summaries.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"

"$M" run --service memcached --variant tagged --mode sync --platform emu --duration 2 --warmup 1 \
    --results "$R" > "$T_TMP/run.out" 2>&1
rc=$?
is "$rc" 0 "tagged/sync run succeeds" || dump "$T_TMP/run.out"
rec="$R/001-tagged-sync/record.json"
ok "$(jq_e . "$rec" >/dev/null; echo $?)" "record is valid JSON"
jqok() { ok "$(jq_e "$1" "$rec" >/dev/null; echo $?)" "$2"; }
jqok '.schema == "mtebench-run/1" and .status == "ok"' "schema and status"
jqok '.config | .service=="memcached" and .variant=="tagged" and .mode=="sync" and .platform=="emu" and .kernel=="host"' "full configuration"
jqok '.config.workload | .mix=="1:10" and .conns==16 and .duration_s==2' "workload echoed"
jqok '.build.key | test("^[0-9a-f]{64}$")' "build hash"
jqok '.build.source_sha256 and (.build.patches|length)>=3' "build inputs"
jqok '.platform.emulated == true and .platform.label == "emulated: not hardware timing" and (.platform.qemu|test("qemu"))' "platform labelled emulated"
jqok '.kernel.uname_r | length > 0' "kernel uname"
jqok '.proof.ok == true and .proof.probe.tcf == "sync" and .proof.probe.write_fault == 9' "mode proof"
jqok '.steal | .share >= 0 and .share <= 1 and (.cpus | test("^[0-9][-0-9,]*$"))' \
    "steal: the hypervisor's share of the run's CPUs (listed) while the load ran"
jqok '.load.schema == "mtload/1" and .load.totals.requests > 0 and (.load.histogram|length) > 0' "loadgen output"
jqok '.summary.ops_per_sec > 0 and .summary.p99_us >= .summary.p50_us' "summary figures"
jqok '.preload.totals.sets == 10000' "key space preloaded"
# a preload request may wait 10 s (not mtload's 1 s): a lost one fails the run
ok "$(jq_e '.config.timeout_s == 10 and .totals.errors.timeout == 0' "$R/001-tagged-sync/preload.json" >/dev/null; echo $?)" \
    "preload's per-request timeout is 10 s"
ok "$( [ -s "$R/001-tagged-sync/service.log" ] || [ -f "$R/001-tagged-sync/service.log" ]; echo $?)" "service log kept in the run directory"
# no child left behind
sleep 0.3
ok "$(! pgrep -f "$R" >/dev/null; echo $?)" "no process of the run is left"

# a machine profile: pinned CPUs and perf events recorded with the run
"$M" run --service memcached --platform emu --machine local --duration 1 --warmup 0 --results "$T_TMP/m" > "$T_TMP/m.out" 2>&1
is "$?" 0 "run with MACHINE=local" || dump "$T_TMP/m.out"
ok "$(jq_e '.machine.name=="local" and .machine.service_cpus=="0" and .machine.client_cpus=="1"' "$T_TMP"/m/*/record.json >/dev/null; echo $?)" "profile recorded"
ok "$(jq_e '.perf.events["task-clock"] > 0' "$T_TMP"/m/*/record.json >/dev/null; echo $?)" "perf counted the service (task-clock)"
ok "$(grep -q -- '--cpus=1' "$T_TMP"/m/*/mtload.log; echo $?)" "load generator pinned to the client CPU"

# a tiny bench: table with label, overhead line, summary files, report
"$M" bench --service memcached --mode async --platform emu --reps 1 --duration 2 --warmup 0 \
    --results "$T_TMP/bench" > "$T_TMP/bench.out" 2> "$T_TMP/bench.err"
is "$?" 0 "bench REPS=1 succeeds" || dump "$T_TMP/bench.err"
ok "$(grep -q 'emulated: not hardware timing' "$T_TMP/bench.out"; echo $?)" "table carries the emulated label"
ok "$(grep -q 'plain/off' "$T_TMP/bench.out" && grep -q 'tagged/async' "$T_TMP/bench.out"; echo $?)" "table rows for baseline and tagged"
ok "$(grep -q 'overhead tagged/async vs plain/off' "$T_TMP/bench.out"; echo $?)" "overhead line"
ok "$(grep -q '\[2/2\]' "$T_TMP/bench.err"; echo $?)" "progress shown (run i of n)"
ok "$(jq_e '.overheads[0].slowdown.median > 0 and .emulated == true' "$T_TMP/bench/summary.json" >/dev/null; echo $?)" "summary.json"
md=$(awk '/^report:/{print $2}' "$T_TMP/bench.out")
ok "$(grep -q 'emulated' "$md"; echo $?)" "Markdown report under reports/ ($md)"
rm -rf "$md" "${md%.md}"   # bench also writes the HTML report beside it
is "$(ls "$T_TMP/bench"/*/record.json | wc -l)" 2 "one record per run"
done_testing
