#!/bin/bash
# `mtebench detect --catalogue`: every entry of every service's bug
# catalogue listed and checked, nothing built or run.
# - The real catalogue (and its make-up beside ARVO's crash mix, each real
#   bug counted once, plants and second triggers left out): each manifest has its keys (fix_commit, port, pov,
#   access_in, memory, ...) with words from their lists, a trigger, and its
#   switch in bugs.patch; the only findings allowed are missing fixed-build
#   controls (not written yet: each is listed, and the exit status says so).
# - A copy of services/ (MTEBENCH_ROOT) with planted faults: a class not in
#   the list, the old key 'allocator', a misspelt key, a missing
#   fix_commit, a missing trigger, a switch bugs.patch does not have: each
#   is named.
# - --history GIT_DIR: a fix_commit found in a git history made here, and
#   one that is not there; a wrong citation (a fix_commit of that history
#   that changed another file than the manifest's fix_files) named; a
#   commit hash without fix_files refused; bad input refused with exit 2.
# - `detect` refuses to run an entry whose manifest is refused.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"

"$M" detect --catalogue --json > "$T_TMP/all.json" 2> "$T_TMP/all.err"
rc=$?
n=$(ls -d "$ROOT"/services/*/bugs/*/manifest.ini | wc -l)
is "$(jq length "$T_TMP/all.json")" "$n" "every entry listed ($n manifests)" || dump "$T_TMP/all.err"
jq_e '[.[] | .findings[] | select(.kind != "control")] | length == 0' "$T_TMP/all.json" > /dev/null
ok $? "every manifest, trigger and switch of the real catalogue passes" ||
    jq -c '.[] | {id, findings: [.findings[] | select(.kind != "control")]} | select(.findings | length > 0)' "$T_TMP/all.json" | sed 's/^/# /'
# the entries without a fixed-build control, counted from the manifests
# themselves (a real bug's manifest names what its control expects; a
# plant needs none), not from what the command said
nc=0
for m in "$ROOT"/services/*/bugs/*/manifest.ini; do
    grep -q '^control_expect *=' "$m" || grep -q '^port *= *plant' "$m" || nc=$((nc + 1))
done
is "$(jq '[.[] | select(.control | not)] | length' "$T_TMP/all.json")" "$nc" "the listing's entries without a control: the manifests' ($nc)"
is "$rc" "$([ "$nc" -gt 0 ] && echo 1 || echo 0)" "exit status: 1 while $nc entries lack a fixed-build control"
# every real trigger parsed as the driver sends it; "*N" lines repeated:
# CVE-2018-1000127 is set (16 bytes), "get" (3), 65536 x " k" and a delete (12)
jq_e '([.[] | select(.manifest.port != "plant" and (.manifest.benchmark | not)) | .trigger_bytes > 0] | all) and
      (.[] | select(.id == "CVE-2018-1000127") | .trigger_bytes == 16 + 3 + 65536 * 2 + 12)' "$T_TMP/all.json" > /dev/null
ok $? "every real trigger parses; a repeated line counts its bytes N times ($(jq -c '.[] | select(.id == "CVE-2018-1000127") | .trigger_bytes' "$T_TMP/all.json"))"
jq_e '[.[] | select(.manifest.port == "plant") | .control] | all' "$T_TMP/all.json" > /dev/null
ok $? "a synthetic plant needs no control (it is no real bug)"
"$M" detect --catalogue > "$T_TMP/table" 2>&1
ok "$(grep -q '^memcached  CVE-2020-10931 .*stack .*user .*revert' "$T_TMP/table" &&
      grep -q "entries, .* real bugs (plants and second triggers are not counted)" "$T_TMP/table"; echo $?)" "the table: one row per entry, and the counts" ||
    dump "$T_TMP/table"
real=$(sed -n 's/^[0-9]* entries, \([0-9]*\) real bugs.*/\1/p' "$T_TMP/table")
mix=$(awk '/^kind +catalogue/ {on = 1; next} on && /^\(/ {on = 0} on && NF {s += $(NF - 3)} END {print s + 0}' "$T_TMP/table")
ow=$(jq '[.[] | .manifest | select(.port != "plant" and ((.switch // "") == "" or .switch == .id) and
          (.class | test("overflow|far write")) and .access == "write")] | length' "$T_TMP/all.json")
ok "$([ -n "$real" ] && [ "$mix" = "$real" ] && grep -q "^heap overflow (write) *$ow " "$T_TMP/table" &&
      grep -q '^uninitialised read .* 1015 ' "$T_TMP/table"; echo $?)" \
    "the make-up beside ARVO's crash mix: every real bug in one kind ($mix of $real), $ow heap overflow writes" ||
    dump "$T_TMP/table" 12

