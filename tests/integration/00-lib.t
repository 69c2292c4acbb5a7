#!/bin/bash
# The suite's own helpers assert what they name: jq_e fails when there is
# nothing to check (jq 1.6's `jq -e` exits 0 on empty input). (< 1 s)
. "$(dirname "$0")/../lib.sh"
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
done_testing
