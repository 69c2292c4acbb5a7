#!/bin/bash
# memcached's bug catalogue (services/memcached/bugs/, docs/DETECTION.md) as
# detection trials under emu: CVE-2016-8704 (a binary APPEND whose negative
# value length sizes a slab item too small; the key copy runs past the chunk)
# is reached and triggered in every trial; plain (off) and tagged (sync: glibc
# heap tagging, one tag for the whole slab page) miss it; objtag catches it,
# synchronously at the first byte of the neighbouring chunk and asynchronously.
# The extlen stack overflow (CVE-2020-10931) is reached and triggered and no
# tag check catches it, objtag sync included. CVE-2018-1000127 (a refcount
# wrap: a use after free in a slab chunk) is caught by objtag only;
# CVE-2017-9951 (a read before the read buffer) by glibc's tagging;
# memcached-f249724 (an uninitialised pointer sent as an error message) by
# none. Each bug's fixed-build
# control (its trigger with the bug off) is refused where the upstream fix
# refuses. Bug variants are refused by bench, run and plans, by name.
. "$(dirname "$0")/../../lib.sh"
R="$T_TMP/detect"
t0=$(date +%s)
"$B/mtebench" detect --service memcached --platform emu --bugs CVE-2016-8704 --trials 1 \
    --configs plain/off,tagged/sync,objtag/sync,objtag/async --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect: every trial reached its bug (exit 0)" || dump "$T_TMP/out"
"$B/mtebench" detect --service memcached --platform emu --bugs CVE-2020-10931 --trials 1 \
    --configs objtag/sync --results "$R" > "$T_TMP/out2" 2>&1
is "$?" 0 "detect: the stack bug's trial reached it (exit 0)" || dump "$T_TMP/out2"
# the first real use after free objtag catches and glibc's tagging misses (the
# refcount wrap), and an out-of-bounds read glibc's tagging catches (16 bytes
# before the read buffer: its chunk header, tag 0)
"$B/mtebench" detect --service memcached --platform emu --bugs CVE-2018-1000127,CVE-2017-9951,memcached-f249724 --trials 1 \
    --configs tagged/sync,objtag/sync --results "$T_TMP/detect2" > "$T_TMP/out4" 2>&1
is "$?" 0 "detect: the use after free's and the read's trials reached their bugs (exit 0)" || dump "$T_TMP/out4"
echo "# detect trials: $(( $(date +%s) - t0 )) s"
u() { echo "$T_TMP/detect2/CVE-2018-1000127/$1-001/detect.json"; }
is "$(jq -r .outcome "$(u tagged-sync)")" silent "CVE-2018-1000127 tagged/sync: the freed slab chunk keeps the page's one tag: missed"
ok "$(jq_e '.outcome=="caught_sync" and .reached and .triggered and .fault.si_code==9 and .fault_in=="the object"' "$(u objtag-sync)" >/dev/null; echo $?)" \
   "CVE-2018-1000127 objtag/sync: the freed item read through a stale response, caught inside the chunk ($(jq -c '[.outcome,.fault_offset]' "$(u objtag-sync)"))"
# the first refcount the check sees past the limit: 60001, or a little more when
# another thread (the LRU maintainer, the crawler) held a reference at that moment;
# bugs.patch prints the value it compared (read once: a CI run on dceeac4 printed
# 60000 from a second read, after another thread let its reference go)
rc_seen=$(sed -n 's/.*mtbbug: object .*, refcount \([0-9]*\) of 65535.*/\1/p' \
    "$T_TMP/detect2/CVE-2018-1000127/objtag-sync-001/service.log" | head -1)
ok "$([ -n "$rc_seen" ] && [ "$rc_seen" -gt 60000 ] && [ "$rc_seen" -le 65535 ]; echo $?)" \
   "CVE-2018-1000127: the item's refcount passed the fix's limit (60000): ${rc_seen:-none}"
# an uninitialised read: the error message's pointer as the stack held it,
# sent; no tag check sees it
f="$T_TMP/detect2/memcached-f249724/objtag-sync-001/detect.json"
ok "$(jq_e '.reached and .triggered and (.fault.tag_check | not)' "$f" >/dev/null &&
      grep -q '^mtbbug: uninitialised errstr 0x' "$T_TMP/detect2/memcached-f249724/objtag-sync-001/service.log"; echo $?)" \
   "memcached-f249724 objtag/sync: the uninitialised errstr was sent, no tag check saw it ($(jq -r .outcome "$f"))"
