#!/bin/bash
# Bad input is refused where it is read, naming file:line; parsing is linear;
# an empty file is not taken as a new nightly history; a record with ops/s of
# 2^63-1 is shown, not negated. (Once: rate = nan, rate = 5abc,
# value_size = banana passed the plan check and failed in every run; a 500
# byte recipe line of ':' hung the harness; an empty history file was used
# as a new history; -9223372036854775808 was printed.) ~5 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
n=0
for kv in "rate = nan" "rate = 5abc" "value_size = banana" "duration = 0" "warmup = banana" "rate = inf"; do
    n=$((n+1))
    printf '[plan]\nname = t\nreps = 1\n\n[mc]\nservice = memcached\nmodes = sync\n%s\n' "$kv" > "$T_TMP/p$n.conf"
    "$M" plan "$T_TMP/p$n.conf" --platform emu --dry-run > /dev/null 2> "$T_TMP/e$n"
    is "$?" 2 "plan with '$kv' refused at the plan check"
    ok "$(grep -q "p$n.conf:8: \[mc\] invalid ${kv%% *} '${kv#*= }'" "$T_TMP/e$n"; echo $?)" "naming file:line, key and value" || dump "$T_TMP/e$n"
done
printf '[plan]\nname = t\nreps = 1\n\n[mc]\nservice = memcached\nmodes = sync\nwarmup = 0s\nduration = 2s\n' > "$T_TMP/w.conf"
"$M" plan "$T_TMP/w.conf" --platform emu --dry-run > "$T_TMP/w.out" 2>&1
is "$?" 0 "an entry's warmup and duration accepted"

# recipes: a long line of ':' (empty keys), and one key repeated 100000 times
mkdir -p "$T_TMP/root/services/foo"
"$PY" -c "open('$T_TMP/root/services/foo/recipe.ini','w').write('[service]\nname = foo\n[run]\nargs = ' + ':'*1000000 + '\n')"
t0=$(date +%s%N)
MTEBENCH_ROOT="$T_TMP/root" timeout 20 "$M" list > /dev/null 2> "$T_TMP/r1"
rc=$?
ok "$( [ $rc != 124 ]; echo $?)" "a 1 MB recipe line of ':' does not hang (exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
ok "$(grep -Eq "recipe.ini:[0-9]+: \[run\] unknown key ''" "$T_TMP/r1"; echo $?)" "and is refused naming the line" || dump "$T_TMP/r1"
"$PY" -c "open('$T_TMP/root/services/foo/recipe.ini','w').write('[service]\nname = foo\nsource_package = foo\nsource_version = 1-1\nversion = 1\norig = foo.tar.gz\nsha256 = 00\n[build]\nscript = build.sh\nbinary = bin/foo\n[run]\n' + 'args = ab\n'*100000)"
t0=$(date +%s%N)
MTEBENCH_ROOT="$T_TMP/root" timeout 20 "$M" list > "$T_TMP/r2" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ok "$( [ $rc = 0 ] && [ $ms -lt 5000 ]; echo $?)" "a key given 100000 times is joined in linear time ($ms ms), and the recipe loads (exit $rc)" || dump "$T_TMP/r2"

# an empty file is not a new nightly history
: > "$T_TMP/h.sqlite"
"$M" nightly --history "$T_TMP/h.sqlite" --ingest "$T_TMP" --out "$T_TMP/dash" > /dev/null 2> "$T_TMP/n1"
is "$?" 4 "an empty history file is refused (exit 4)"
ok "$(grep -q "an empty file, not an mtebench history" "$T_TMP/n1"; echo $?)" "saying why" || dump "$T_TMP/n1"
is "$(stat -c %s "$T_TMP/h.sqlite")" 0 "and left empty"

# detect --matrix: what is not a finished detect's matrix, refused by name
"$M" detect --matrix tests/fixtures/detect-memcached --format pdf > /dev/null 2> "$T_TMP/m1"
is "$?" 2 "detect --matrix: a format refused (exit 2)"
ok "$(grep -q "invalid format 'pdf' (accepted: text, md, html)" "$T_TMP/m1"; echo $?)" "naming the accepted ones" || dump "$T_TMP/m1"
"$M" detect --matrix "$T_TMP/h.sqlite" > /dev/null 2> "$T_TMP/m2"
is "$?" 2 "detect --matrix: a file that is no JSON refused (exit 2)"
"$M" detect --matrix tests/fixtures/outputs/report/a/summary.json > /dev/null 2> "$T_TMP/m3"
is "$?" 2 "detect --matrix: a JSON file of another kind refused (exit 2)"
ok "$(grep -q "not a detection matrix (schema mtebench-detect-matrix/1)" "$T_TMP/m3"; echo $?)" "saying what it wants" || dump "$T_TMP/m3"
done_testing
