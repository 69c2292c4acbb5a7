# tests/lib.sh - shared helpers for the integration tests (bash, TAP output).
# Source it from a tests/integration/AREA/*.t script:  . "$(dirname "$0")/../../lib.sh"
# (a tests/long/*.t script: . "$(dirname "$0")/../lib.sh")
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B="$ROOT/build"
T_N=0; T_FAIL=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mtebench-test.XXXXXX"); chmod 755 "$T_TMP"  # services run as an unprivileged user
T_PGIDS=""
# the quiet check's CPU sample before each run: 0.1 s, not 0.5 (a wait, and
# the suite makes hundreds of runs); the tests that judge the check itself
# (machines.t, nightly-e2e.t) unset it
export MTEBENCH_QUIET_SAMPLE=${MTEBENCH_QUIET_SAMPLE:-0.1}
# the machine's latency floor (run/floor.h) is not measured before each
# plan (about 6 s each); floor.t and capacity-md1.t measure it
export MTEBENCH_FLOOR=${MTEBENCH_FLOOR:-0}
# bench's counted pair on vm (cmd/bench_work.c, about 25 s) is not made
# before each bench; vm-count.t makes it
export MTEBENCH_WORK=${MTEBENCH_WORK:-0}
# reports a command writes by default (bench, report, compare-kernels,
# bisect, nightly) go under the test's temporary directory, not the
# checkout's reports/, and results (with the start-up costs kept beside
# them) under it too: tests/checkout.t checks the suite leaves the checkout as it was
export MTEBENCH_REPORTS="$T_TMP/reports"
export MTEBENCH_RESULTS="$T_TMP/results"
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
# floor_bound_ms MIN_MS FACTOR: a tail-latency bound for a test, in whole
# milliseconds: FACTOR times the worst p99 of this machine's latency floor
# (mtebench doctor: a native memcached on loopback at 50, 500 and 5000/s,
# about 6 s), at least MIN_MS. A fixed bound fails on a machine whose idle
# wake-ups cost milliseconds; this one moves with what the machine shows.
floor_bound_ms() {
    local worst
    worst=$(MTEBENCH_FLOOR=1 "$B/mtebench" doctor --json 2> /dev/null |
        jq -r '[.floor.points[]?.p99] | if length == 3 then max else empty end' 2> /dev/null)
    awk -v w="${worst:-0}" -v m="$1" -v f="$2" 'BEGIN { b = int(f * w / 1000 + 0.999); print (b > m ? b : m) }'
}
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

