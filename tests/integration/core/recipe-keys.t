#!/bin/bash
# Recipe keys are checked when a recipe is read: a misspelt key is refused
# with file:line and the accepted keys; a bad workload value names the file.
# Needs no build of a service (about 1 s).
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/root"
mkdir -p "$R/services"
cp -r "$ROOT/services/memcached" "$R/services/"
rc_ini="$R/services/memcached/recipe.ini"

"$M" list >/dev/null 2>"$T_TMP/e0"
is "$?" 0 "the shipped recipes are accepted" || dump "$T_TMP/e0"

line=$(grep -n '^keys = ' "$rc_ini" | head -1 | cut -d: -f1)
sed -i "${line}s/^keys = /kyes = /" "$rc_ini"
MTEBENCH_ROOT="$R" "$M" list >/dev/null 2>"$T_TMP/e1"
rc=$?
ok "$( [ $rc -ne 0 ]; echo $?)" "a misspelt key is refused (exit $rc)"
ok "$(grep -q "recipe.ini:$line: \[workload\] unknown key 'kyes' (accepted: mix, keys," "$T_TMP/e1"; echo $?)" \
   "the message names file:line, section, key and what is accepted" || dump "$T_TMP/e1"

sed -i "${line}s/^kyes = .*/keys = lots/" "$rc_ini"
MTEBENCH_ROOT="$R" "$M" bench --service memcached --mode sync --platform emu --dry-run >/dev/null 2>"$T_TMP/e2"
is "$?" 2 "a bad workload value is refused"
ok "$(grep -q "recipe.ini: \[workload\] invalid keys 'lots' (accepted: an integer" "$T_TMP/e2"; echo $?)" \
   "the message names the file, the key and what is accepted" || dump "$T_TMP/e2"

sed -i "${line}s/^keys = .*/keys = 10000/" "$rc_ini"

# in [run], whose keys are struct mtb_recipe_run's fields (one X-macro list): the list named whole
rline=$(grep -n '^protocol = ' "$rc_ini" | head -1 | cut -d: -f1)
sed -i "${rline}s/^protocol = /protocl = /" "$rc_ini"
MTEBENCH_ROOT="$R" "$M" list >/dev/null 2>"$T_TMP/e1r"
ok "$(grep -q "recipe.ini:$rline: \[run\] unknown key 'protocl' (accepted: args, setup, .*, threads, user; see docs/RECIPES.md)" \
    "$T_TMP/e1r"; echo $?)" "a misspelt [run] key is refused, every accepted key named" || dump "$T_TMP/e1r"
sed -i "${rline}s/^protocl = /protocol = /" "$rc_ini"

printf '[colour]\nhue = red\n' >> "$rc_ini"
MTEBENCH_ROOT="$R" "$M" list >/dev/null 2>"$T_TMP/e3"
ok "$(grep -q "recipe.ini:$(wc -l < "$rc_ini"): unknown section \[colour\]" "$T_TMP/e3"; echo $?)" \
   "an unknown section is refused with file:line" || dump "$T_TMP/e3"

# a key every recipe has, missing: refused when the recipe is read, not when a build needs it
grep -v '^binary = ' "$ROOT/services/memcached/recipe.ini" > "$rc_ini"
MTEBENCH_ROOT="$R" "$M" list >/dev/null 2>"$T_TMP/e4"
rc=$?
ok "$( [ $rc -ne 0 ] && grep -q "recipe.ini: \[build\] has no 'binary' (every recipe names it" "$T_TMP/e4"; echo $?)" \
   "a recipe without [build] binary is refused at load, naming the file and the key (exit $rc)" || dump "$T_TMP/e4"

# every accepted key of every section is documented in docs/RECIPES.md
cp "$ROOT/services/memcached/recipe.ini" "$rc_ini"
for sec in service build "variant plain" run workload; do
    awk -v s="[$sec]" '{ print } $0 == s { print "zzbogus = 1" }' "$ROOT/services/memcached/recipe.ini" > "$rc_ini"
    keys=$(MTEBENCH_ROOT="$R" "$M" list 2>&1 >/dev/null | sed -n 's/.*(accepted: \(.*\); see docs.*/\1/p' | tr -d ',')
    missing=""
    for k in $keys; do grep -q "\`$k\`" "$ROOT/docs/RECIPES.md" || missing="$missing $k"; done
    ok "$( [ -n "$keys" ] && [ -z "$missing" ]; echo $?)" "[$sec]: every accepted key documented (missing:${missing:- none})"
done
done_testing
