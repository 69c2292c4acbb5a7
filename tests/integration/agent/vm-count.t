#!/bin/bash
# PLATFORM=vm with the counting plugin (libmtecount.so, docs/COUNTING.md):
# `mtebench proof --platform vm --count` proves the mode with the plugin
# loaded and its window open (a counted run must still fault on a tag
# mismatch: counting changes nothing it counts), then runs mtework's
# micro-programs, each in a window of its own, whose counts are known by
# construction: N STG, N DC GZVA, K loads and stores through a tagged
# pointer (checks on, TCO set, TCF none), through SP, through a tag-0
# pointer to untagged memory, and the kernel's 4096-byte clear into a tagged
# user buffer. Every count is compared exactly (EL0 of the vCPU mtework kept
# itself on; for the kernel's copy, its EL1 unprivileged stores).
# Then `run --count` of memcached tagged/sync on the stock kernel: its work
# table and account (stock against tcma1, counted: nightly-work.t). Last,
# bench's counted pair (COUNT=1): the work table before the timings.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
[ -f "$B/native/libmtecount.so" ] || skip_all "the counting plugin is not built (make deps; make)"

out=$("$M" bench --count 2>&1)
is "$?" 2 "--count outside run and proof is refused"
ok "$(grep -q -- '--count is an option of run and proof' <<< "$out"; echo $?)" "... by name"

for mode in sync async; do
    "$M" proof --platform vm --kernel stock --mode $mode --count > "$T_TMP/$mode.json" 2> "$T_TMP/$mode.err"
    is "$?" 0 "proof --count $mode: the mode is proved with the plugin loaded" || dump "$T_TMP/$mode.err"
    want=$([ $mode = sync ] && echo 9 || echo 8)
    ok "$(jq_e ".probe.write_fault == $want and .probe.read_fault == $want" "$T_TMP/$mode.json" > /dev/null; echo $?)" \
       "$mode: the counted proof still faults on a tag mismatch (si_code $want, store and load)"
    ok "$(jq_e '.work.plugin | .windows == 9 and .window_errors == 0 and .sysregs == "read" and .checked == "on"' \
           "$T_TMP/$mode.json" > /dev/null; echo $?)" "$mode: nine windows counted (the proof's and eight cases'), none unmatched"
    ok "$(jq_e '[.work.windows[] | select(.window == 1) | .loads_checked + .stores_checked] | add > 0' \
           "$T_TMP/$mode.json" > /dev/null; echo $?)" "$mode: the proof's window counted Tag Checked accesses while it faulted"
done
J="$T_TMP/sync.json"
diag "cases: $(jq -c '[.work_cases[] | [.case, .vcpu]]' "$J")"

