#!/bin/bash
# nginx's bug catalogue (services/nginx/bugs/, docs/DETECTION.md) under emu:
# CVE-2021-23017, the resolver's stray '.' one byte past a malloc'd name
# (nginx-detect.conf proxies to http://$arg_h, the trigger driver answers the
# worker's DNS query with a CNAME of one label and a compression pointer).
# A 16-byte name: plain (off) misses it, objtag (sync) catches it at byte 16,
# the first byte past the object. A 15-byte name: the '.' stays inside the
# object's last granule and objtag misses it too (intra-granule).
# CVE-2009-2629, 0.8.14's "/../" walk (GET //../mtbbug, merge_slashes off) reading back before the URI's pool allocation:
# plain (off) misses it, objtag (sync: a tag per small pool allocation)
# catches it one byte before the object (glibc tags the pool block as one).
# CVE-2013-2028, the chunked body's negative size: the client's bytes run past
# the 4096-byte stack buffer; objtag (sync) dies of a plain SIGSEGV at the
# client's bytes, no tag check: heap tagging does not see the stack.
# Each bug's fixed-build control (its trigger with the bug off) is refused.
. "$(dirname "$0")/../../lib.sh"
R="$T_TMP/detect"
t0=$(date +%s)
"$B/mtebench" detect --service nginx --platform emu --bugs CVE-2021-23017,CVE-2021-23017-intra --trials 1 \
    --configs plain/off,objtag/sync --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect: every trial reached its bug (exit 0)" || dump "$T_TMP/out"
echo "# detect trials: $(( $(date +%s) - t0 )) s"
d() { echo "$R/$1/$2-001/detect.json"; }
for b in CVE-2021-23017 CVE-2021-23017-intra; do
    for c in plain-off objtag-sync; do
        ok "$(jq_e '.reached and .triggered and .proof_ok and .trigger.alive_after != null' "$(d $b $c)" >/dev/null; echo $?)" \
           "$b $c: reached and triggered (the trigger still reaches the bug)" || dump "$R/$b/$c-001/service.log"
    done
    is "$(jq -r .outcome "$(d $b plain-off)")" silent "$b plain/off: the stray byte goes unseen"
done
ok "$(jq_e '.outcome=="caught_sync" and .object.size==16 and .fault_offset==16' "$(d CVE-2021-23017 objtag-sync)" >/dev/null; echo $?)" \
   "CVE-2021-23017 objtag/sync: caught at byte 16 of the 16-byte name ($(jq -c '[.outcome,.object.size,.fault_offset]' "$(d CVE-2021-23017 objtag-sync)"))"
ok "$(jq_e '.outcome=="silent" and .object.size==15' "$(d CVE-2021-23017-intra objtag-sync)" >/dev/null; echo $?)" \
   "CVE-2021-23017-intra objtag/sync: byte 15 of a 15-byte name is inside its granule: missed"
"$B/mtebench" detect --service nginx --platform emu --bugs CVE-2013-2028 --trials 1 --kernel-check none \
    --configs objtag/sync --results "$R" > "$T_TMP/out2" 2>&1
is "$?" 0 "detect: the stack bug's trial reached it (exit 0)" || dump "$T_TMP/out2"
s=$(d CVE-2013-2028 objtag-sync)
ok "$(jq_e '.reached and .triggered and .outcome=="caught_other" and (.fault.tag_check|not) and .fault.addr=="0x0043434343434343"' "$s" >/dev/null; echo $?)" \
   "CVE-2013-2028 objtag/sync: reached, triggered, a SIGSEGV at the client's bytes, no tag check ($(jq -c '[.outcome,.fault.addr]' "$s"))" || dump "$R/CVE-2013-2028/objtag-sync-001/service.log"
"$B/mtebench" detect --service nginx --platform emu --bugs CVE-2009-2629 --trials 1 \
    --configs plain/off,objtag/sync --results "$R" > "$T_TMP/out4" 2>&1
is "$?" 0 "detect: the pool underflow's trials reached it (exit 0)" || dump "$T_TMP/out4"
ok "$(jq_e '.reached and .triggered and .outcome=="silent"' "$(d CVE-2009-2629 plain-off)" >/dev/null; echo $?)" \
   "CVE-2009-2629 plain/off: reached, triggered, unseen" || dump "$R/CVE-2009-2629/plain-off-001/service.log"
