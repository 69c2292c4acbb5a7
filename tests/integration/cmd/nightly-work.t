#!/bin/bash
# The nightly on counts (docs/NIGHTLY.md, "Work series"): a plan with
# `count = only` counts each configuration's MTE work once on vm (the
# plugin, docs/COUNTING.md) and runs nothing timed; the history keeps the
# counts per request (its work table) and the nightly tests them with their
# own rule: a night against the prediction interval of the nights before it.
# Three nights of memcached tagged/sync and its plain/off baseline on vm, the
# kernel an Image path (as a kernel developer rebuilds one in place): nights
# 1 and 2 boot the tcma1 kernel, night 3 the stock one, whose TCR_EL1.TCMA1
# is clear, so the kernel's own accesses to its Tagged memory through
# 0xF-tagged pointers are Tag Checked (the change that cost AmpereOne a
# quarter of memcached's throughput). The planted change adds MTE work per
# request, and the nightly must name it from counts alone, the night it
# comes: exit 3, the EL1 Tag Checked accesses of tagged/sync an open
# regression, with the kernel that changed. (~50 s warm: six counted runs,
# 0.5 s of load each: a plan's count is as long as its runs, at most 2 s.)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
[ -f "$B/native/libmtecount.so" ] || skip_all "the counting plugin is not built (make deps; make)"
command -v sqlite3 > /dev/null || skip_all "no sqlite3 (make deps)"
CACHE=${MTEBENCH_CACHE:-/var/cache/mtebench}
image() { # the cached Image of a named kernel (built when missing)
    local h
    h=$("$M" kernel info "$1" 2>> "$T_TMP/kernel.err" | jq -r '.build_hash[0:12]')
    ls "$CACHE"/kernels/"$1"-*-"$h"/Image 2> /dev/null | head -1
}
STOCK=$(image stock); TCMA1=$(image tcma1)
ok "$([ -s "$STOCK" ] && [ -s "$TCMA1" ]; echo $?)" "the stock and tcma1 kernels' Images ($STOCK, $TCMA1)" ||
    { dump "$T_TMP/kernel.err"; exit 1; }

cat > "$T_TMP/work.conf" <<'EOC'
[plan]
name = worknight
count = only
duration = 0.5s

[mc]
service = memcached
variants = tagged
modes = sync
EOC
sed 's/^count = only/count = maybe/' "$T_TMP/work.conf" > "$T_TMP/bad.conf"
"$M" plan "$T_TMP/bad.conf" --platform vm --dry-run > "$T_TMP/bad.out" 2>&1
is "$?" 2 "count = maybe: refused (exit 2)"
ok "$(grep -q "\[plan\] count 'maybe': no, yes" "$T_TMP/bad.out"; echo $?)" "... naming what is accepted" || dump "$T_TMP/bad.out"
"$M" plan "$T_TMP/work.conf" --platform vm --kernel stock --dry-run > "$T_TMP/dry.out" 2>&1
ok "$(grep -q 'count = only: each configuration.s MTE work counted once on vm; the runs above are not run' "$T_TMP/dry.out"; echo $?)" \
   "--dry-run says the plan counts and times nothing" || dump "$T_TMP/dry.out"
K="$T_TMP/kernel/Image"; mkdir -p "$T_TMP/kernel"
H="$T_TMP/history.sqlite"; D="$T_TMP/dash"
night() { # N IMAGE
    ln -sfn "$2" "$K"
    "$M" nightly --plan "$T_TMP/work.conf" --platform vm --kernel "$K" --history "$H" --out "$D" \
        --results "$T_TMP/night$1" > "$T_TMP/n$1.out" 2> "$T_TMP/n$1.err"
}
for n in 1 2; do
    night $n "$TCMA1"
    is "$?" 0 "night $n (tcma1): no regression (exit 0)" || { dump "$T_TMP/n$n.err" 30; dump "$T_TMP/n$n.out"; }
done
sq() { sqlite3 "$H" "$1"; }
is "$(sq 'SELECT count(*) FROM work')/$(sq 'SELECT count(*) FROM runs')" "4/0" \
    "two counted runs a night in the history's work table (plain/off, tagged/sync), no timed run (count = only)"
ok "$(ls "$T_TMP"/night1/work/*/record.json > /dev/null 2>&1; echo $?)" "the counted records under RESULTS/work/"
el1() { sq "SELECT printf('%.1f', el1_checked) FROM work WHERE variant = 'tagged' AND night = $1"; }
diag "tagged/sync EL1 Tag Checked a request: night 1 $(el1 1), night 2 $(el1 2)"

