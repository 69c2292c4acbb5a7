# tests/lib.sh - shared helpers for the integration tests (bash, TAP output).
# Source it from a tests/integration/*.t script:  . "$(dirname "$0")/../lib.sh"
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B="$ROOT/build"
T_N=0; T_FAIL=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mtebench-test.XXXXXX"); chmod 755 "$T_TMP"  # services run as an unprivileged user
T_PGIDS=""
. "$ROOT/tests/common.sh"

# ok STATUS NAME / is GOT EXPECTED NAME: one TAP line; return 1 on failure so
# that `ok ... || dump log` shows what went wrong
ok()   { T_N=$((T_N+1)); if [ "$1" = 0 ]; then echo "ok $T_N - $2"; else echo "not ok $T_N - $2"; T_FAIL=$((T_FAIL+1)); return 1; fi; }
is()   { T_N=$((T_N+1)); if [ "$1" = "$2" ]; then echo "ok $T_N - $3"; else echo "not ok $T_N - $3"; echo "#   got: '$1'"; echo "#   expected: '$2'"; T_FAIL=$((T_FAIL+1)); return 1; fi; }
diag() { echo "# $*"; }
# jq_e ARGS...: `jq -e ARGS` that also fails when there is nothing to check.
# jq 1.6 exits 0 on empty input (an empty file, a failed command's empty
# output), so a `jq -e` check passed with no data at all. Here: jq's own
# failure, no output at all, or a last output of false/null is a failure.
jq_e() {
    local out rc
    out=$(command jq -c "$@"); rc=$?
    [ "$rc" = 0 ] || return "$rc"
    [ -n "$out" ] || return 4
    printf '%s\n' "$out"
    case "$(printf '%s\n' "$out" | tail -n 1)" in false | null) return 1 ;; esac
    return 0
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# dump a file as TAP diagnostics (used on failure)
dump() { [ -f "$1" ] && sed 's/^/#   /' "$1" | tail -n "${2:-40}"; }


# wait_port PORT [SECONDS]: poll until something accepts on 127.0.0.1:PORT, bounded
wait_port() {
    local port=$1 limit=${2:-20} i=0
    while [ $i -lt $((limit*10)) ]; do
        (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && return 0
        sleep 0.1; i=$((i+1))
    done
    return 1
}

# spawn LOG CMD...: start CMD in its own process group, output to LOG; echoes
# its pid. The pid is also noted in a file, so `pid=$(spawn ...)` (a subshell)
# still gets the group killed by cleanup.
spawn() {
    local log=$1; shift
    setsid "$@" >"$log" 2>&1 < /dev/null &
    local pid=$!
    T_PGIDS="$T_PGIDS $pid"
    echo "$pid" >> "$T_TMP/.pgids"
    echo "$pid"
}

cleanup() {
    local p all
    all="$T_PGIDS $(cat "$T_TMP/.pgids" 2>/dev/null)"
    for p in $all; do kill -TERM -- "-$p" 2>/dev/null; kill -CONT -- "-$p" 2>/dev/null; done
    sleep 0.2
    for p in $all; do kill -KILL -- "-$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

done_testing() { echo "1..$T_N"; [ "$T_FAIL" = 0 ]; exit $?; }

# pids_in DIR: the processes whose working directory is DIR (a run's service
# runs in its run directory), one a line
pids_in() {
    local p d
    for p in /proc/[0-9]*; do
        d=$(readlink "$p/cwd" 2>/dev/null) || continue
        [ "$d" = "$1" ] && echo "${p#/proc/}"
    done
    return 0
}