# case NAME EL CHECK: CHECK (jq, over the case's window on its vCPU at EL,
# with $n its iterations and $b its body's instructions) holds
case_is() {
    local name=$1 el=$2 check=$3 got
    got=$(jq -c --arg c "$name" --argjson el "$el" '
        (.work_cases[] | select(.case == $c)) as $k
        | [.work.windows[] | select(.window == $k.window and .vcpu == $k.vcpu and .el == $el)][0]
        | . as $w | $k.n as $n | $k.body as $b | {w: $w, n: $n, b: $b}' "$J")
    ok "$(jq_e ".w as \$w | .n as \$n | .b as \$b | \$w | $check" <<< "$got" > /dev/null; echo $?)" "$name: $4" ||
        diag "$(jq -c '.w | {insns, loads, stores, loads_checked_form, stores_checked_form, loads_checked, stores_checked, checked_unpriv, tag0_lower, unchecked_tco, unchecked_tcma, unchecked_off, tag_bytes, stg, dc_gzva}' <<< "$got")"
}
ok "$(jq_e '.work_cases | type == "array" and length == 8 and all(.vcpu >= 0)' "$J" > /dev/null; echo $?)" \
   "mtework ran its eight cases on a known vCPU" || diag "$(jq -c .work_cases "$J")"
case_is stg 0 '.insns == $b + 4 and .stg == $n and .tag_bytes == 16 * $n and .loads == 0 and .stores == 0' \
        "N STG: N tag stores, 16N bytes tagged, body + the closing marker's 4 instructions, no data access"
case_is gzva 0 '.insns == $b + 4 and .dc_gzva == $n and .tag_bytes == 64 * $n and .stores == $n and .stores_checked_form == 0 and .stores_checked == 0' \
        "N DC GZVA: 64N bytes tagged (DCZID block 64), N data stores, none Tag Checked"
case_is checked 0 '.insns == $b + 4 and .loads_checked == $n and .stores_checked == $n and .tag0_lower == 0 and .unchecked_tco == 0' \
        "K loads and K stores through a tag-5 pointer: all Tag Checked"
case_is tco 0 '.insns == $b + 4 and .loads_checked == 0 and .stores_checked == 0 and .unchecked_tco == 2 * $n' \
        "the same with PSTATE.TCO set: none Tag Checked, 2K exempt by TCO"
case_is sp 0 '.insns == $b + 4 and .loads == $n and .stores == $n and .loads_checked_form == 0 and .stores_checked_form == 0 and .loads_checked == 0' \
        "through SP with an immediate offset: K loads and stores, none of a checked form"
case_is untagged 0 '.insns == $b + 4 and .loads_checked == 0 and .stores_checked == 0 and .tag0_lower == 2 * $n' \
        "through a tag-0 pointer to memory without PROT_MTE: kept apart (tag0_lower), not counted Tag Checked"
case_is tcf_none 0 '.insns == $b + 4 and .loads_checked == $n and .stores_checked == $n' \
        "TCF none: still Tag Checked (TCF decides only what a failed check does)"
case_is kcopy 0 '.insns == $b + 4 and .loads == 0 and .stores == 0' "read(2) at EL0: the syscall's 5 instructions and the marker's 4"
case_is kcopy 1 '.checked_unpriv == $n / 8 and .stores_checked >= $n / 8' \
        "the kernel's clear of 4096 bytes into a tagged user buffer: 512 Tag Checked STTRs at EL1 (EL0's rules)"
# a counted run on the stock kernel (what the counts say of stock against
# tcma1 is nightly-work.t's, whose nights count tagged/sync on both)
"$M" run --service memcached --variant tagged --mode sync --platform vm --kernel stock --count --duration 0.5 \
    --warmup 0 --results "$T_TMP/run-stock" > "$T_TMP/run-stock.out" 2> "$T_TMP/run-stock.err"
is "$?" 0 "run --count tagged/sync on stock" || { dump "$T_TMP/run-stock.err"; dump "$T_TMP/run-stock.out"; }
r=$(echo "$T_TMP"/run-stock/*/record.json)
ok "$(grep -q '^work per request: exact (counted), not a timing' "$T_TMP/run-stock.out" &&
      grep -q 'counted: instrumented, not a timing' "$T_TMP/run-stock.out"; echo $?)" \
   "run prints the work table, and labels its throughput as no timing"
ok "$(jq_e '.status == "ok" and (.timing | test("not a timing")) and .work.windows == 2 and .work.requests > 0
            and .work.vcpus.service != .work.vcpus.client and (.work.per_request.service.el1.insns > 0)' "$r" > /dev/null; echo $?)" \
   "the record's work account (two windows: idle, then the load; per request; service and load generator apart)"
# by task (CONTEXTIDR_EL1, which the named kernels write at each switch):
# each window's task lines sum to its vCPU lines exactly, per EL and counter
c="$(dirname "$r")/mtecount.txt"
sums=$(awk '/^window=/ { w = ""; t = 0; for (i = 1; i <= NF; i++) { split($i, kv, "=");
              if (kv[1] == "window") w = kv[2]; else if (kv[1] == "el") e = kv[2];
              else if (kv[1] == "tid") t = 1; else if (kv[1] == "insns" || kv[1] == "loads_checked" || kv[1] == "stores_checked" || kv[1] ~ /^spin_/)
                  s[w " " e " " kv[1] " " (t ? "tasks" : "vcpus")] += kv[2] } }
           END { bad = 0; n = 0; for (k in s) if (k ~ / tasks$/) { v = k; sub(/ tasks$/, " vcpus", v); n++; if (s[k] != s[v]) bad++ }
                 print n, bad }' "$c")
ok "$([ "${sums% *}" -ge 8 ] && [ "${sums#* }" = 0 ]; echo $?)" \
   "each window's counts by task sum to its counts by vCPU, exactly ($sums: sums compared, unequal)" || head -3 "$c"
ok "$(jq_e '.work | (.tasks | map(.comm) | index("mc-worker")) != null and .workers == "mc-worker"
            and .per_request.workers.el0.loads_checked > 0 and .per_request.workers.el1.insns > 0
            and .by_task["mc-worker"].per_request.el0.insns == .per_request.workers.el0.insns
            and .per_request.interrupts.el1.insns > 0 and .per_request.interrupts.el0.insns == 0' "$r" > /dev/null; echo $?)" \
   "the service's tasks by name; its request tasks' (mc-worker) Tag Checked loads; the kernel's interrupts apart" ||
    jq -c '.work | {workers, tasks_note, w: .per_request.workers, i: .per_request.interrupts}' "$r"
# wait loops (docs/COUNTING.md): the plugin keeps the part of each counter
# that repeats of a wait loop held (spin_NAME, never more than NAME), and
# the account leaves it out of every per-request count
ok "$(head -1 "$c" | grep -q ' wait_repeats=[0-9]* spin_max=64 ' &&
      awk 'NR > 1 { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
             for (k in v) if (k ~ /^spin_/ && v[k] + 0 > v[substr(k, 6)] + 0) bad++; delete v } END { exit bad > 0 }' "$c"
      echo $?)" "the plugin's wait loops: its rule in the header, each spin_NAME within its NAME" || head -1 "$c"
ok "$(jq_e '.work | [.window, .idle, .window_net] | map(.workers.el1) as [$l, $i, $n]
            | $n.insns == ($l.insns - ($l.spin_insns // 0)) - (($i.insns // 0) - ($i.spin_insns // 0))
              and $n.spin_insns == ($l.spin_insns // 0) - ($i.spin_insns // 0) and $n.insns > 0' "$r" > /dev/null; echo $?)" \
   "per request, the request tasks' EL1 instructions are those outside wait loops' repeats, the repeats' apart (spin_insns)" ||
    jq -c '.work | [.window, .idle, .window_net] | map(.workers.el1 | {insns, spin_insns})' "$r"
ok "$(jq_e '.vm.command | test("isolcpus=domain,1 ")' "$r" > /dev/null; echo $?)" \
   "a counted guest balances no load between its vCPUs (isolcpus=domain,1)"
# bench's counted pair: the work table before the (emulated) timings
MTEBENCH_WORK=1 "$M" bench --service memcached --mode async --reps 1 --duration 0.5 --warmup 0 \
    --results "$T_TMP/bench" > "$T_TMP/bench.out" 2> "$T_TMP/bench.err"
is "$?" 0 "bench with COUNT=1: the counted pair, then the timed runs" || { dump "$T_TMP/bench.err"; dump "$T_TMP/bench.out"; }
wl=$(grep -n "^MTE's work per request, memcached: exact (counted on vm, kernel stock)" "$T_TMP/bench.out" | cut -d: -f1)
tl=$(grep -n 'plain/off' "$T_TMP/bench.out" | grep -v "EL[01]\|vCPU" | tail -1 | cut -d: -f1)
ok "$([ -n "$wl" ] && [ -n "$tl" ] && [ "$wl" -lt "$tl" ]; echo $?)" "the work table comes first, the timings' table after it" ||
    dump "$T_TMP/bench.out"
ok "$(grep -Eq '^  EL0 Tag Checked loads +0\.0 +[1-9][0-9.]* +new$' "$T_TMP/bench.out"; echo $?)" \
   "its EL0 Tag Checked loads: none for plain/off, some for tagged/async (new)" || dump "$T_TMP/bench.out"
ok "$(jq_e '.work.per_request.service.el1 | .loads_checked == 0 and .stores_checked == 0' "$T_TMP"/bench/work/002-tagged-async-stock/record.json > /dev/null; echo $?)" \
   "tagged/async on stock: no EL1 access Tag Checked (Linux keeps TCO set in the kernel for async tasks)"
"$M" bench --service memcached --mode async --reps 1 --duration 0.5 --warmup 0 --results "$T_TMP/bench0" > "$T_TMP/b0.out" 2> "$T_TMP/b0.err"
ok "$(grep -q '^mtebench: work not counted (COUNT=0)' "$T_TMP/b0.err" && [ ! -e "$T_TMP/bench0/work" ]; echo $?)" \
   "COUNT=0 (the suite's default): nothing counted, and bench says so"
"$M" report "$T_TMP/bench/work" --out "$T_TMP/rep" --name w > "$T_TMP/rep.out" 2>&1
ok "$(test $? = 2 && grep -q 'a counted run: the counting plugin slowed it, its figures are no timing' "$T_TMP/rep.out"; echo $?)" \
   "report takes no counted record for a timing, and says why" || dump "$T_TMP/rep.out"
# the bench's report: its work section (Markdown, HTML, work.csv, summary.json)
W="$T_TMP/rep/b"
"$M" report "$T_TMP/bench" --out "$T_TMP/rep" --name b > "$T_TMP/repb.out" 2>&1
is "$?" 0 "report of the counted bench (exit 0)" || dump "$T_TMP/repb.out"
ok "$(grep -q "^## MTE's work per request (exact, counted)" "$W/report.md" &&
      grep -Eq '^\| memcached tagged/async \| stock \| .*[0-9] \([0-9.]+x\) \|' "$W/report.md" &&
      grep -q '<section id="work">' "$W/index.html" &&
      [ "$(wc -l < "$W/work.csv")" = 3 ] && head -1 "$W/work.csv" | grep -q '^service,variant,mode,kernel,role,requests,el0_insns' &&
      jq_e '(.work | length) == 2 and (.work[] | select(.variant == "tagged") | .ratio.el1_insns > 0)' "$W/summary.json" > /dev/null; echo $?)" \
   "the report's work section: report.md (with the ratio to plain/off), index.html, work.csv (two rows), summary.json" ||
    { dump "$W/report.md" 40; cat "$W/work.csv"; }
MTEBENCH_WORK=maybe "$M" bench --service memcached --mode async --reps 1 --results "$T_TMP/bench1" > "$T_TMP/b1.out" 2>&1
ok "$(test $? = 2 && grep -q 'MTEBENCH_WORK=maybe: 0, 1 or auto' "$T_TMP/b1.out"; echo $?)" "a bad COUNT is refused by name (exit 2)"
done_testing