night 3 "$STOCK"
is "$?" 3 "night 3 (stock: TCMA1 clear): a new regression (exit 3)" || { dump "$T_TMP/n3.err" 30; dump "$T_TMP/n3.out"; }
diag "tagged/sync EL1 Tag Checked a request: night 3 $(el1 3)"
# what the architecture says of the kernel's own accesses, counted: with
# TCMA1 clear (stock) its accesses through its 0xF-tagged pointers to its
# Tagged memory are Tag Checked; with TCMA1 set (tcma1) they are exempt, and
# its only Tag Checked accesses are the unprivileged ones (LDTR/STTR) into
# the service's tagged buffers
rt=$(ls "$T_TMP"/night1/work/*-tagged-sync-*/record.json) rs=$(ls "$T_TMP"/night3/work/*-tagged-sync-*/record.json)
for r in "$rt" "$rs"; do
    k=$(jq -r .kernel.uname_r "$r")
    ok "$(jq_e '.work.window.client.el0 | .loads_checked == 0 and .stores_checked == 0' "$r" > /dev/null &&
          jq_e '.work.window.service.el0 | .loads_checked > 0 and .stores_checked > 0' "$r" > /dev/null; echo $?)" \
       "$k: the load generator (mtload, untagged) makes no Tag Checked access, tagged memcached does"
done
diag "service EL1 over the load: stock $(jq -c '.work.window.service.el1 | {loads_checked, stores_checked, checked_unpriv, unchecked_tcma}' "$rs"), tcma1 $(jq -c '.work.window.service.el1 | {loads_checked, stores_checked, checked_unpriv, unchecked_tcma}' "$rt")"
ok "$(jq_e '.work.window.service.el1 | .unchecked_tcma == 0 and .loads_checked + .stores_checked > 10 * .checked_unpriv' "$rs" > /dev/null; echo $?)" \
   "stock (TCMA1 clear): the kernel's own accesses are Tag Checked, many times its accesses to user memory"
ok "$(jq_e '.work.window.service.el1 | .unchecked_tcma > 0 and .checked_unpriv > 0 and .loads_checked + .stores_checked == .checked_unpriv' "$rt" > /dev/null; echo $?)" \
   "tcma1 (TCMA1 set): the kernel's own accesses exempt, only its unprivileged accesses to the tagged user buffers Tag Checked"
A="$D/analysis.json"
ok "$(jq_e '[.open[] | select(.rule == "counts" and .metric == "EL1 Tag Checked accesses" and (.label | test("/tagged/sync/")))
            | select(.after > 10 * .before and .x == 3 and .n_before == 2)] | length == 1' "$A" > /dev/null; echo $?)" \
   "the open regression: tagged/sync's EL1 Tag Checked accesses a request, night 3 against nights 1-2 ($(jq -c \
   '[.open[] | select(.metric == "EL1 Tag Checked accesses") | [.before, .after, .sd]]' "$A" 2> /dev/null))"
# none of plain/off's series, its instructions included: the kernel's
# spinning on a contended lock, which a loaded night once added (CI: EL1
# instructions 13.7k -> 171k a request), is left out of every count
# (docs/COUNTING.md, "Wait loops")
ok "$(jq_e '[.open[] | select(.label | test("/plain/off/"))] | length == 0' "$A" > /dev/null; echo $?)" \
   "none of plain/off's series (its instructions outside wait loops; no tag checks, no tag work for an untagged task on either kernel)" ||
    jq -c '[.open[] | select(.label | test("/plain/off/")) | [.metric, .before, .after]]' "$A"
ok "$(jq_e '[.open[] | select(.metric == "EL1 Tag Checked accesses")][0] | .revisions_before.kernel_release != .revisions_after.kernel_release' \
       "$A" > /dev/null; echo $?)" "the kernel that changed is named ($(jq -r '[.open[] | select(.metric == "EL1 Tag Checked accesses")][0] |
       "\(.revisions_before.kernel_release) -> \(.revisions_after.kernel_release)"' "$A" 2> /dev/null))"
ok "$(grep -q '^- \*\*.*tagged/sync.*EL1 Tag Checked accesses.*per request (.*exact, counted' "$D/digest.md"; echo $?)" \
   "the digest names it, per request, counted" || dump "$D/digest.md"
ok "$(grep -q 'EL1 Tag Checked accesses' "$D/index.html"; echo $?)" "the dashboard shows the work series"
# the same nights' results added to another history with --ingest: each
# directory's counted runs (RESULTS/work/) become its work rows
H2="$T_TMP/ingested.sqlite"
"$M" nightly --ingest "$T_TMP/night1" "$T_TMP/night2" --history "$H2" --out "$T_TMP/dash2" > "$T_TMP/i.out" 2>&1
is "$?/$(sqlite3 "$H2" 'SELECT count(*) FROM work')" "0/4" "--ingest of two counted-only nights: exit 0, their four counted runs" ||
    dump "$T_TMP/i.out"
sed -n '/^## New regressions/,/^## \|^Dashboard/p' "$D/digest.md" | grep '^- ' | cut -c1-400 | sed 's/^/# /'
done_testing