# the headline by class and by where the object lives (real bugs; objtag/sync)
ok "$(jq_e '[.headline[] | select(.config=="objtag/sync") | (.by_memory | map({(.memory): "\(.bugs_caught)/\(.bugs_tested)"}) | add)
      == {"slab chunk": "1/1", "glibc malloc": "1/1", "stack": "0/1"}] == [true]' "$T_TMP/detect2/detect.json" >/dev/null &&
      grep -q '^| uninitialised read | 0/1 | 0/1 |$' "$T_TMP/detect2/detect.md"; echo $?)" \
   "headline by memory: objtag/sync catches the slab chunk's and glibc's, not the stack's; by class in detect.md"
r9() { echo "$T_TMP/detect2/CVE-2017-9951/$1-001/detect.json"; }
for c in tagged-sync objtag-sync; do
    ok "$(jq_e '.outcome=="caught_sync" and .fault_offset==-16 and .fault_in=="before the object"' "$(r9 $c)" >/dev/null; echo $?)" \
       "CVE-2017-9951 $c: the next header read 16 bytes before the read buffer, caught ($(jq -c '[.outcome,.fault_offset]' "$(r9 $c)"))"
done
# the catch explained (docs/DETECTION.md, "Fault reports"): the report made
# from libmtealloc's record names the read buffer the bug's own log names.
# glibc does not keep neighbours' tags apart: when the object just before
# the buffer drew the buffer's tag (1 in 15), "0 bytes past it" ranks
# first and the buffer's underflow must be the first alternative
ok "$(jq_e '.object.addr as $o | .fault.report as $r | $r.access == "read" and $r.stack[0].function == "try_read_command_binary"
      and (($r.cause == "buffer underflow" and $r.object.size == 16384 and $r.object.distance == 16 and $r.object.start == $o
            and ($r.alloc_stack | map(.function) | index("rbuf_alloc") != null))
        or ($r.object.tag == $r.pointer_tag and $r.object.relation == "past" and $r.object.distance == 0
            and $r.alternatives[0].cause == "buffer underflow" and $r.alternatives[0].object.start == $o))' \
      "$(r9 tagged-sync)" >/dev/null; echo $?)" \
   "CVE-2017-9951 tagged/sync explained: a read 16 bytes before the 16384-byte read buffer ($(jq -r .fault.report.headline "$(r9 tagged-sync)"))" ||
    "$B/mtebench" explain "$(dirname "$(r9 tagged-sync)")" | sed 's/^/#   /'
# diagnosability: the bugs each configuration catches and explains (the
# report's cause fits the class and its object is the log's), in
# detect.json, detect.md and, with each report, detect.html: the headline
# counts the trials' own judgements (one trial a cell); objtag/sync explains
# at least CVE-2018-1000127 (its chunk's new tag excludes the old one)
expl() { cat "$T_TMP"/detect2/*/"$1"-001/detect.json | jq -s '[.[] | select(.explained.ok)] | length'; }
reps=$(cat "$T_TMP"/detect2/*/*-001/detect.json | jq -s '[.[] | select(.fault.report)] | length')
et=$(expl tagged-sync) eo=$(expl objtag-sync)
ok "$(jq_e --argjson t "$et" --argjson o "$eo" '[.headline[] | {(.config): [.bugs_caught, .explained.bugs]}] | add
      == {"tagged/sync": [1,$t], "objtag/sync": [2,$o]}' "$T_TMP/detect2/detect.json" >/dev/null && [ "$eo" -ge 1 ] &&
      grep -q "^| objtag/sync | 2 of 3 | .* | $eo: " "$T_TMP/detect2/detect.md" &&
      [ "$(grep -c '<pre>Cause: \[MTE\]' "$T_TMP/detect2/detect.html")" = "$reps" ]; echo $?)" \
   "explained: tagged/sync $et of 1 caught, objtag/sync $eo of 2, as the trials judged; detect.md's column; detect.html's $reps reports" ||
    jq -c '.headline[] | [.config, .bugs_caught, .explained]' "$T_TMP/detect2/detect.json" | sed 's/^/#   /'
# objtag's slab chunks, told to libmtealloc by the objtag patch: the use
# after free of CVE-2018-1000127 (the chunk freed by item_remove while the
# LRU maintainer still reads it) with the allocation's and the free's stacks
ok "$(jq_e '.fault.report as $r | $r.cause == "use after free" and $r.object.kind == "service"
      and $r.object.start == .object.addr and $r.object.size == 96 and $r.object.offset == .fault_offset
      and ($r.alloc_stack | map(.function) | index("do_slabs_alloc") != null)
      and ($r.free_stack | map(.function) | index("do_slabs_free") != null)' "$(u objtag-sync)" >/dev/null; echo $?)" \
   "CVE-2018-1000127 objtag/sync explained: a use after free of the 96-byte slab chunk the bug's log names, allocated and freed where" ||
    "$B/mtebench" explain "$(dirname "$(u objtag-sync)")" | sed 's/^/#   /'
