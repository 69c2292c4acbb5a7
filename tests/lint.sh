#!/bin/bash
# tests/lint.sh - the structure of the harness and mtload (make lint; make test
# runs it after the suite, with --quiet):
#   1. the layers: a folder uses only the folders LAYERS below allows it, both
#      in its includes and in its calls (the objects' symbols as nm shows them:
#      undefined in X.o, defined in Y.o), so a hand-copied prototype cannot hide
#      a call upward; the longest chain of folder-to-folder uses at most
#      MAX_CHAIN; docs/ARCHITECTURE.md shows LAYERS as its table
#   2. includes written with their folder ("core/record.h", "loadgen/hist.h",
#      "common/version.h"): a bare "record.h" names no folder, and harness and
#      loadgen share basenames (report.h, workload.h)
#   3. no include cycle between the harness's modules (a module: X.c and X.h of
#      one folder)
#   4. exports that mean it: every exported symbol of the harness starts with
#      mtb_, and is used by another object or a test (else it is static); no
#      two harness sources share a basename (their objects share an archive)
#   5. no function longer than MAX_FUNC lines (a definition at column 0, from
#      the line of its name to its closing brace), no file longer than MAX_FILE lines
#   6. the front door: README.md at most 200 lines, linking every doc under docs/
#   7. every test under tests/integration and tests/long is executable (prove
#      runs each as a program), every integration test is in an area's folder,
#      tests/integration/AREA/NAME.t (tests/run.sh runs those; one directly in
#      tests/integration/ would not run), no two with one name (durations.txt
#      and tags.txt key a test by its name)
#   8. every unit test tests/unit/test_X.c is named after the module it tests,
#      harness/*/X.c or loadgen/X.c (make test AREA= finds its area so), and
#      every module of core/ and analysis/ has its unit test
#   9. no fork outside lib/proc.c but in the files FORK_OK names, each for
#      its reason
#  10. no setenv of an MTEBENCH_ name in the harness (but the vm guest's init)
#  11. the commands' fronts: every mtb_cmd_ function declared in
#      harness/cmd/commands.h alone and defined in a file of harness/cmd/
#  12. options declared once: no getopt in the harness (its option tables,
#      lib/opttab.h, make both the parser and the help)
#  13. one way to fail: below cmd/ and main.c nothing exits (no mtb_die,
#      exit or abort): a reason is returned in a struct mtb_err (lib/err.h),
#      which only cmd/ turns into an exit; running out of memory exits
#      (lib/util.c's mtb_oom), a forked child ends with _exit, and the
#      separate programs (a file with a main) are their own fronts
#  14. records read by key, ratcheted: each folder's lookups by key
#      (json_object_get, and lib/jsonx.h's mtb_jstr, mtb_jint, mtb_jnum, mtb_jnum0)
#      (core/record*.c and core/*_rows.c, where a record, a summary, a
#      capacity result and the nightly's analysis become their structs,
#      and the file-format writers tests/json-budget.txt names, each with
#      what it writes, aside) at most the ceiling tests/json-budget.txt
#      gives it, and not below it either (lower the ceiling: ceilings only
#      go down); a named writer exists and still reads by key
#  15. narrow functions: none (declared or defined, in harness/, loadgen/
#      or common/) takes more than MAX_PARAMS (8) parameters (a request
#      struct instead; a failure in a struct mtb_err, never a char *err,
#      size_t errlen pair beside them)
# Usage: tests/lint.sh [--quiet] [--table]
#   --quiet  print findings only (make test); without it the figures too
#            (longest function, file and folder chain)
#   --table  print LAYERS as docs/ARCHITECTURE.md's Markdown table and exit
# MTB_LINT_ROOT: the tree to check (default: this checkout; tests plant
# violations in a copy); its objects under build/obj (make all first).
# Exit 0 clean, 1 with one line per finding.
set -u
shopt -s nullglob
cd "${MTB_LINT_ROOT:-$(dirname "$0")/..}" || exit 2
MAX_FUNC=100
MAX_FILE=900
MAX_CHAIN=7
quiet=0
case "${1:-}" in
--quiet) quiet=1 ;;
--table) table_only=1 ;;
esac

