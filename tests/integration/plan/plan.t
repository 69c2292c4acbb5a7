#!/bin/bash
# Plans: a matrix expands to baseline + tagged cells per mode, modes the
# platform lacks are skipped with a reason, bad plan files are named.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
cat > "$T_TMP/small.conf" <<'EOC'
[plan]
name = small
reps = 1
duration = 1s
warmup = 0

[mc-1:1]
service = memcached
mix = 1:1
modes = sync, asymm

[mc-5:1]
service = memcached
mix = 5:1
pipeline = 4
modes = async
EOC
"$M" plan "$T_TMP/small.conf" --platform emu --results "$T_TMP/r" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "plan runs" || dump "$T_TMP/err"
is "$(ls "$T_TMP"/r/*/record.json | wc -l)" 4 "2 entries x (baseline + available modes) = 4 runs"
ok "$(grep -q 'mode asymm skipped' "$T_TMP/err"; echo $?)" "asymm skipped under emu, with a notice"
ok "$(jq_e '.skipped[0].mode=="asymm" and (.cells|length)==4' "$T_TMP/r/plan.json" >/dev/null; echo $?)" "plan.json lists cells and skips"
ok "$(jq_e '[.overheads[].mode]|sort == ["async","sync"]' "$T_TMP/r/summary.json" >/dev/null; echo $?)" "one overhead per tagged cell" || { dump "$T_TMP/err"; jq -c "{status,error}" "$T_TMP"/r/*/record.json | sed "s/^/# /"; }
ok "$(jq -s -e 'map(.config.workload.pipeline)|sort == [1,1,4,4]' "$T_TMP"/r/*/record.json >/dev/null; echo $?)" "entry values reach the runs"
ok "$(jq -s -e 'map(.config.plan)|unique == ["small"]' "$T_TMP"/r/*/record.json >/dev/null; echo $?)" "records name the plan"

printf '[plan]\nreps=1\n[x]\nservice = memcached\ncolour = red\n' > "$T_TMP/bad1.conf"
"$M" plan "$T_TMP/bad1.conf" > /dev/null 2> "$T_TMP/e1"
is "$?" 2 "unknown key refused"
ok "$(grep -q "bad1.conf:5: \[x\] unknown key 'colour'" "$T_TMP/e1"; echo $?)" "message names file, section and key"
printf '[plan]\n[x]\nservice = memcached\nmodes = sync, turbo\n' > "$T_TMP/bad2.conf"
"$M" plan "$T_TMP/bad2.conf" > /dev/null 2> "$T_TMP/e2"
is "$?" 2 "unknown mode refused"
ok "$(grep -q "unknown mode 'turbo' (accepted: off, sync, async, asymm)" "$T_TMP/e2"; echo $?)" "message lists the modes"
printf '[plan]\nthis is not ini\n' > "$T_TMP/bad3.conf"
"$M" plan "$T_TMP/bad3.conf" > /dev/null 2> "$T_TMP/e3"
is "$?" 2 "malformed file refused"
ok "$(grep -q 'bad3.conf:2: malformed line' "$T_TMP/e3"; echo $?)" "with its line number"
"$M" plan /nonexistent.conf > /dev/null 2> "$T_TMP/e4"
is "$?" 2 "missing file refused"
# the shipped plan expands as the study's matrix (dry run: nothing runs)
"$M" plan "$ROOT/configs/paper.conf" --platform emu --dry-run > "$T_TMP/paper.txt" 2>&1
is "$?" 0 "paper.conf dry run"
is "$(grep -c "memcached .*tagged/" "$T_TMP/paper.txt")" 10 "memcached: 5 mixes x (sync, async) tagged cells under emu"
ok "$(grep -q 'mix 1:100, 16 conns, pipeline 16, 60 s' "$T_TMP/paper.txt"; echo $?)" "mix 1:100, pipeline 16, 60 s"
for w in "nginx .*default" "nginx .*wrk" "postgresql .*rw " "postgresql .*default" "postgresql .*rw-100" "postgresql .*ro-100" "rocksdb .*default"; do
    ok "$(grep -q "$w .*tagged/sync" "$T_TMP/paper.txt"; echo $?)" "paper.conf has $w"
done
is "$(grep -c 'skipped: .* asymm' "$T_TMP/paper.txt")" 12 "asymm skipped under emu, said per entry (12 entries)"
# REPS=auto: a plan without reps, or --reps auto, adds pairs until its rule stops
printf '[plan]\nname = a\n[x]\nservice = memcached\nmodes = async\n' > "$T_TMP/auto.conf"
"$M" plan "$T_TMP/auto.conf" --platform emu --dry-run --precision 3% --max-time 10m > "$T_TMP/auto.txt" 2>&1
ok "$(grep -q 'x auto reps (4 to 100 pairs, until +-3%, at most 10 min)' "$T_TMP/auto.txt"; echo $?)" \
   "a plan without reps is REPS=auto: $(head -1 "$T_TMP/auto.txt")"
# under emulation REPS=auto aims at +-5% unless PRECISION is given, and says so
"$M" plan "$T_TMP/auto.conf" --platform emu --dry-run > "$T_TMP/emu.txt" 2>&1
ok "$(grep -q 'until +-5%' "$T_TMP/emu.txt" && grep -q 'emulated: REPS=auto aims at +-5%' "$T_TMP/emu.txt"; echo $?)" \
   "emulated: REPS=auto aims at +-5% and says so" || dump "$T_TMP/emu.txt"
ok "$(! grep -q 'aims at' "$T_TMP/auto.txt"; echo $?)" "a PRECISION given holds (3%), no notice"
# a dry run states how long the plan will take (paper.conf: 36 configurations x 3 reps)
"$M" plan "$ROOT/configs/paper.conf" --platform emu --dry-run > "$T_TMP/paper.txt" 2>&1
ok "$(grep -Eq '^time: about [0-9]+h[0-9]+m: 3 repetitions x \(39m00s of runs \(durations and warm-ups\) \+ [0-9hms]+ of start-ups' "$T_TMP/paper.txt"; echo $?)" \
   "paper.conf --dry-run: $(grep '^time:' "$T_TMP/paper.txt" | cut -c1-70)" || dump "$T_TMP/paper.txt" 5
"$M" plan "$ROOT/configs/paper.conf" --platform emu --dry-run --reps auto > "$T_TMP/pauto.txt" 2>&1
ok "$(grep -q 'x auto reps' "$T_TMP/pauto.txt"; echo $?)" "--reps auto overrides a plan's reps"
done_testing
