#!/bin/bash
# make lint (tests/lint.sh) on the layers of harness/'s folders: this tree
# passes and prints its figures; a copy of it fails, naming the violation, on
# each of three plants: an upward include, an upward call through a
# hand-copied prototype (only the objects' symbols show it), and an include
# of a shared basename without its folder. Needs `make all`'s objects. (~30 s)
. "$(dirname "$0")/../../lib.sh"
CC=${CC:-cc}

out=$(bash "$ROOT/tests/lint.sh" 2>&1); rc=$?
ok $rc "lint passes on this tree" || printf '%s\n' "$out" | sed 's/^/#   /'
for what in function file "chain of folders"; do
    n=$(printf '%s\n' "$out" | sed -n "s/^lint: longest $what \([0-9]*\) .*/\1/p")
    limit=$(printf '%s\n' "$out" | sed -n "s/^lint: longest $what .*at most \([0-9]*\)).*/\1/p")
    ok "$([ -n "$n" ] && [ "$n" -le "$limit" ]; echo $?)" "lint prints the longest $what: ${n:-none} (at most ${limit:-?})"
done

# a copy of what lint reads (the sources, docs, README and the objects), made
# once; each plant gets a linked copy of it (sed -i writes a new file; >> would
# write into the base's too: plant() unlinks first)
mkdir -p "$T_TMP/base/tests" "$T_TMP/base/build"
(cd "$ROOT" && cp -r harness loadgen common docs README.md "$T_TMP/base/" &&
    cp -r tests/lint.sh tests/json-budget.txt tests/unit tests/fuzz "$T_TMP/base/tests/" && cp -r build/obj build/gen "$T_TMP/base/build/")
copy() { rm -rf "$T_TMP/t"; cp -al "$T_TMP/base" "$T_TMP/t"; }
# plant FILE: FILE of the copy made its own (not the base's, to which it is linked)
plant() { cp "$1" "$1.own" && mv "$1.own" "$1"; }
lint_copy() { MTB_LINT_ROOT="$T_TMP/t" bash "$ROOT/tests/lint.sh" --quiet 2>&1; }

copy
lint_copy > "$T_TMP/clean.txt"
ok $? "the copy passes before any plant" || dump "$T_TMP/clean.txt"

# 1. an upward include: analysis/ (statistics) including the run's header
copy
sed -i '0,/^#include "/s//#include "run\/run.h"\n#include "/' "$T_TMP/t/harness/analysis/stats.c"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ]; echo $?)" "an upward include fails lint"
ok "$(grep -q 'harness/analysis/stats.c:[0-9]*: #include "run/run.h": analysis/ may not use run/' <<< "$out"; echo $?)" \
    "... named: the file, the include, the rule" || printf '%s\n' "$out" | sed 's/^/#   /'

# 2. an upward call through a hand-copied prototype: core/ calling a command's
# front; no include shows it, the object's undefined symbol does
copy
rm -f "$T_TMP/t/harness/core/plant.c"
cat > "$T_TMP/t/harness/core/plant.c" <<'C'
/* plant.c - an upward call through a prototype copied by hand */
int mtb_cmd_detect(int argc, char **argv);
int mtb_plant_up(void);
int mtb_plant_up(void) { return mtb_cmd_detect(0, 0); }
C
mkdir -p "$T_TMP/t/build/obj/harness/core"
$CC -c -o "$T_TMP/t/build/obj/harness/core/plant.o" "$T_TMP/t/harness/core/plant.c"
ok $? "the plant compiles"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ]; echo $?)" "an upward call through a hand-copied prototype fails lint"
ok "$(grep -q '^harness/core/plant.c calls mtb_cmd_detect (defined in harness/cmd/detect_cli.c): core/ may not use cmd/' <<< "$out"; echo $?)" \
    "... named: the caller, the symbol, where it is defined, the rule" || printf '%s\n' "$out" | sed 's/^/#   /'
ok "$( ! grep -q 'plant.c:.*#include' <<< "$out"; echo $?)" "... by its symbols: the plant includes nothing"