# Each folder, and the folders it may use (includes and calls). main is
# harness/main.c; probe/ holds the aarch64 programs (run/proof.c shares their
# smaps parser); loadgen/ and common/ are mtload's and both programs'.
LAYERS='
main      cmd detect bisect plan run agent drivers report history analysis core lib loadgen common
cmd       detect bisect plan run agent drivers report history analysis core lib loadgen common
detect    run drivers analysis core lib loadgen common
bisect    history analysis core lib common
plan      run agent drivers analysis core lib loadgen common
run       drivers core lib loadgen common probe
agent     drivers core lib loadgen common
drivers   core lib loadgen common
report    history analysis core lib loadgen common
history   analysis core lib common
analysis  core lib common
core      lib loadgen common
lib       common
loadgen   common
common
probe
'
declare -A may=()
folders=()
while read -r f uses; do
    [ -n "$f" ] || continue
    folders+=("$f")
    may[$f]=" $uses "
done <<< "$LAYERS"

if [ "${table_only:-0}" = 1 ]; then
    echo "| folder | may use |"
    echo "|---|---|"
    for f in "${folders[@]}"; do
        u=$(echo ${may[$f]}); echo "| \`$f\` | ${u:-nothing} |"
    done
    exit 0
fi

fail=0
finding() { echo "$*"; fail=1; }

# the folder a source belongs to, in REPLY ("" for what is not ours to check)
folder_of() {
    case $1 in
    harness/main.c) REPLY=main ;;
    harness/probe/* | harness/agent/guest/*) REPLY="" ;;
    harness/*/*) REPLY=${1#harness/}; REPLY=${REPLY%%/*} ;;
    loadgen/*) REPLY=loadgen ;;
    common/* | build/gen/*) REPLY=common ;;
    *) REPLY="" ;;
    esac
}
allowed() { [ "$1" = "$2" ] || [[ ${may[$1]:-} == *" $2 "* ]]; }

sources=(harness/main.c harness/*/*.c loadgen/*.c common/*.c)
headers=(harness/*/*.h loadgen/*.h common/*.h)
declare -A edge=()   # "a b": folder a uses folder b

# --- 1 and 2: includes --------------------------------------------------------
declare -A ours=()   # header basenames of the harness, loadgen and common
for h in "${headers[@]}"; do
    folder_of "$h"; [ -n "$REPLY" ] && ours[${h##*/}]=1
