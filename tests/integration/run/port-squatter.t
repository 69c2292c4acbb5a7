#!/bin/bash
# No port races: another program takes the service's port the moment the
# harness lets go of it and answers the readiness check like a memcached.
# The run is an error naming that program, and it is never measured. (Once
# the harness declared the squatter ready and measured it.) And when the
# service's failed bind ends it before the readiness check is answered (a
# squatter that answers nothing makes that order certain; with one that
# answers, the two race), the error names the program too. (Once CI on
# 5c02902 said "did not become ready (exit 71)".) ~20 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
port=$(free_port)
spawn "$T_TMP/squatter.log" "$PY" "$ROOT/tests/tools/squatter.py" "$port" "$T_TMP/count" > /dev/null
sleep 0.3
MTEBENCH_PORT=$port "$M" run --service memcached --mode off --platform emu --duration 2 --warmup 0 \
    --results "$R" > "$T_TMP/out" 2> "$T_TMP/err"
is "$?" 1 "exit status 1" || dump "$T_TMP/err"
rec="$R/001-plain-off/record.json"
is "$(jq -r .status "$rec" 2>/dev/null)" error "the run is an error"
ok "$(jq -r .error "$rec" | grep -Eq "^port $port was taken by another program \(pid [0-9]+, python3\) before memcached could bind it: not measured"; echo $?)" \
   "its error names the port and the program that took it" || jq -r .error "$rec" | sed 's/^/# /'
is "$(cat "$T_TMP/count" 2>/dev/null)" 0 "the squatter got no request but the readiness check"
is "$(jq -r 'has("load") and .load != null' "$rec" 2>&1)" false "no load in the record"

port=$(free_port)
spawn "$T_TMP/squatter2.log" "$PY" "$ROOT/tests/tools/squatter.py" "$port" "$T_TMP/count2" silent > /dev/null
sleep 0.3
MTEBENCH_PORT=$port "$M" run --service memcached --mode off --platform emu --duration 2 --warmup 0 \
    --results "$R/silent" > "$T_TMP/out2" 2> "$T_TMP/err2"
is "$?" 1 "a squatter that answers nothing: exit status 1" || dump "$T_TMP/err2"
rec="$R/silent/001-plain-off/record.json"
ok "$(jq -r .error "$rec" | grep -Eq "^port $port was taken by another program \(pid [0-9]+, python3\) before memcached could bind it: not measured"; echo $?)" \
   "memcached ended by its failed bind before any answer: the error names the program that took the port" ||
    jq -r .error "$rec" | sed 's/^/# /'
done_testing