# 3. an include of a basename harness/ and loadgen/ share, without its folder
copy
sed -i '0,/^#include "/s//#include "workload.h"\n#include "/' "$T_TMP/t/harness/core/recipe.c"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ]; echo $?)" "an include of a shared basename without its folder fails lint"
ok "$(grep -q 'harness/core/recipe.c:[0-9]*: #include "workload.h" without its folder' <<< "$out"; echo $?)" \
    "... named: the file and the include" || printf '%s\n' "$out" | sed 's/^/#   /'

# 9. a child forked outside lib/proc.c (as the mode proof once started its probe)
copy
sed -i '0,/^int mtb_proof_run(/s//static int plant_fork(void) { return (int)fork(); }\nint mtb_proof_run(/' "$T_TMP/t/harness/run/proof.c"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^harness/run/proof.c: forks a child itself: start it with lib/proc.c' <<< "$out"; echo $?)" \
    "a fork outside lib/proc.c fails lint, named" || printf '%s\n' "$out" | sed 's/^/#   /'

# 10. a setting passed through the harness's own environment (as detect once
# passed a trial's bug to the agent and the trigger driver)
copy
sed -i '0,/^int mtb_proof_run(/s//static void plant_env(void) { setenv("MTEBENCH_BUG", "x", 1); }\nint mtb_proof_run(/' "$T_TMP/t/harness/run/proof.c"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^harness/run/proof.c: sets an MTEBENCH_ variable in the harness' <<< "$out"; echo $?)" \
    "an MTEBENCH_ variable set in the harness's environment fails lint, named" || printf '%s\n' "$out" | sed 's/^/#   /'

# 11 and 12. a command's front outside cmd/, declared in its folder's
# header, parsing its options with getopt (as report, kernel, bisect and
# load once did): one plant, three findings
copy
plant "$T_TMP/t/harness/report/report.c"; plant "$T_TMP/t/harness/report/report.h"
printf '%s\n' '#include <getopt.h>' 'int mtb_cmd_plant(int argc, char **argv)' \
    '{ static const struct option lo[] = { { 0, 0, 0, 0 } }; return getopt_long(argc, argv, "", lo, NULL); }' \
    >> "$T_TMP/t/harness/report/report.c"
echo 'int mtb_cmd_plant(int argc, char **argv);' >> "$T_TMP/t/harness/report/report.h"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^harness/report/report.c: defines a command.s front outside harness/cmd/' <<< "$out" &&
    grep -q '^harness/report/report.h: declares a command.s front: fronts are declared in harness/cmd/commands.h alone' <<< "$out" &&
    grep -q '^harness/report/report.c: parses options with getopt' <<< "$out"; echo $?)" \
    "a front outside cmd/, declared in its folder's header, parsing with getopt: three findings, named" ||
    printf '%s\n' "$out" | sed 's/^/#   /'

# 13. an exit in the plan loader (as its 23 refusals once were), and a
# reason turned into an exit outside a command's front
copy
sed -i '0,/^int mtb_plan_load(/s//static void plant_exit(void) { mtb_die(2, "x"); }\nint mtb_plan_load(/' "$T_TMP/t/harness/plan/plan_parse.c"
sed -i '0,/^int mtb_proof_run(/s//static void plant_err(struct mtb_err *e) { mtb_err_exit(e); }\nint mtb_proof_run(/' "$T_TMP/t/harness/run/proof.c"
sed -i '$a static void plant_abort(void) { abort(); }' "$T_TMP/t/harness/detect/detect.c"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^harness/plan/plan_parse.c:[0-9]*: exits: return the reason in a struct mtb_err' <<< "$out" &&
    grep -q '^harness/detect/detect.c:[0-9]*: exits: return the reason' <<< "$out" &&
    grep -q '^harness/run/proof.c: calls mtb_err_exit: only a command.s front' <<< "$out"; echo $?)" \
    "an exit in the plan loader and in detect, and mtb_err_exit outside cmd/: all fail lint, named" ||
    printf '%s\n' "$out" | sed 's/^/#   /'

# 14. a record read by key in report/ and by mtb_jstr in run/ (their ceilings are 0), and once in a named
# writer (runs.csv's: not counted); a ceiling above its folder's count; a
# writer that reads nothing by key, and one that is no file
copy
sed -i '$a static const char *plant_key(json_t *r) { return json_string_value(json_object_get(r, "mode")); }' \
    "$T_TMP/t/harness/report/report.c"