done
# one grep over every file (a grep per file forked ~300 times: most of lint's time)
while IFS=: read -r f ln inc; do
    case $f in harness/probe/* | harness/agent/guest/*) continue ;; esac
    folder_of "$f"; a=$REPLY
    inc=${inc#*\"}; inc=${inc%\"*}
    if [[ $inc != */* ]]; then
        [ -n "${ours[$inc]:-}" ] && finding "$f:$ln: #include \"$inc\" without its folder (write \"FOLDER/$inc\": harness/FOLDER/, loadgen/ or common/)"
        continue
    fi
    b=${inc%%/*}
    [ -n "$a" ] && [ -n "${may[$b]+x}" ] || continue
    if ! allowed "$a" "$b"; then
        finding "$f:$ln: #include \"$inc\": $a/ may not use $b/ (tests/lint.sh LAYERS: $a uses$(echo " ${may[$a]}" | sed 's/  */ /g'))"
    elif [ "$a" != "$b" ]; then
        edge["$a $b"]=1
    fi
done < <(grep -Hn '^#include "' "${sources[@]}" "${headers[@]}" tests/unit/*.c tests/fuzz/*.c /dev/null)

objs=()
for c in "${sources[@]}" build/gen/version.c; do
    folder_of "$c"; [ -n "$REPLY" ] || continue
    o=build/obj/${c%.c}.o
    [ -f "$o" ] || { finding "$o: missing (run make all before tests/lint.sh: calls are checked on the objects)"; continue; }
    objs+=("$c")
done
# one awk over every object's symbols: calls across folders against LAYERS,
# and the harness's exports (prefix; used by another object or a test)
rules=$(for f in "${folders[@]}"; do echo "$f${may[$f]}"; done)
tested=$(cat tests/unit/*.c tests/fuzz/*.c 2>/dev/null | grep -o '\<mtb_[A-Za-z0-9_]*\>' | sort -u)
# one nm over every object (-A: each line begins with its object's path)
symout=$(for c in "${objs[@]}"; do echo "build/obj/${c%.c}.o"; done | xargs -r nm -gA 2>/dev/null | awk '
    { split($1, p, ":"); src = p[1]; sub(/^build\/obj\//, "", src); sub(/\.o$/, ".c", src)
      f = src == "harness/main.c" ? "main" : src ~ /^harness\/[^\/]+\// ? src : src ~ /^loadgen\// ? "loadgen" : "common"
      if (f ~ /^harness\//) { sub(/^harness\//, "", f); sub(/\/.*/, "", f) } }
    NF == 3 && $2 == "U" { print "U", $3, src, f } NF == 3 && $2 ~ /[TDBRCV]/ { print "D", $3, src, f }' | awk -v rules="$rules" -v tested="$tested" '
    BEGIN { n = split(rules, r, "\n"); for (i = 1; i <= n; i++) { k = split(r[i], w, " "); for (j = 2; j <= k; j++) ok[w[1] " " w[j]] = 1 }
            n = split(tested, t, "\n"); for (i = 1; i <= n; i++) test[t[i]] = 1 }
    $1 == "D" { def[$2] = $3; deff[$2] = $4; next }
    { u[++nu] = $2; us[nu] = $3; uf[nu] = $4 }
    END {
        for (i = 1; i <= nu; i++) {
            s = u[i]; if (!(s in def)) continue
            if (def[s] != us[i]) used[s] = 1
            a = uf[i]; b = deff[s]; if (a == b) continue
            if (!((a " " b) in ok)) print "F", us[i] " calls " s " (defined in " def[s] "): " a "/ may not use " b "/ (tests/lint.sh LAYERS)"
            else if (!((a " " b) in seen)) { seen[a " " b] = 1; print "E", a, b }
        }
        for (s in def) {
            if (def[s] !~ /^harness\// || s == "main") continue
            if (s !~ /^mtb_/) print "F", def[s] ": exported " s " has no mtb_ prefix"
            if (!(s in used) && !(s in test)) print "F", def[s] ": " s " is used in this file only (make it static)"
        }
    }' | sort)
while read -r k x y; do
    case $k in
    F) finding "$x $y" ;;
    E) edge["$x $y"]=1 ;;
    esac
done <<< "$symout"
dups=$(for c in harness/main.c harness/*/*.c; do echo "${c##*/}"; done | sort | uniq -d)
for d in $dups; do finding "harness: two sources named $d (their objects would replace each other in libmteharness.a)"; done

# the layers are a hierarchy, and the longest chain of uses
if ! printf '%s\n' "$LAYERS" | awk 'NF { for (i = 2; i <= NF; i++) print $1, $i }' | tsort >/dev/null 2>&1; then
    finding "tests/lint.sh: LAYERS has a cycle"