d() { echo "$R/CVE-2016-8704/$1-001/detect.json"; }
for c in plain-off tagged-sync objtag-sync objtag-async; do
    ok "$(jq_e '.schema=="mtebench-detect/1" and .reached and .triggered and .proof_ok' "$(d $c)" >/dev/null; echo $?)" \
       "CVE-2016-8704 $c: reached and triggered (the trigger still reaches the bug), mode proved" || dump "$R/CVE-2016-8704/$c-001/service.log"
done
is "$(jq -r .outcome "$(d plain-off)")" silent "plain/off: the overflow goes unseen"
is "$(jq -r .outcome "$(d tagged-sync)")" silent "tagged/sync: glibc tagging misses the slab overflow"
is "$(jq -r .outcome "$(d objtag-sync)")" caught_sync "objtag/sync: caught synchronously"
ok "$(jq_e '.fault.si_code==9 and .fault_in=="past the object (its neighbour)" and .fault_offset==.object.size' "$(d objtag-sync)" >/dev/null; echo $?)" \
   "objtag/sync: the fault is at the first byte past the item's chunk ($(jq -c '[.fault_offset,.object.size]' "$(d objtag-sync)"))"
ok "$(jq_e '.fault.report as $r | $r.cause == "buffer overflow" and $r.object.start == .object.addr
      and $r.object.relation == "past" and $r.object.distance == 0 and $r.object.size == .object.size' "$(d objtag-sync)" >/dev/null; echo $?)" \
   "objtag/sync explained: a buffer overflow, 0 bytes past the end of the item's chunk" ||
    "$B/mtebench" explain "$(dirname "$(d objtag-sync)")" | sed 's/^/#   /'
is "$(jq -r .outcome "$(d objtag-async)")" caught_async "objtag/async: caught asynchronously (SEGV_MTEAERR)"
is "$(jq -r '[.fault.report.cause, .explained.ok] | @tsv' "$(d objtag-async)")" "unknown: asynchronous, the address is not known	false" \
   "objtag/async: caught, not explained: the report says what async cannot know"
s="$R/CVE-2020-10931/objtag-sync-001/detect.json"
ok "$(jq_e '.reached and .triggered and (.outcome=="silent" or .outcome=="caught_other") and (.fault.tag_check|not)' "$s" >/dev/null; echo $?)" \
   "CVE-2020-10931 objtag/sync: the stack overflow is no tag-check catch ($(jq -r .outcome "$s"))"
ok "$(jq_e '.schema=="mtebench-detect-matrix/1" and (.cells|length)==1' "$R/detect.json" >/dev/null; echo $?)" \
   "the matrix of the last detect (detect.json) holds its cell"
grep -q '^| CVE-2020-10931 | stack |' "$R/detect.md"
is "$?" 0 "detect.md: the stack bug's row"
ok "$(grep -q '<td>CVE-2020-10931</td><td>stack</td>' "$R/detect.html" && grep -q 'Detection is exact under QEMU' "$R/detect.html"; echo $?)" \
   "detect.html: the row and the note on exactness"
# resumable: the trials already classified are not run again; --cost puts
# bench records' overheads (here the records of 6a9d852: tagged/sync, emu)
# beside the catch rates
"$B/mtebench" detect --service memcached --platform emu --bugs CVE-2016-8704 --trials 1 \
    --configs plain/off,tagged/sync,objtag/sync,objtag/async --results "$R" \
    --cost "$ROOT/tests/fixtures/records-6a9d852" > "$T_TMP/out3" 2>&1
ok "$(! grep -q '^detect [0-9]' "$T_TMP/out3" && jq_e '[.cells[] | .counts.caught_sync // 0] | add==1' "$R/detect.json" >/dev/null; echo $?)" \
   "a second detect into the same results runs nothing and rebuilds the matrix"
ok "$(jq_e '([.headline[] | select(.config=="tagged/sync") | .cost.slowdown > 1 and .cost.lo <= .cost.slowdown] == [true])
    and ([.headline[] | select(.config=="plain/off") | .cost.baseline] == [true])
    and ([.headline[] | select(.config=="objtag/sync") | .cost] == [null])' "$R/detect.json" >/dev/null; echo $?)" \
   "--cost: tagged/sync's bench overhead beside its catch rate, plain/off the baseline, objtag/sync not measured there"
