#!/bin/bash
# An answer at any time: Ctrl-C during REPS=auto ends with the report of the
# pairs done (the table, summary.json and the HTML report), marked as stopped
# by the user; the status is 130 as for any interrupt, the finished records
# are kept, the run that was cut says so and is not counted as a failure, and
# nothing is left running. (Before, Ctrl-C exited at once: 10 minutes of
# pairs and no answer.) A real emulated memcached, 1 s runs. ~40 s warm.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
command -v jq >/dev/null || skip_all "jq is not installed"
setsid "$M" bench --service memcached --mode sync --platform emu --duration 1 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err" &
pid=$!
note_pgid "$pid"
# two pairs done (4 records) and the fifth run going (bounded: 3 minutes)
for _ in $(seq 1 1800); do
    [ "$(ls "$R"/*/record.json 2>/dev/null | wc -l)" -ge 4 ] && [ -n "$(ls "$R"/005-*/service.log 2>/dev/null)" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
ok "$( [ "$(ls "$R"/*/record.json 2>/dev/null | wc -l)" -ge 4 ]; echo $?)" "two pairs finished before the interrupt" || dump "$T_TMP/err"
kill -INT "$pid"
for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
ok "$(! kill -0 "$pid" 2>/dev/null; echo $?)" "mtebench ended after the Ctrl-C"
wait "$pid"; rc=$?
is "$rc" 130 "exit status 130 (interrupted)"
ok "$(grep -q 'the report of the pairs done follows' "$T_TMP/err"; echo $?)" "says the report follows" || dump "$T_TMP/err"
ok "$(grep -Eq '^  overhead tagged/sync vs plain/off: [0-9.]+x \[.*\(([2-9]|[1-9][0-9]) pairs\).*stopped by the user' "$T_TMP/out"; echo $?)" \
   "the table gives the overhead of the pairs done, stopped by the user" || dump "$T_TMP/out"
ok "$(grep -q 'REPS=auto: [0-9]* pairs in .*STOPPED BY THE USER' "$T_TMP/out"; echo $?)" "and the REPS=auto line says so"
ok "$(jq_e '.sequential.stopped == "user" and .sequential.pairs >= 2 and (.overheads[0].pairs >= 2) and (.overheads[0].slowdown.median > 0)' "$R/summary.json" >/dev/null; echo $?)" \
   "summary.json: stopped by the user, the overhead of the pairs done"
ok "$(grep -q '^html: ' "$T_TMP/out"; echo $?)" "the HTML report is written"
sleep 0.3
ok "$(! pgrep -f "$B/mtload.*$R" >/dev/null && ! pgrep -f "memcached.*$R" >/dev/null && ! pgrep -f "qemu-aarch64.*$R" >/dev/null; echo $?)" \
   "no memcached, qemu or mtload left running"
nok=0; for f in "$R"/00[1-4]-*/record.json; do jq_e '.status == "ok"' "$f" >/dev/null && nok=$((nok + 1)); done
is "$nok" 4 "the four finished records are intact"
cut=$(ls "$R"/005-*/record.json 2>/dev/null)
ok "$( [ -z "$cut" ] || jq_e '.error | test("stopped by the user")' "$cut" >/dev/null; echo $?)" "the run that was cut says it was stopped by the user"
ok "$(! grep -q 'did not finish cleanly' "$T_TMP/err"; echo $?)" "and is not listed as a failed run" || dump "$T_TMP/err"
ok "$(! ls "$R"/*/*.tmp.* >/dev/null 2>&1; echo $?)" "no half-written files"
# the runs measured their start-up cost; a dry run's time uses it (plantime.c)
ok "$(jq_e '."memcached/emu".runs >= 4 and ."memcached/emu".mean_s > 0' "$MTEBENCH_RESULTS/startup-costs.json" >/dev/null; echo $?)" \
   "results/startup-costs.json holds memcached/emu's start-up cost"
"$M" bench --service memcached --mode sync --platform emu --dry-run > "$T_TMP/dry" 2>&1
ok "$(grep -Eq '^time: about [0-9hms]+ to [0-9hms]+: a pair is 1m06s of runs .* of start-ups \(measured on this machine' "$T_TMP/dry"; echo $?)" \
   "--dry-run states the time with the measured start-ups: $(grep '^time:' "$T_TMP/dry" | cut -c1-60)" || dump "$T_TMP/dry"
done_testing