# planted faults in a copy
C="$T_TMP/root"
mkdir -p "$C" && cp -r "$ROOT/services" "$ROOT/configs" "$C/"
B2="$C/services/memcached/bugs"
sed -i 's/^class = stack/class = overflow/' "$B2/CVE-2020-10931/manifest.ini"
sed -i 's/^memory = /allocator = /' "$B2/CVE-2016-8705/manifest.ini"
sed -i '/^fix_commit = /d' "$C/services/postgresql/bugs/CVE-2023-5869/manifest.ini"
sed -i '/^fix_files = /d' "$C/services/nginx/bugs/nginx-c01481a4c/manifest.ini"
sed -i 's/^caught_by = /cuaght_by = /' "$C/services/rocksdb/bugs/$(ls "$C/services/rocksdb/bugs" | grep -v '\.' | head -1)/manifest.ini"
rm "$C/services/nginx/bugs/CVE-2013-2028/trigger.hex"
printf '41\n*0 42\n' > "$C/services/nginx/bugs/CVE-2009-2629/trigger.hex"
cp -r "$B2/CVE-2016-8704" "$B2/CVE-2099-0001"
sed -i 's/^id = .*/id = CVE-2099-0001/' "$B2/CVE-2099-0001/manifest.ini"
MTEBENCH_ROOT="$C" "$M" detect --catalogue > "$T_TMP/bad" 2>&1
is "$?" 1 "planted faults: exit 1"
for w in "class 'overflow' is not one of: linear overflow," "'allocator' is now 'memory'" "no 'fix_commit'" \
    "nginx-c01481a4c/manifest.ini: no 'fix_files'" "unknown key 'cuaght_by' (accepted: id, cve, summary," \
    "trigger: no trigger.hex" "'*' wants a count of 1 to" "switch: mtbbug_on(\"CVE-2099-0001\")"; do
    ok "$(grep -qF -- "$w" "$T_TMP/bad"; echo $?)" "named: $w" || dump "$T_TMP/bad"
done

# --history: a fix_commit looked up in a git history (made here: tests never depend on a fetched one)
# two commits: the fix (items.c, memcached.c), then one that changes another file
G="$T_TMP/hist"
gw() { git -C "$T_TMP/w" -c user.email=t@t -c user.name=t "$@"; }
git init -q --bare "$G" && git init -q "$T_TMP/w" &&
    echo a > "$T_TMP/w/items.c" && echo b > "$T_TMP/w/memcached.c" && gw add items.c memcached.c &&
    gw commit -q -m fix && h=$(gw rev-parse HEAD) &&
    echo c > "$T_TMP/w/other.c" && gw add other.c && gw commit -q -m other && h2=$(gw rev-parse HEAD) &&
    gw push -q "$G" HEAD:refs/heads/main
ok $? "a history of two commits made here"
# CVE-2016-8704 cites the fix (fix_files: memcached.c items.c); CVE-2017-9951
# cites the other commit (a wrong citation: it exists, but changed other.c);
# CVE-2016-8705 keeps its upstream commit, not in this history
sed -i "s/^fix_commit = .*/fix_commit = ${h:0:12} (a test's)/" "$B2/CVE-2016-8704/manifest.ini"
sed -i "s/^fix_commit = .*/fix_commit = ${h2:0:12} (a test's wrong citation)/" "$B2/CVE-2017-9951/manifest.ini"
MTEBENCH_ROOT="$C" "$M" detect --catalogue --service memcached --history "$G" --json > "$T_TMP/h.json" 2>&1
jq_e '(.[] | select(.id == "CVE-2016-8704") | .fix_commit_found == true and .fix_files_touched == true and
                                               (.findings | length == 0)) and
      (.[] | select(.id == "CVE-2016-8705") | [.findings[].kind] | index("fix_commit") != null)' "$T_TMP/h.json" > /dev/null
ok $? "--history: a fix_commit in it is found and changes its fix_files, another is said to be missing" ||
    dump "$T_TMP/h.json"
jq_e '.[] | select(.id == "CVE-2017-9951") | .fix_commit_found == true and (.fix_files_touched | not) and
      ([.findings[] | select(.kind == "fix_files") | .what] | length == 2 and
       (.[0] | test("^[0-9a-f]{12} does not touch items.c \\(a wrong citation\\?\\); it changes: other.c$")))' \
    "$T_TMP/h.json" > /dev/null
ok $? "--history: a wrong citation (a commit of the history that changed another file) fails, named" ||
    dump "$T_TMP/h.json"
MTEBENCH_ROOT="$C" "$M" detect --catalogue --service memcached --history "$G" > "$T_TMP/h.txt" 2>&1
ok "$([ $? = 1 ] && grep -q "^  ! fix_files: ${h2:0:12} does not touch memcached.c" "$T_TMP/h.txt"; echo $?)" \
    "the table names it too, and exits 1" || dump "$T_TMP/h.txt"
"$M" detect --catalogue --history "$G" > "$T_TMP/e1" 2>&1
is "$?" 2 "--history without --service: refused (exit 2)"
"$M" detect --catalogue --service memcached --history "$T_TMP" > "$T_TMP/e2" 2>&1
ok "$([ $? = 2 ] && grep -q 'not a git directory' "$T_TMP/e2"; echo $?)" "--history of a directory that is no git directory: refused"
"$M" detect --catalogue --service nosuch > "$T_TMP/e3" 2>&1
ok "$([ $? = 2 ] && grep -q 'no catalogue' "$T_TMP/e3"; echo $?)" "an unknown service: refused"

# detect itself refuses an entry whose manifest is refused, before building anything
MTEBENCH_ROOT="$C" "$M" detect --service memcached --bugs CVE-2020-10931 --platform emu --results "$T_TMP/d" > "$T_TMP/d.out" 2>&1
ok "$([ $? = 2 ] && grep -q "class 'overflow' is not one of" "$T_TMP/d.out"; echo $?)" "detect refuses a bad manifest (exit 2)" ||
    dump "$T_TMP/d.out"
done_testing