fi
declare -A memo=() next=()
longest() {   # longest chain of uses from folder $1 (edges found above)
    local a=$1 best=0 bn="" e b l
    [ -n "${memo[$a]+x}" ] && return
    for e in "${!edge[@]}"; do
        [ "${e%% *}" = "$a" ] || continue
        b=${e#* }
        longest "$b"
        l=$(( ${memo[$b]} + 1 ))
        [ $l -gt $best ] && best=$l && bn=$b
    done
    memo[$a]=$best; next[$a]=$bn
}
chain_len=0 chain_from=""
for f in "${folders[@]}"; do
    longest "$f"
    [ "${memo[$f]}" -gt $chain_len ] && chain_len=${memo[$f]} && chain_from=$f
done
chain=$chain_from; x=$chain_from
while [ -n "${next[$x]:-}" ]; do x=${next[$x]}; chain="$chain -> $x"; done
[ $chain_len -le $MAX_CHAIN ] || finding "the longest chain of folders is $chain_len uses (at most $MAX_CHAIN): $chain"

# docs/ARCHITECTURE.md shows the table, and every folder with its purpose
table=$(bash "$0" --table)
[[ $(cat docs/ARCHITECTURE.md 2>/dev/null) == *"$table"* ]] ||
    finding "docs/ARCHITECTURE.md: its layer table is not tests/lint.sh's LAYERS (paste \`bash tests/lint.sh --table\`)"
for d in harness/*/; do
    grep -q "^| \`$d\` | ." docs/ARCHITECTURE.md 2>/dev/null || finding "docs/ARCHITECTURE.md: no row | \`$d\` | (purpose) |"
done

# --- 3: include cycles between modules -----------------------------------------
mods=$(grep -Ho '^#include "[a-z_]*/[^"]*\.h"' "${sources[@]}" "${headers[@]}" /dev/null | awk -F: '
    $1 ~ /^harness\/(probe|agent\/guest)\// || $1 !~ /^harness\/([^\/]+\/[^\/]+|main\.c)$/ { next }
    { m = $1; sub(/^harness\//, "", m); sub(/\.[ch]$/, "", m); h = $2; sub(/^#include "/, "", h); sub(/\.h"$/, "", h)
      if (h != m) print m, h }' | sort -u)
loops=$(printf '%s\n' "$mods" | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
[ -z "$loops" ] || finding "include cycle between modules: $(echo $loops)"

# --- 5: long functions and files ----------------------------------------------
long=$(awk -v max="$MAX_FUNC" '
    FNR == 1 { prev = ""; sig = "" }
    /^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
    /^\{/ && prev ~ /\)[ \t]*$/ { start = sigline; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
    /^\}/ && start { len = FNR - start + 1; print len, FILENAME ":" start, name; start = 0 }
    { if ($0 !~ /^[ \t]*$/) prev = $0 }
' "${sources[@]}" | sort -rn)
while read -r len at name; do
    [ -n "$len" ] && [ "$len" -gt $MAX_FUNC ] && finding "$at: function $name is $len lines (at most $MAX_FUNC)"
done <<< "$long"
files=$(wc -l "${sources[@]}" "${headers[@]}" | grep -v ' total$' | sort -rn)
while read -r n f; do
    [ "$n" -gt $MAX_FILE ] && finding "$f: $n lines (at most $MAX_FILE: split it by meaning)"
done <<< "$files"

# --- 6: the front door ----------------------------------------------------------
for d in docs/*.md; do
    grep -qF "]($d)" README.md || finding "README.md: no link to $d (its docs index links every doc)"
done
[ ! -f README.md ] || [ "$(wc -l < README.md)" -le 200 ] || finding "README.md: $(wc -l < README.md) lines (at most 200: the rest belongs in docs/)"

# --- 7: tests are programs, in their areas --------------------------------------
for t in tests/integration/*/*.t tests/long/*.t; do
    [ -x "$t" ] || finding "$t: not executable (chmod +x: prove runs it as a program)"
done
for t in tests/integration/*.t; do
    finding "$t: not in an area's folder (tests/integration/AREA/${t##*/}: tests/run.sh runs only those; docs/TESTING.md)"
done
for n in $(for t in tests/integration/*/*.t tests/long/*.t; do echo "${t##*/}"; done | sort | uniq -d); do
    finding "$(ls -d tests/integration/*/"$n" tests/long/"$n" 2>/dev/null | paste -sd' '): one name for two tests (durations.txt and tags.txt key a test by its name)"
done

# --- 8: unit tests named after their module ---------------------------------------
for u in tests/unit/test_*.c; do
    m=${u#tests/unit/test_}; m=${m%.c}
    compgen -G "harness/*/$m.c" > /dev/null || [ -e "loadgen/$m.c" ] ||
        finding "$u: no module $m (harness/*/$m.c, loadgen/$m.c): name a unit test after the module it tests (make test AREA= maps it by that; docs/TESTING.md)"
done
# and every module of core/ and analysis/ (the nouns and the statistics) has one
for c in harness/core/*.c harness/analysis/*.c; do
    m=$(basename "$c" .c)
    [ -e "tests/unit/test_$m.c" ] ||
        finding "$c: no unit test tests/unit/test_$m.c (every core/ and analysis/ module has its own)"
done

# --- 9: children through lib/proc.c ----------------------------------------------
# every child of the harness is started by lib/proc.c (its own process group,
# registered, killed with the harness, under a deadline: docs/ARCHITECTURE.md,
# "Nothing outlives the harness"); the files that fork otherwise, and why
FORK_OK="harness/lib/proc.c
harness/agent/ssh_master.c
harness/drivers/driver_trigger.c
harness/probe/mteprobe.c
harness/agent/guest/init.c"
# ssh_master.c: ssh children with a held stdin, PR_SET_PDEATHSIG and a registry
# of its own; driver_trigger.c: its DNS answerer, a function of the harness
# forked for the trigger's seconds; mteprobe.c and guest/init.c: programs of
# their own (the mode probe; the vm guest's init)
for f in $(grep -lE '(^|[^_a-z])(v?fork|posix_spawnp?)[[:space:]]*\(' harness/*/*.c harness/*/*/*.c loadgen/*.c 2>/dev/null); do
    grep -qxF "$f" <<< "$FORK_OK" ||
        finding "$f: forks a child itself: start it with lib/proc.c (mtb_proc_spawn, mtb_proc_run, mtb_proc_capture_env), which gives it a process group, a registration and a deadline"
done

# --- 10: no hidden channels --------------------------------------------------------
# the harness hands a child its settings in the child's own environment
# (lib/proc.c's env_add) and its own modules theirs in the structs they
# take (a detect trial's bug in struct mtb_run), never through the
# harness's environment: no setenv of an MTEBENCH_ name but in the vm
# guest's init, a program of its own
for f in $(grep -lE '(^|[^n_a-z])setenv\("MTEBENCH_' harness/*/*.c harness/*/*/*.c 2>/dev/null); do
    [ "$f" = harness/agent/guest/init.c ] ||
        finding "$f: sets an MTEBENCH_ variable in the harness's own environment: pass it to the child (env_add) or in the struct its reader takes"
done

# --- 11: the commands' fronts in cmd/, declared in one header ----------------------
while IFS= read -r f; do
    case "$f" in
    harness/cmd/commands.h) ;;
    harness/cmd/*.c) grep -q '#include "cmd/commands.h"' "$f" ||
        finding "$f: defines a command's front without including cmd/commands.h, where it is declared" ;;
    *.h) finding "$f: declares a command's front: fronts are declared in harness/cmd/commands.h alone" ;;
    *) finding "$f: defines a command's front outside harness/cmd/: move the option parsing there, the work stays a function of its folder" ;;
    esac
done < <(grep -lE '^int mtb_cmd_[a-z_]+\(int argc, char \*\*argv\)' harness/*/*.c harness/*/*.h 2>/dev/null)

# --- 12: options declared once ------------------------------------------------------
for f in $(grep -lE '(getopt(_long)?[[:space:]]*\(|struct option[[:space:]])' harness/*.c harness/*/*.c harness/*/*/*.c 2>/dev/null); do
    finding "$f: parses options with getopt: declare them in a table (lib/opttab.h), which makes the parser and the --help"
done

# --- 13: one way to fail -------------------------------------------------------------
for f in harness/*/*.c harness/*/*/*.c; do
    case "$f" in harness/cmd/*) continue ;; esac
    grep -q '^int main(' "$f" && continue # a program of its own (probe/, agent/guest/): its own front
    case "$f" in
    harness/lib/util.c|harness/lib/err.c) pat='(^|[^_a-z])mtb_die[[:space:]]*\(' ;; # mtb_oom's exit; mtb_err_exit's, cmd/'s
    *) pat='(^|[^_a-z])(mtb_die|exit|_Exit|quick_exit|abort)[[:space:]]*\(' ;;
    esac
    while IFS=: read -r n _; do
        finding "$f:$n: exits: return the reason in a struct mtb_err (lib/err.h) and let the command exit"
    done < <(grep -nE "$pat" "$f" 2>/dev/null)
done
for f in $(grep -lE 'mtb_err_exit[[:space:]]*\(' harness/*/*.c harness/*/*/*.c 2>/dev/null); do
    case "$f" in harness/cmd/*|harness/lib/err.c) ;; *) finding "$f: calls mtb_err_exit: only a command's front (cmd/) exits" ;; esac
done

# --- 14: records read by key, ratcheted ------------------------------------------------
if [ ! -f tests/json-budget.txt ]; then
    finding "tests/json-budget.txt: missing (lint check 14's ceilings)"
else
    for d in harness/*/; do
        d=${d#harness/}; d=${d%/}
        grep -q "^$d [0-9]*$" tests/json-budget.txt || finding "tests/json-budget.txt: no ceiling for harness/$d"
    done
    BYKEY='\(json_object_get\|mtb_jstr\|mtb_jint\|mtb_jnum0\?\)[[:space:]]*('
    # the file-format writers: "writer FOLDER/FILE.c what it writes"
    writers=$(mktemp)
    while read -r kw w what; do
        [ "$kw" = writer ] || continue
        if [ ! -f "harness/$w" ] || [ -z "$what" ]; then
            finding "tests/json-budget.txt: 'writer $w': a harness/ file and what it writes expected"
            continue
        fi
        grep -q "$BYKEY" "harness/$w" ||
            finding "tests/json-budget.txt: harness/$w reads nothing by key now: drop it from the writers"
        echo "harness/$w" >> "$writers"
    done < tests/json-budget.txt
    while read -r folder ceiling rest; do
        case "$folder" in ''|'#'*|writer) continue ;; esac
        case "$ceiling" in ''|*[!0-9]*) finding "tests/json-budget.txt: '$folder $ceiling': a folder and a whole number expected"; continue ;; esac
        n=$(cat $(ls harness/"$folder"/*.c harness/"$folder"/*/*.c 2>/dev/null | grep -v '^harness/core/record\|^harness/core/[a-z]*_rows\.c$' |
                  grep -vxF -f "$writers") \
            /dev/null | grep -o "$BYKEY" | wc -l)
        if [ "$n" -gt "$ceiling" ]; then
            finding "harness/$folder: $n lookups by key (json_object_get, mtb_jstr, mtb_jint, mtb_jnum), above its ceiling $ceiling (tests/json-budget.txt): read records through core/record.h's structs, summaries, capacity results and the nightly's analysis through core/*_rows.h's"
        elif [ "$n" -lt "$ceiling" ]; then
            finding "harness/$folder: $n lookups by key, below its ceiling $ceiling: lower it to $n in tests/json-budget.txt (ceilings only go down)"
        fi
    done < tests/json-budget.txt
    rm -f "$writers"
