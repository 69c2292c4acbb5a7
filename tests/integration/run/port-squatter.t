#!/bin/bash
# No port races: another program takes the service's port the moment the
# harness lets go of it and answers the readiness check like a memcached.
# The run is an error naming that program, and it is never measured. (Once
# the harness declared the squatter ready and measured it.) ~15 s.
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
done_testing