sed -i '$a static const char *plant_jstr(json_t *r) { return mtb_jstr(r, "variant"); }' "$T_TMP/t/harness/run/run.c"
sed -i '$a static const char *plant_col(json_t *r) { return json_string_value(json_object_get(r, "host")); }' \
    "$T_TMP/t/harness/report/report_csv.c"
sed -i 's/^history 0$/history 1/; $a writer cmd/bench.c nothing by key\nwriter cmd/none.c no such file' \
    "$T_TMP/t/tests/json-budget.txt"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^harness/report: 1 lookups by key (json_object_get, mtb_jstr, mtb_jint, mtb_jnum), above its ceiling 0' <<< "$out" &&
    grep -q '^harness/run: 1 lookups by key .*above its ceiling 0' <<< "$out" &&
    grep -q '^harness/history: 0 lookups by key, below its ceiling 1: lower it to 0' <<< "$out" &&
    grep -q '^tests/json-budget.txt: harness/cmd/bench.c reads nothing by key now: drop it from the writers' <<< "$out" &&
    grep -q "^tests/json-budget.txt: 'writer cmd/none.c': a harness/ file and what it writes expected" <<< "$out"; echo $?)" \
    "a record read by key outside the readers fails lint (a writer's lookup aside), a ceiling above the count asks to be lowered, a writer must still read by key and exist" ||
    printf '%s\n' "$out" | sed 's/^/#   /'

# 15. a header's function of 9 parameters (one a function pointer; an attribute after it) and a
# static one of 9 in loadgen/ (after a string holding "/*"), beside one of 8
copy
sed -i '$a int mtb_plant_wide(int a, int b, int c, int d, void (*cb)(int, int), int f, int g, char *err, size_t errlen) __attribute__((nonnull(8)));' \
    "$T_TMP/t/harness/drivers/driver.h"
sed -i '$a static const char *plant_glob = "results/*/record.json";' "$T_TMP/t/loadgen/hlog.c"
sed -i '$a static int plant_def(int a, int b, int c, int d, int e, int f, int g, int h, int i) { return a + i; }' \
    "$T_TMP/t/loadgen/hlog.c"
sed -i '$a int mtb_plant_eight(int a, int b, int c, int d, int e, int f, int g, int h);' "$T_TMP/t/harness/lib/util.h"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^harness/drivers/driver.h: mtb_plant_wide takes 9 parameters, more than 8' <<< "$out" &&
    grep -q '^loadgen/hlog.c: plant_def takes 9 parameters' <<< "$out" && ! grep -q 'mtb_plant_eight' <<< "$out"; echo $?)" \
    "a function of 9 parameters, declared or defined, fails lint, named; one of 8 does not" ||
    printf '%s\n' "$out" | sed 's/^/#   /'

# 8. a unit test of no module, and an analysis module with no unit test
copy
rm "$T_TMP/t/tests/unit/test_lathist.c"
cp "$T_TMP/base/tests/unit/test_stats.c" "$T_TMP/t/tests/unit/test_nomodule.c"
out=$(lint_copy); rc=$?
ok "$([ $rc = 1 ] && grep -q '^tests/unit/test_nomodule.c: no module nomodule' <<< "$out" &&
    grep -q '^harness/analysis/lathist.c: no unit test tests/unit/test_lathist.c' <<< "$out"; echo $?)" \
    "a unit test named after no module, and a module of analysis/ without its unit test: both fail lint, named" ||
    printf '%s\n' "$out" | sed 's/^/#   /'

# the table in docs/ARCHITECTURE.md is lint's: a changed rule shows there
copy
sed 's/^bisect    history analysis core lib common$/bisect    history analysis core lib common run/' "$T_TMP/base/tests/lint.sh" > "$T_TMP/lint.sh"
rm "$T_TMP/t/tests/lint.sh"; cp "$T_TMP/lint.sh" "$T_TMP/t/tests/lint.sh"
out=$(MTB_LINT_ROOT="$T_TMP/t" bash "$T_TMP/t/tests/lint.sh" --quiet 2>&1)
ok "$(grep -q 'docs/ARCHITECTURE.md: its layer table is not' <<< "$out"; echo $?)" \
    "a rule changed in lint but not in docs/ARCHITECTURE.md fails lint" || printf '%s\n' "$out" | sed 's/^/#   /'
done_testing
