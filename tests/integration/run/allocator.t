#!/bin/bash
# The allocator axis (harness/core/allocator.h): ALLOCATOR=glibc,scudo runs
# each configuration under both, each allocator with its own plain/off
# baseline; the record names the allocator and the proof shows whose malloc
# served the probe and how much of the heap it tags; the summary gives the
# three costs (the allocator alone, tagging under each, their ratio) and its
# arithmetic is the records'. An allocator that cannot run is refused by name.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/alloc"

"$M" bench --service memcached --mode async --platform emu --allocator glibc,scudo --reps 2 --duration 1 \
    --warmup 0 --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 0 "bench --allocator glibc,scudo runs" || { dump "$T_TMP/err"; dump "$T_TMP/out"; }
recs=$(ls "$R"/*/record.json | wc -l)
is "$recs" 8 "four configurations (each allocator's plain/off and tagged/async) x 2 repetitions"
ls -d "$R"/*-plain+scudo-off-rep1 "$R"/*-tagged+scudo-async-rep2 "$R"/*-tagged-async-rep1 >/dev/null 2>&1
is "$?" 0 "run directories name a non-glibc allocator beside the variant; glibc's keep their names"

# each record: its allocator, and the proof of whose malloc served the probe
ok "$(jq -s -e 'map(select(.config.allocator=="scudo")) | length==4 and all(.status=="ok")' "$R"/*/record.json >/dev/null; echo $?)" \
   "four records say allocator scudo, all ok"
ok "$(jq -s -e 'map(select(.config.allocator=="glibc")) | length==4 and
      all(.proof.allocator.malloc_from|startswith("libc.so"))' "$R"/*/record.json >/dev/null; echo $?)" \
   "glibc's records: malloc from libc.so"
ok "$(jq -s -e 'map(select(.config.allocator=="scudo")) |
      all(.proof.allocator.malloc_from|test("scudo_standalone"))' "$R"/*/record.json >/dev/null; echo $?)" \
   "scudo's records: malloc from Scudo's library, as the probe saw it"
ok "$(jq -s -e 'map(select(.config.allocator=="scudo" and .config.mode=="async")) |
      all((.proof.allocator.tagged_small|split("/")[0]|tonumber) >= 48 and .proof.allocator.tagged_large=="0/8")' \
      "$R"/*/record.json >/dev/null; echo $?)" \
   "scudo in async: small blocks tagged (a tag drawn at random may be 0), no large (secondary, mmap'd) one"
# Scudo tags on any MTE CPU whatever the mode: in off the fault reporter turns it off
ok "$(jq -s -e 'map(select(.config.allocator=="scudo" and .config.mode=="off")) |
      all(.proof.allocator.tagged_small=="0/64" and .proof.probe.tcf=="none")' "$R"/*/record.json >/dev/null; echo $?)" \
   "scudo's plain/off: no tagged pointer, no tag checks (the allocator alone)"

# the summary: each allocator's own baseline, and the three costs
S="$R/summary.json"
ok "$(jq -e '[.overheads[]|[.variant,.baseline]] == [["tagged","plain/off"],["tagged+scudo","plain+scudo/off"]]' \
      "$S" >/dev/null; echo $?)" "each tagged configuration against its own allocator's plain/off"
ok "$(jq -e '.allocators|length==1 and .[0].allocator=="scudo" and .[0].allocator_alone.pairs==2 and
      (.[0].tagging|length==1 and .[0].pairs==2 and .[0].variant=="tagged" and .[0].mode=="async")' "$S" \
      >/dev/null; echo $?)" "allocators: scudo alone (2 pairs) and tagged/async under it (2 pairs)"