# start_time PID: the process's start time (clock ticks after boot, field 22
# of /proc/PID/stat); fails when there is no such process
start_time() {
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    st=${st##*) }                      # after the command name, which may hold spaces
    set -- $st; echo "${20}"
}

# note_pgid PID: cleanup kills PID's process group (PID leads it: setsid). It
# is noted with the leader's start time: a leader that ended long before the
# cleanup leaves its number free, and on a busy machine (pid_max 32768, a
# build forking thousands of processes) the number comes back as another
# test's process group, which must not be killed.
note_pgid() {
    local e="$1:$(start_time "$1")"
    T_PGIDS="$T_PGIDS $e"
    echo "$e" >> "$T_TMP/.pgids"
}

# still_ours PID:START: the group is still the one noted (its leader has the
# same start time), or its leader is gone and what is left of the group is
# ours (a number is not reused while a process group holds it)
still_ours() {
    local p=${1%%:*} st="" cur
    case $1 in *:*) st=${1#*:} ;; esac
    cur=$(start_time "$p") || return 0
    [ -z "$st" ] || [ "$cur" = "$st" ]
}

# spawn LOG CMD...: start CMD in its own process group, output to LOG; echoes
# its pid. The pid is also noted in a file, so `pid=$(spawn ...)` (a subshell)
# still gets the group killed by cleanup.
spawn() {
    local log=$1; shift
    setsid "$@" >"$log" 2>&1 < /dev/null &
    local pid=$!
    note_pgid "$pid"
    echo "$pid"
}

cleanup() {
    local p all ours=""
    all="$T_PGIDS $(cat "$T_TMP/.pgids" 2>/dev/null)"
    for p in $all; do still_ours "$p" && ours="$ours $p"; done
    for p in $ours; do kill -TERM -- "-${p%%:*}" 2>/dev/null; kill -CONT -- "-${p%%:*}" 2>/dev/null; done
    sleep 0.2
    for p in $ours; do still_ours "$p" && kill -KILL -- "-${p%%:*}" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# mtload_engines: the mtload engines to test, the usable ones here (io_uring
# only where the kernel allows it); MTL_ENGINES="epoll" narrows the list
mtload_engines() {
    if [ -n "${MTL_ENGINES:-}" ]; then echo "$MTL_ENGINES"; return; fi
    "$B/mtload" --engines 2>/dev/null | tr '\n' ' '
}

# mtl_memcached: for mtload's latency tests (mtload-stall.t, mtload-calm.t):
# a native one-thread memcached on CPU 0 where there are two, its 1000 keys
# preloaded (one check). Sets port, mcpid, RT (`chrt -f 50` where real-time priority is
# permitted, else empty) and LOAD, mtload's open-loop options: 2000 req/s, 16
# conns, pipeline 4, on CPU 1. The client polls during the last 500 us before
# each send (--spin) and runs under RT: on a shared VM a timer wake-up is
# often late by more than 100 us (more than memcached's whole response time),
# and a polling client without real-time priority is preempted by the other
# tenants; both would show as client lateness in the corrected view.
mtl_memcached() {
    [ -x "$B/mtload" ] || skip_all "build/mtload is not built"
    [ -x /usr/bin/memcached ] || skip_all "memcached is not installed"
    local srv_cpu=() cli_cpu=()
    if [ "$(nproc)" -ge 2 ]; then srv_cpu=(taskset -c 0); cli_cpu=(--cpus 1); fi
    RT=()
    if command -v chrt >/dev/null && chrt -f 50 true 2>/dev/null; then RT=(chrt -f 50); fi
    port=$(free_port)
    spawn "$T_TMP/mc.log" "${srv_cpu[@]}" /usr/bin/memcached -U 0 -l 127.0.0.1 -p "$port" -t 1 -u nobody >"$T_TMP/mc.pid"
    if ! wait_port "$port" 10; then
        ok 1 "memcached listens on $port"; dump "$T_TMP/mc.log"; done_testing
    fi
    mcpid=$(pgrep -f -- "-p $port " | head -1)
    timeout 30 "$B/mtload" --server "127.0.0.1:$port" --preload --keys 1000 --quiet
    ok $? "preload"
    LOAD=(--server "127.0.0.1:$port" --keys 1000 --rate 2000 --conns 16 --pipeline 4 --spin 500us "${cli_cpu[@]}")
}

# a test that ran no check fails (a bare "1..0" is a skip to prove: a test
# that cannot fail); one that means to skip says why with skip_all
done_testing() {
    [ "$T_N" = 0 ] && { T_N=1; T_FAIL=1; echo "not ok 1 - the test ran no check (skip_all says why a test skips)"; }
    echo "1..$T_N"; [ "$T_FAIL" = 0 ]; exit $?
}

# objtag_plants SERVICE DURATION OVERFLOW_RE UAF_RE UAF_WHAT TAGGED_JQ TAGGED_WHAT
# The contrast of per-object tagging (issue 14): the test-only variants
# objtag-plant and tagged-plant of SERVICE run in sync mode under emu with
# MTEBENCH_PLANT=overflow and =uaf. Under objtag-plant each run is a
# tag-check fault (exit 3, SIGSEGV with SEGV_MTESERR) at the address the
# plant logged: the first service-log line matched by the sed pattern
# OVERFLOW_RE / UAF_RE (group 1: the address; UAF_WHAT names it). Under
# tagged-plant each runs to the end: record ok, no fault, TAGGED_JQ true of
# the record (TAGGED_WHAT says what it checks), the plant made.
# Optional: LOG, the run-directory file the plant logs to (default
# service.log; db_bench.log for an embedded service), then extra arguments
# for every `mtebench run` (e.g. --keys N).
objtag_plants() {
    local svc=$1 dur=$2 ovre=$3 uafre=$4 uafwhat=$5 tjq=$6 twhat=$7 logf=${8:-service.log}
    shift 7; shift $(( $# > 0 ? 1 : 0 ))
    local R="$T_TMP/plants" v p want what got rec log
    for v in objtag-plant tagged-plant; do
        for p in overflow uaf; do
            MTEBENCH_PLANT=$p "$B/mtebench" run --service "$svc" --variant $v --mode sync --platform emu \
                --duration "$dur" --warmup 0 "$@" --results "$R/$v-$p" > "$T_TMP/$v-$p.out" 2>&1
            echo $? > "$T_TMP/$v-$p.rc"
        done
    done
    for p in overflow uaf; do
        rec="$R/objtag-plant-$p/001-objtag-plant-sync/record.json"
        log="$R/objtag-plant-$p/001-objtag-plant-sync/$logf"
        is "$(cat "$T_TMP/objtag-plant-$p.rc")" 3 "objtag sync, $p: the run reports a fault (exit 3)" || dump "$T_TMP/objtag-plant-$p.out"
        ok "$(jq_e '.status=="fault" and .fault.signal==11 and .fault.si_code==9 and .fault.tag_check==true' "$rec" >/dev/null; echo $?)" \
           "objtag sync, $p: SIGSEGV with SEGV_MTESERR recorded"
        if [ $p = overflow ]; then
            want=$(sed -n "s/$ovre/\\1/p" "$log" | head -n 1); what="the neighbour's address"
        else
            want=$(sed -n "s/$uafre/\\1/p" "$log" | head -n 1); what=$uafwhat
        fi
        got=$(jq -r .fault.addr "$rec")
        # compared without the tag (bits 56-63)
        ok "$([ -n "$want" ] && [ $(( got & 0xffffffffffffff )) = $(( want & 0xffffffffffffff )) ]; echo $?)" \
           "objtag sync, $p: the fault is at $what ($got vs planted $want)" || dump "$log"
        rec="$R/tagged-plant-$p/001-tagged-plant-sync/record.json"
        log="$R/tagged-plant-$p/001-tagged-plant-sync/$logf"
        is "$(cat "$T_TMP/tagged-plant-$p.rc")" 0 "tagged sync, $p: the same plant runs to the end" || dump "$T_TMP/tagged-plant-$p.out"
        ok "$(jq_e ".status==\"ok\" and (.fault|not) and ($tjq)" "$rec" >/dev/null; echo $?)" \
           "tagged sync, $p: record ok, no fault, $twhat"
        ok "$(grep -q "^mtbplant: " "$log"; echo $?)" "tagged sync, $p: the plant was made (service log)"
    done
}

# pids_in DIR: the processes whose working directory is DIR (a run's service
# runs in its run directory), one a line (one find, no process per pid)
pids_in() {
    find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$1" 2>/dev/null | cut -d/ -f3
    return 0
}

# service_pid DIR NAME: the process of a run's service (working directory
# DIR, NAME in its command line: memcached under qemu-aarch64 included)
service_pid() {
    local p
    for p in $(pids_in "$1"); do
        tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q -- "$2" && ! tr '\0' ' ' < "/proc/$p/cmdline" | grep -q mtload && { echo "$p"; return 0; }
    done
    return 0
}