grep -q 'tagged/sync .*overhead [0-9.]*x \[' "$T_TMP/out3"; is "$?" 0 "the text headline shows the overhead" || dump "$T_TMP/out3"
# the report puts the catch rate beside the overhead of the same service,
# variant and mode (what the price buys): the fixture's tagged/sync overhead
# beside the matrix just made; objtag/sync has no cost there and no row
"$B/mtebench" report --detect "$R" --out "$T_TMP/rep" --name prot "$ROOT/tests/fixtures/records-6a9d852" > "$T_TMP/rp" 2>&1
is "$?" 0 "report --detect writes the report" || dump "$T_TMP/rp"
ok "$(jq_e '([.protection[] | select(.variant=="tagged" and .mode=="sync") | .bugs_caught==0 and .bugs_tested==1
      and .slowdown.median > 1 and .detect_platform=="emu"] == [true])
    and ([.protection[] | select(.variant=="plain") | .baseline] == [true])
    and ([.protection[] | select(.variant=="objtag")] == [])' "$T_TMP/rep/prot/summary.json" >/dev/null; echo $?)" \
   "summary.json: tagged/sync's overhead beside 0 of 1 caught, plain/off the baseline, objtag/sync (no cost) left out"
ok "$(grep -q 'id="protection"><h2>What the price buys' "$T_TMP/rep/prot/index.html" &&
      grep -q '<td>memcached tagged/sync</td><td>[0-9.]*x \[[0-9.]*, [0-9.]*\] on emu (emulated timing)</td><td>0 of 1</td>' "$T_TMP/rep/prot/index.html" &&
      grep -q 'Detection is exact under QEMU' "$T_TMP/rep/prot/index.html"; echo $?)" \
   "index.html: the row, the overhead labelled emulated, the note on exactness"
grep -q '^| memcached tagged/sync | .* | 0 of 1 |' "$T_TMP/rep/prot/report.md"; is "$?" 0 "report.md: the row"
"$B/mtebench" report --detect "$T_TMP" --out "$T_TMP/rep" --name bad "$ROOT/tests/fixtures/records-6a9d852" > "$T_TMP/rb" 2>&1
ok "$(test $? = 2 && grep -q 'no detection matrix' "$T_TMP/rb"; echo $?)" "report --detect on a directory without a matrix: refused, named (exit 2)"
# the fixed-build controls: each bug's trigger with the bug off; the fix refuses it, none of the bug's code runs,
# and memcached answers as the manifest says (a control that triggers, or a trigger that no longer reaches the
# fix, fails here). Three bugs: a binary-protocol length (CVE-2016-8704), the read buffer's
# (CVE-2017-9951) and a text-protocol one whose fix answers differently (memcached-849); every bug's
# control: tests/long/detect-catalogue.t
"$B/mtebench" detect --controls --service memcached --bugs CVE-2016-8704,CVE-2017-9951,memcached-849 --platform emu \
    --results "$T_TMP/ctl" > "$T_TMP/c" 2>&1
is "$?" 0 "detect --controls: the memcached bugs' controls pass (exit 0)" || dump "$T_TMP/c"
for bug in CVE-2016-8704 CVE-2017-9951 memcached-849; do
    f="$T_TMP/ctl/$bug/control/detect.json"
    ok "$(jq_e '.outcome == "refused" and .trigger.alive_after' "$f" > /dev/null &&
          grep -q "^mtbbug: refused $bug\$" "$T_TMP/ctl/$bug/control/service.log" &&
          ! grep -q "mtbbug: \(reached\|triggered\) $bug" "$T_TMP/ctl/$bug/control/service.log"; echo $?)" \
        "$bug's control: refused where the fix refuses, the bug's code not run, $(jq -r .expect "$f" 2>/dev/null)" ||
        jq -c '{outcome, why}' "$f" | sed 's/^/# /'
done
ok "$(jq_e '.trigger.received == 5' "$T_TMP/ctl/memcached-849/control/detect.json" > /dev/null; echo $?)" \
   "memcached-849's control: the fixed copy answers END (5 bytes) where the bug's copy answered ERROR"
# bug variants are never measured
"$B/mtebench" bench --service memcached --platform emu --mode sync --variant objtag-bugs > "$T_TMP/b" 2>&1
is "$?" 2 "bench refuses a bug variant (exit 2)"
grep -q "re-introduced bugs" "$T_TMP/b"; is "$?" 0 "bench says why" || dump "$T_TMP/b"
"$B/mtebench" run --service memcached --platform emu --mode off --variant plain-bugs > "$T_TMP/r" 2>&1
is "$?" 2 "run refuses a bug variant (exit 2)"
printf '[plan]\nname = x\nreps = 1\n\n[m]\nservice = memcached\nmodes = sync\nvariants = objtag-bugs\n' > "$T_TMP/p.conf"
"$B/mtebench" plan "$T_TMP/p.conf" --platform emu --results "$T_TMP/plan" > "$T_TMP/p" 2>&1
ok "$(grep -q "re-introduced bugs" "$T_TMP/p"; echo $?)" "a plan naming a bug variant is refused" || dump "$T_TMP/p"
done_testing