# the arithmetic, from the records: per repetition, the allocator alone is
# glibc plain/off ops / scudo plain/off ops; tagging's ratio is
# (scudo plain / scudo tagged) / (glibc plain / glibc tagged); with two
# repetitions the median is their mean
want=$(jq -s -r '. as $all |
  def ops(a; v; r): $all | map(select(.config.allocator==a and .config.variant==v and .config.rep==r))[0].summary.ops_per_sec;
  [1,2] | map(. as $r | [ (ops("glibc";"plain";$r) / ops("scudo";"plain";$r)),
      ((ops("scudo";"plain";$r) / ops("scudo";"tagged";$r)) / (ops("glibc";"plain";$r) / ops("glibc";"tagged";$r))) ])
  | [ (map(.[0]) | add / 2), (map(.[1]) | add / 2) ] | map(. * 1e6 | round) | @tsv' \
  < <(for f in "$R"/*/record.json; do cat "$f"; done))
got=$(jq -r '.allocators[0] | [.allocator_alone.slowdown.median, .tagging[0].difference.median] | map(. * 1e6 | round) | @tsv' "$S")
is "$got" "$want" "the allocator alone and tagging's ratio are the records' arithmetic"
ok "$(grep -q '^  allocator scudo alone (plain+scudo/off vs glibc.s plain/off): ' "$T_TMP/out"; echo $?)" \
   "bench prints the allocator alone"
ok "$(grep -q '^  tagging tagged/async: .* under scudo, .* under glibc; ratio ' "$T_TMP/out"; echo $?)" \
   "and tagging under each allocator"
"$M" report --name allocrep --out "$T_TMP/rep" "$R" > /dev/null 2> "$T_TMP/rep.err"
is "$?" 0 "report over both allocators' runs" || dump "$T_TMP/rep.err"
ok "$(head -1 "$T_TMP/rep/allocrep/runs.csv" | grep -q $',host,allocator\r$'; echo $?)" "runs.csv ends with the allocator column"
ok "$(grep -q '^## Allocators' "$T_TMP/rep/allocrep/report.md" && grep -q 'id="allocators"' "$T_TMP/rep/allocrep/index.html"; echo $?)" \
   "report.md and index.html have the allocators' table"

# the history: scudo's runs a series of their own, paired with scudo's
# plain/off; glibc's keyed as before the axis (no allocator in the key)
H="$T_TMP/h.sqlite"
"$M" nightly --history "$H" --out "$T_TMP/dash" --ingest "$R" > "$T_TMP/n.out" 2>&1
is "$?" 0 "the runs go into a history" || dump "$T_TMP/n.out"
is "$(sqlite3 "$H" "SELECT allocator || ' ' || (series LIKE '%/tagged+scudo/async/emu/%') FROM runs
                    WHERE variant = 'tagged' GROUP BY series ORDER BY allocator")" $'glibc 0\nscudo 1' \
   "tagged/async: one series per allocator, scudo's named tagged+scudo"
ok "$(sqlite3 "$H" "SELECT series FROM runs WHERE allocator = 'glibc' AND variant = 'tagged' LIMIT 1" |
      grep -q '^bench/memcached/default mix 1:10/tagged/async/emu/host/'; echo $?)" "glibc's series key as before the axis"
hist=$(sqlite3 "$H" "SELECT round(avg(slowdown), 4) FROM overheads WHERE series LIKE '%tagged+scudo%'")
want=$(jq -s -r '. as $all | def ops(v; r): $all | map(select(.config.allocator=="scudo" and .config.variant==v and
       .config.rep==r))[0].summary.ops_per_sec; [1,2] | map(. as $r | ops("plain"; $r) / ops("tagged"; $r)) | add / 2 * 1e4 | round / 1e4' \
       < <(for f in "$R"/*/record.json; do cat "$f"; done))
is "$(printf '%.4f' "$hist")" "$(printf '%.4f' "$want")" "the history pairs scudo's tagged runs with scudo's plain/off"

# detection under the allocator: a trial's configuration is named with it.
# CVE-2017-9951 reads 16 bytes before a malloc'd buffer: under Scudo, tagged
# in sync mode, the read of the chunk header's granule faults at once
"$M" detect --service memcached --bugs CVE-2017-9951 --configs tagged/sync,tagged/async --trials 1 --platform emu \
    --allocator scudo --results "$T_TMP/det" > "$T_TMP/det.out" 2>&1
is "$?" 0 "detect --allocator scudo runs" || dump "$T_TMP/det.out"
ok "$(jq_e '.variant=="tagged+scudo" and .allocator=="scudo" and .outcome=="caught_sync" and .fault_offset==-16' \
      "$T_TMP"/det/CVE-2017-9951/tagged+scudo-sync-001/detect.json >/dev/null; echo $?)" \
   "the trial names tagged+scudo and is caught in sync mode at the chunk header (-16)"