ok "$(jq_e '.reached and .triggered and .outcome=="caught_sync" and .fault_offset==-1' "$(d CVE-2009-2629 objtag-sync)" >/dev/null; echo $?)" \
   "CVE-2009-2629 objtag/sync: caught one byte before the URI's pool allocation ($(jq -c '[.outcome,.fault_offset]' "$(d CVE-2009-2629 objtag-sync)"))" || dump "$R/CVE-2009-2629/objtag-sync-001/service.log"
"$B/mtebench" detect --service nginx --platform emu --bugs CVE-2021-23017,CVE-2021-23017-intra,CVE-2013-2028,CVE-2009-2629 --trials 1 \
    --kernel-check none --configs objtag/sync --results "$R" > "$T_TMP/out3" 2>&1
ok "$(! grep -q '^detect [0-9]' "$T_TMP/out3" &&
      jq_e '.headline_counts == "real bugs" and
            ([.headline[] | select(.config=="objtag/sync") | .bugs_caught==2 and .bugs_tested==3] | all) and
            ([.headline[] | select(.config=="objtag/sync") | .by_memory[] | select(.memory=="stack") | .bugs_caught==0 and .bugs_tested==1] == [true])' "$R/detect.json" >/dev/null; echo $?)" \
   "headline (nothing run again): objtag/sync catches 2 of the 3 real bugs (the intra-granule twin is a second trigger, not counted), 0 of 1 on the stack"
# CVE-2013-2028's bad write is recv's (access_in syscall): under emu its cells are marked as what qemu-user cannot check
# (the kernel's answer beside it on vm, the default --kernel-check, is detect-kernel.t's, on this bug's stacktag build)
ok "$(jq_e '[.cells[] | select(.bug=="CVE-2013-2028") | .kernel_access_unchecked] | length > 0 and all' "$R/detect.json" >/dev/null &&
      jq_e '[.cells[] | select(.bug!="CVE-2013-2028") | .kernel_access_unchecked // false] | any | not' "$R/detect.json" >/dev/null &&
      grep -q '^(†) the bad access happens inside a system call' "$R/detect.md"; echo $?)" \
   "the system-call bug's emu cells are marked (†: qemu-user never checks a system call's access), no other bug's"
# detect.html: the matrix as one grid, a row per bug grouped by class, a column per configuration, each cell
# coloured by its outcome and giving the count
sed -n '/<table class="grid">/,/<\/table>/p' "$R/detect.html" > "$T_TMP/grid"
nb=$(jq '[.cells[].bug] | unique | length' "$R/detect.json")
nc=$(jq '[.cells[] | .variant + "/" + .mode] | unique | length' "$R/detect.json")
ok "$([ "$(grep -c '<td>CVE-' "$T_TMP/grid")" = "$nb" ] && [ "$(grep -o '<th>[a-z]*/[a-z]*</th>' "$T_TMP/grid" | wc -l)" = "$nc" ] &&
      grep -q '<td>CVE-2021-23017</td>.*<td class="caught" title="caught_sync [0-9]*">[0-9]*/[0-9]*</td>' "$T_TMP/grid" &&
      grep -q '<th rowspan="1">intra-granule overflow</th><td>CVE-2021-23017-intra</td>' "$T_TMP/grid"; echo $?)" \
   "detect.html: one grid, $nb bug rows by class x $nc configurations, CVE-2021-23017's objtag/sync cell caught" ||
    dump "$T_TMP/grid"
# the fixed-build controls: each trigger with its bug off is refused where the upstream fix refuses (for the
# resolver's rewrite: its copy meets the label-then-pointer the old one overran), none of the bug's code runs,
# and nginx answers. Three bugs (the resolver's, the chunked body's, and one of the history's); every
# bug's control: tests/long/detect-catalogue.t. A switch left in the shell's environment
# (MTEBENCH_BUG) reaches no service: a trial's switch is its run's alone
MTEBENCH_BUG=CVE-2013-2028 "$B/mtebench" detect --controls --service nginx --bugs CVE-2013-2028,CVE-2021-23017,nginx-077a890a7 --platform emu \
    --results "$T_TMP/ctl" > "$T_TMP/c" 2>&1
is "$?" 0 "detect --controls: the nginx bugs' controls pass (exit 0)" || dump "$T_TMP/c"
is "$(jq -r '[.[] | .bug + ":" + .outcome] | join(" ")' "$T_TMP/ctl/controls.json")" \
    "CVE-2013-2028:refused CVE-2021-23017:refused nginx-077a890a7:refused" \
    "each control refused, as control_expect says ($(jq -r '[.[] | .expect] | join(", ")' "$T_TMP/ctl/controls.json"))"
done_testing
