#!/bin/bash
# The suite's own helpers assert what they name: jq_e fails when there is
# nothing to check (jq 1.6's `jq -e` exits 0 on empty input); cleanup kills
# the process groups a test noted, and not a group that took a noted number
# after its leader ended (a number noted with another start time); a test
# that ran no check fails, where skip_all skips. (< 2 s)
. "$(dirname "$0")/../../lib.sh"
printf '' > "$T_TMP/empty.json"
echo '{"a":1}' > "$T_TMP/a.json"
printf '' | jq -e . >/dev/null && diag "$(jq --version): jq -e exits 0 on empty input (why jq_e exists)"
ok "$( ! printf '' | jq_e '.a == 1' >/dev/null; echo $?)" "jq_e: empty input fails"
ok "$( ! printf '\n' | jq_e '.a == 1' >/dev/null; echo $?)" "jq_e: a blank line (an empty here-string) fails"
ok "$( ! jq_e '.a == 1' "$T_TMP/empty.json" >/dev/null; echo $?)" "jq_e: an empty file fails"
ok "$( ! jq_e '.a == 1' "$T_TMP/missing.json" >/dev/null 2>&1; echo $?)" "jq_e: a missing file fails"
ok "$( ! jq_e '.a == 2' "$T_TMP/a.json" >/dev/null; echo $?)" "jq_e: false fails"
ok "$( ! jq_e '.b' "$T_TMP/a.json" >/dev/null; echo $?)" "jq_e: null fails"
ok "$( ! jq_e '.list[]? | select(.x)' "$T_TMP/a.json" >/dev/null; echo $?)" "jq_e: no output fails"
ok "$(jq_e '.a == 1' "$T_TMP/a.json" >/dev/null; echo $?)" "jq_e: true passes (file)"
ok "$(jq_e --argjson v 1 '.a == $v' <<< '{"a":1}' >/dev/null; echo $?)" "jq_e: true passes (stdin, with options)"

# cleanup in a test of its own (a subshell with its own T_TMP): one group it
# spawned, and one of another's that has a number it noted with another start
# time (as a number that came back after its leader ended)
setsid sleep 60 < /dev/null > /dev/null 2>&1 &
other=$!
out_mine="$T_TMP/mine.pid"
(
    T_TMP=$(mktemp -d); T_PGIDS=""
    mine=$(spawn "$T_TMP/mine.log" sleep 60)
    echo "$mine" > "$out_mine"
    echo "$other:1" >> "$T_TMP/.pgids"
    cleanup
) 2>/dev/null
mine=$(cat "$T_TMP/mine.pid" 2>/dev/null)
# running: not ended (an orphan's zombie may stay: PID 1 need not reap it)
running() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; [ "${s%% *}" != Z ]; }
ok "$( [ -n "$mine" ] && ! running "$mine"; echo $?)" "cleanup: the group the test spawned is killed"
ok "$(running "$other"; echo $?)" "cleanup: a group that took a noted number (another start time) is left alone"
kill -- "-$other" 2>/dev/null

# a test that ran no check fails (prove takes a bare "1..0" for a skip);
# skip_all skips, saying why
printf '. "%s/tests/lib.sh"\ndone_testing\n' "$ROOT" > "$T_TMP/none.t"
printf '. "%s/tests/lib.sh"\nskip_all "no such thing here"\n' "$ROOT" > "$T_TMP/skip.t"
out=$(bash "$T_TMP/none.t" 2>&1); rc=$?
ok "$([ "$rc" != 0 ] && [ "$(echo "$out" | tail -1)" = "1..1" ] && echo "$out" | grep -q '^not ok 1 - the test ran no check'; echo $?)" \
   "done_testing with no check run: not ok, exit $rc" || diag "$out"
out=$(bash "$T_TMP/skip.t" 2>&1); rc=$?
is "$rc:$out" "0:1..0 # SKIP no such thing here" "skip_all: a skip, with its reason"
done_testing