# cost beside protection, the allocator part of the configuration: the
# detection of tagged+scudo/async joined to its overhead in the bench above
"$M" report --name prot --out "$T_TMP/prot" --detect "$T_TMP/det" "$R" > "$T_TMP/prot.out" 2>&1
is "$?" 0 "report --detect joins the Scudo trials to the bench" || dump "$T_TMP/prot.out"
ok "$(jq_e --slurpfile b "$R/summary.json" '[.protection[] | select(.variant=="tagged+scudo")] | map(.mode) == ["async"] and
      (.[0] | .bugs_caught==1 and .bugs_tested==1 and .slowdown.median > 0 and
       .slowdown.median == ([$b[0].overheads[] | select(.variant=="tagged+scudo" and .mode=="async") | .slowdown.median][0]))' \
      "$T_TMP/prot/prot/summary.json" \
      >/dev/null; echo $?)" "tagged+scudo/async: 1 of 1 caught, beside its own overhead (sync: no bench, no row)" \
   || jq -c '.protection' "$T_TMP/prot/prot/summary.json"
ok "$(grep -q 'tagged+scudo/async' "$T_TMP/prot/prot/report.md"; echo $?)" "report.md names the configuration with its allocator"
"$M" detect --service memcached --bugs CVE-2017-9951 --trials 1 --platform emu --allocator glibc,scudo \
    > /dev/null 2> "$T_TMP/det2.err"
is "$?" 2 "detect takes one allocator"

# on vm: the guest image carries Scudo, and the guest's run proves it
"$M" run --service memcached --variant tagged --mode sync --platform vm --allocator scudo --duration 1 --warmup 0 \
    --results "$T_TMP/vm" > "$T_TMP/vm.out" 2>&1
is "$?" 0 "a vm run under Scudo" || dump "$T_TMP/vm.out"
ok "$(jq_e '.config.allocator=="scudo" and .config.platform=="vm" and
      (.proof.allocator.malloc_from|test("scudo_standalone"))' "$T_TMP"/vm/001-tagged+scudo-sync/record.json >/dev/null; echo $?)" \
   "its record: allocator scudo, malloc from Scudo in the guest"

# refused by name where it cannot run
"$M" bench --service memcached --mode async --platform emu --allocator hardened_malloc --dry-run > /dev/null 2> "$T_TMP/e1"
is "$?" 2 "hardened_malloc refused"
ok "$(grep -q 'Debian 12 does not package' "$T_TMP/e1"; echo $?)" "saying why it is not here" || dump "$T_TMP/e1"
"$M" bench --service memcached --mode async --platform emu --allocator jemalloc --dry-run > /dev/null 2> "$T_TMP/e2"
is "$?" 2 "an unknown allocator refused"
ok "$(grep -q "unknown allocator 'jemalloc' (accepted: glibc, scudo)" "$T_TMP/e2"; echo $?)" "naming the accepted ones"
if [ "$(uname -m)" != aarch64 ]; then
    "$M" bench --service memcached --mode off --platform host --allocator scudo --dry-run > /dev/null 2> "$T_TMP/e3"
    is "$?" 2 "scudo refused on a host that is not arm64"
    ok "$(grep -q 'ALLOCATOR=scudo cannot run on PLATFORM=host: allocator scudo runs on arm64 only' "$T_TMP/e3"; echo $?)" \
       "saying why" || dump "$T_TMP/e3"
fi
"$M" run --service memcached --mode off --platform emu --allocator glibc,scudo > /dev/null 2> "$T_TMP/e4"
is "$?" 2 "run takes one allocator"
"$M" capacity --service memcached --mode async --platform emu --allocator scudo --slo p99:1ms --dry-run \
    > /dev/null 2> "$T_TMP/e6"
is "$?" 2 "a capacity search under Scudo refused"
ok "$(grep -q "runs under glibc's allocator only" "$T_TMP/e6"; echo $?)" "saying so" || dump "$T_TMP/e6"
"$M" bench --service memcached --mode async --platform emu --allocator scudo,scudo --dry-run > /dev/null 2> "$T_TMP/e5"
is "$?" 2 "an allocator given twice refused"
"$M" bench --service memcached --mode async --platform emu --allocator glibc,scudo --dry-run > "$T_TMP/dry" 2>&1
ok "$(grep -c 'plain+scudo/off\|tagged+scudo/async' "$T_TMP/dry" | grep -qx 2; echo $?)" \
   "--dry-run lists the cells under each allocator" || dump "$T_TMP/dry"
done_testing
