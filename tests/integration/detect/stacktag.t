#!/bin/bash
# Stack tagging (docs/DETECTION.md, "Stack tagging"): memcached's `stacktag`
# variant (Clang's -fsanitize=memtag, its stacks made PROT_MTE by
# libmtestack.so) catches CVE-2020-10931, a memcpy 40 bytes past a stack
# array in user code, by a tag check in sync mode under emu; its peer `clang`
# (the same Clang build without stack tagging) does not. A bench prices
# stacktag against its peer, and where it cannot run it is refused by name.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
D="$T_TMP/det"

"$M" detect --service memcached --bugs CVE-2020-10931 --variants clang,stacktag --modes sync --trials 1 \
    --platform emu --results "$D" > "$T_TMP/det.out" 2>&1
dump "$T_TMP/det.out" 6
S="$D/CVE-2020-10931/stacktag-sync-001/detect.json" C="$D/CVE-2020-10931/clang-sync-001/detect.json"
ok "$(jq_e '.outcome=="caught_sync" and .fault.si_code==9' "$S" >/dev/null; echo $?)" \
   "stacktag/sync: the stack overflow is a synchronous tag-check fault (SEGV_MTESERR)" || dump "$S"
# the catch explained: the stack, the tagged slot's extent from the memory
# tags (granules with the pointer's tag), the bad access just past it
ok "$(jq_e '.explained.ok and (.fault.report | .cause=="stack" and .object.kind=="stack" and .object.relation=="past"
      and .object.size >= 16 and (.stack | map(.function) | index("try_read_command_binary") != null))' "$S" >/dev/null; echo $?)" \
   "stacktag/sync explained: past the end of a tagged stack slot, in try_read_command_binary" ||
    "$M" explain "$(dirname "$S")" | sed 's/^/#   /'
ok "$(jq_e '.outcome!="caught_sync" and .outcome!="caught_async" and .outcome!="not_reached"' "$C" >/dev/null; echo $?)" \
   "clang/sync (heap tagging only, same compiler): reached, and no tag check catches it" || dump "$C"
R="$D/CVE-2020-10931/stacktag-sync-001/record.json"
ok "$(jq_e '.proof.stack_tagging.main_stack and .proof.stack_tagging.thread_stacks >= 1' "$R" >/dev/null; echo $?)" \
   "the trial's proof: the main stack and the worker threads' stacks made PROT_MTE" || dump "$R"
ok "$(jq_e '.proof.stack_tagging == null' "$D/CVE-2020-10931/clang-sync-001/record.json" >/dev/null; echo $?)" \
   "the peer has no stack set-up"

# nginx CVE-2013-2028 (a recv past a stack buffer): detect-kernel.t, beside
# a real kernel's answer

# the cost: stacktag and its peer against plain/off, in one bench
"$M" bench --service memcached --mode sync --variant clang,stacktag --platform emu --reps 1 --duration 1 --warmup 0 \
    --results "$T_TMP/b" > "$T_TMP/b.out" 2>&1
is "$?" 0 "bench --variant clang,stacktag runs" || dump "$T_TMP/b.out"
ok "$(jq_e '[.overheads[]|.variant] == ["clang","stacktag"]' "$T_TMP/b/summary.json" >/dev/null; echo $?)" \
   "both priced against plain/off"
ok "$(jq -s -e 'map(select(.config.variant=="stacktag")) | length==1 and all(.status=="ok" and
      .proof.stack_tagging.main_stack and .build.toolchain!=null)' "$T_TMP"/b/*/record.json >/dev/null; echo $?)" \
   "the stacktag run is ok, with its stacks proved"
ok "$(jq -s -e '[.[]|select(.config.variant=="clang" or .config.variant=="stacktag")|.build.toolchain|test("clang")] |
      length==2 and all' "$T_TMP"/b/*/record.json >/dev/null; echo $?)" "both built by Clang (the build's toolchain)"

# what the price buys: the detection matrix joined to the bench's overheads by
# configuration name (report --detect): stacktag/sync catches the stack bug
"$M" report --name prot --out "$T_TMP/rep" --detect "$D" "$T_TMP/b" > "$T_TMP/rep.out" 2>&1
is "$?" 0 "report --detect joins the trials to the bench" || dump "$T_TMP/rep.out"
# beside the bench's own overhead for the configuration (the join, not the
# overhead's size: one 1 s pair under emulation once measured stacktag at 0.965x)
ok "$(jq_e --slurpfile b "$T_TMP/b/summary.json" '[.protection[] | select(.variant=="stacktag" and .mode=="sync")] | length==1 and
      (.[0] | .bugs_caught==1 and .bugs_tested==1 and .slowdown.median > 0 and
       .slowdown.median == ([$b[0].overheads[] | select(.variant=="stacktag" and .mode=="sync") | .slowdown.median][0]))' \
      "$T_TMP/rep/prot/summary.json" >/dev/null; echo $?)" "stacktag/sync: 1 of 1 stack bug caught, beside the bench's overhead for it" || dump "$T_TMP/rep.out"
ok "$(jq_e '[.protection[] | select(.variant=="clang" and .mode=="sync")] | .[0].bugs_caught==0' \
      "$T_TMP/rep/prot/summary.json" >/dev/null; echo $?)" "clang/sync: 0 caught, beside its overhead"
# the picture: a point per configuration, overhead against the share caught
ok "$(sed -n '/id="protection"/,/<\/section>/p' "$T_TMP/rep/prot/index.html" | grep -c 'What the price buys: overhead against the share of the catalogue caught' |
      grep -qx 1 && sed -n '/id="protection"/,/<\/section>/p' "$T_TMP/rep/prot/index.html" | grep -q 'stacktag/sync'; echo $?)" \
   "index.html: the cost-against-protection plot, stacktag/sync among its points"

# refused where it cannot run
if [ "$(uname -m)" != aarch64 ]; then
    "$M" build --service memcached --variant stacktag --target native > /dev/null 2> "$T_TMP/e1"
    is "$?" 1 "a native stacktag build refused on a host that is not arm64"
    ok "$(grep -q 'tags the stack (MTE): arm64 code only' "$T_TMP/e1"; echo $?)" "saying why" || dump "$T_TMP/e1"
fi
"$M" bench --service postgresql --mode sync --variant stacktag --platform emu --dry-run > /dev/null 2> "$T_TMP/e2"
is "$?" 2 "stacktag of a service that has none refused"
ok "$(grep -q "the services that have it: memcached, nginx" "$T_TMP/e2"; echo $?)" \
   "naming the services that have it" || dump "$T_TMP/e2"
done_testing