fi

# --- 15: narrow functions ------------------------------------------------------------
MAX_PARAMS=8
while read -r f fn n; do
    [ -n "$f" ] && finding "$f: $fn takes $n parameters, more than $MAX_PARAMS: give it a request struct (a failure in a struct mtb_err)"
done <<< "$(perl -0777 -ne '
    s{"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])+\x27|/\*.*?\*/|//[^\n]*}{$& =~ /^["\x27]/ ? q("") : ""}gse;
    while (/^(?:[A-Za-z_][\w \*]*?[\s\*])(\w+)\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*(?:__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)\s*)?[;{]/mg) {
        my ($f, $a) = ($1, $2); (my $t = $a) =~ s/\((?:[^()]|\([^()]*\))*\)//g;
        my $n = $t =~ /\S/ && $t !~ /^\s*void\s*$/ ? ($t =~ tr/,//) + 1 : 0;
        print "$ARGV $f $n\n" if $n > '"$MAX_PARAMS"';
    }' $(ls harness/*.c harness/*/*.[ch] harness/*/*/*.[ch] loadgen/*.[ch] common/*.[ch] 2>/dev/null) /dev/null)"

if [ $quiet = 0 ]; then
    read -r len at name <<< "$(head -n 1 <<< "$long")"
    echo "lint: longest function $len lines ($name, $at; at most $MAX_FUNC)"
    read -r n f <<< "$(head -n 1 <<< "$files")"
    echo "lint: longest file $n lines ($f; at most $MAX_FILE)"
    echo "lint: longest chain of folders $chain_len uses ($chain; at most $MAX_CHAIN)"
    [ $fail = 0 ] && echo "lint: clean"
fi
exit $fail
