#!/bin/bash
# tests/lint.sh - structural checks of the harness and mtload (make lint; make test runs it):
#   1. no function longer than 120 lines (the { ... } of a definition at column 0),
#      in harness/ and loadgen/
#   2. no include cycle between harness modules (a module: X.c and X.h;
#      X -> Y when X.c or X.h includes "Y.h")
#   3. the layers: analysis code (record, summary, summary_text, report and its formats,
#      history, its backends and its bisections, dashboard, stats, plot, lathist, changepoint) never includes
#      the run's headers (run, driver, platform, agent, service, perf, plan,
#      proof, cli); docs/ARCHITECTURE.md "Layers"
#   4. the front door: README.md at most 200 lines, linking every doc under docs/
#   5. every test under tests/integration and tests/long is executable (prove
#      runs each as a program: a 644 test fails "Permission denied"), and every
#      integration test is in an area's folder, tests/integration/AREA/NAME.t
#      (tests/run.sh runs those; one directly in tests/integration/ would not run),
#      no two with one name (durations.txt and tags.txt key a test by its name)
#   6. every unit test tests/unit/test_X.c is named after the module it tests,
#      harness/*/X.c or loadgen/X.c (make test AREA= finds its area so)
# Usage: tests/lint.sh [FILE.c ...]   (default: every harness/*.c and loadgen/*.c; checks 2 and 3
# always look at the whole harness). Exit 0 clean, 1 with one line per finding.
set -u
cd "$(dirname "$0")/.." || exit 2
MAX=${MTB_LINT_MAX_LINES:-120}
fail=0
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(harness/main.c harness/*/*.c loadgen/*.c)

# 1. long functions
long=$(awk -v max="$MAX" '
    FNR == 1 { prev = ""; sig = "" }
    /^[A-Za-z_].*\(/ { sig = $0 }
    /^\{/ && prev ~ /\)[ \t]*$/ { start = FNR; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
    /^\}/ && start { len = FNR - start + 1; if (len > max) printf "%s:%d: function %s is %d lines (at most %d)\n", FILENAME, start, name, len, max; start = 0 }
    { if ($0 !~ /^[ \t]*$/) prev = $0 }
' "${files[@]}")
if [ -n "$long" ]; then
    echo "$long"
    fail=1
fi

# 2. include cycles between modules (tsort names a loop)
edges=$(for f in harness/main.c harness/*/*.[ch]; do
    m=$(basename "${f%.*}")
    grep -o '^#include "[^"]*\.h"' "$f" | sed 's/#include "\(.*\)\.h"/\1/' | while read -r h; do
        [ -f "harness/$h.h" ] && [ "${h##*/}" != "$m" ] && echo "$m ${h##*/}"
    done
done | sort -u)
loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //')
if [ -n "$loops" ]; then
    echo "include cycle between harness modules: $(echo $loops | tr ' ' ' ')"
    printf '%s\n' "$edges" | awk -v l=" $(echo $loops) " 'index(l, " " $1 " ") && index(l, " " $2 " ") { print "  " $1 " -> " $2 }'
    fail=1
fi

# 3. layers: analysis never includes the run's headers
analysis="record summary summary_text report report_html report_md report_csv history history_db history_schema history_sqlite history_pg history_bisect dashboard stats plot lathist changepoint"
runside="run driver platform agent service perf plan proof cli"
for a in $analysis; do
    for f in harness/*/$a.c harness/*/$a.h; do
        [ -f "$f" ] || continue
        for r in $runside; do
            if grep -q "^#include \"[a-z]*/$r.h\"" "$f"; then
                echo "$f: analysis code includes the run's header $r.h"
                fail=1
            fi
        done
    done
done

# 4. the front door
for d in docs/*.md; do
    grep -qF "]($d)" README.md || { echo "README.md: no link to $d (its docs index links every doc)"; fail=1; }
done
[ "$(wc -l < README.md)" -le 200 ] || { echo "README.md: $(wc -l < README.md) lines (at most 200: the rest belongs in docs/)"; fail=1; }

# 5. tests are programs
for t in tests/integration/*/*.t tests/long/*.t; do
    [ -x "$t" ] || { echo "$t: not executable (chmod +x: prove runs it as a program)"; fail=1; }
done
for t in tests/integration/*.t; do
    [ -e "$t" ] && { echo "$t: not in an area's folder (tests/integration/AREA/${t##*/}: tests/run.sh runs only those; docs/TESTING.md)"; fail=1; }
done
# a test's name is its key in tests/durations.txt and tests/tags.txt (and its log's name)
for n in $(for t in tests/integration/*/*.t tests/long/*.t; do echo "${t##*/}"; done | sort | uniq -d); do
    echo "$(ls -d tests/integration/*/"$n" tests/long/"$n" 2>/dev/null | paste -sd' '): one name for two tests (durations.txt and tags.txt key a test by its name)"; fail=1
done

# 6. unit tests named after their module
for u in tests/unit/test_*.c; do
    m=${u#tests/unit/test_}; m=${m%.c}
    compgen -G "harness/*/$m.c" > /dev/null || [ -e "loadgen/$m.c" ] ||
        { echo "$u: no module $m (harness/*/$m.c, loadgen/$m.c): name a unit test after the module it tests (make test AREA= maps it by that; docs/TESTING.md)"; fail=1; }
done
exit $fail
