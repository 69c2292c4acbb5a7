#!/bin/bash
# memcached with a tag per slab chunk (variant objtag) still behaves in sync
# mode under emu: libmemcached's memccapable conformance checker passes, and a
# churn that makes the slab rebalancer move pages between classes while items
# are live (slab_reassign, slab_automove=2, explicit `slabs reassign`, values
# of 40 B to 700 KB) with the LRU crawler running ends without a fault, with
# per-chunk tagging active the whole time. ~50 s under emu.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
command -v memccapable >/dev/null || skip_all "memccapable missing (make deps: libmemcached-tools)"
bin=$("$M" build --service memcached --platform emu --variant objtag 2>"$T_TMP/build.err" | awk '{print $5}')
ok "$([ -x "$bin" ]; echo $?)" "objtag build" || dump "$T_TMP/build.err"

# start PORT NAME OPTIONS...: objtag memcached in sync mode with the fault reporter
start() {
    local port=$1 name=$2; shift 2
    spawn "$T_TMP/$name.log" qemu-aarch64 -cpu max -E GLIBC_TUNABLES=glibc.mem.tagging=3 \
        -E LD_PRELOAD="$B/aarch64/libmtefault.so" -E MTEBENCH_FAULT_FILE="$T_TMP/$name.fault" \
        "$bin" -U 0 -l 127.0.0.1 -p "$port" -u nobody "$@" > "$T_TMP/$name.pid"
    wait_port "$port" 30
}
stat_of() { # PORT NAME: one line of `stats`
    exec 3<>"/dev/tcp/127.0.0.1/$1"; printf 'stats\r\nquit\r\n' >&3
    tr -d '\r' <&3 | awk -v k="$2" '$1=="STAT" && $2==k {print $3}'; exec 3<&-
}

p1=$(free_port)
start "$p1" cap -m 64; ok $? "objtag memcached up (sync)" || dump "$T_TMP/cap.log"
is "$(stat_of "$p1" objtag_active)" 1 "per-chunk tagging is active"
timeout 120 memccapable -h 127.0.0.1 -p "$p1" -t 20 > "$T_TMP/memccapable.out" 2>&1
is "$?" 0 "memccapable: all tests pass" || dump "$T_TMP/memccapable.out"
ok "$(grep -q '^All tests passed' "$T_TMP/memccapable.out"; echo $?)" "memccapable says so ($(grep -c '\[pass\]' "$T_TMP/memccapable.out") passed)"
ok "$(kill -0 "$(cat "$T_TMP/cap.pid")" && [ ! -s "$T_TMP/cap.fault" ]; echo $?)" "no fault, still running" || dump "$T_TMP/cap.fault"

p2=$(free_port)
start "$p2" churn -m 8 -o slab_reassign,slab_automove=2,lru_crawler,lru_maintainer
ok $? "objtag memcached up with the rebalancer and crawler (sync)" || dump "$T_TMP/churn.log"
timeout 150 "$PY" "$ROOT/tests/tools/memcached_churn.py" "$p2" 40 > "$T_TMP/churn.out" 2>&1
is "$?" 0 "the churn ran to its end" || dump "$T_TMP/churn.out"
val() { awk -v k="$1" '$1==k {print $2}' "$T_TMP/churn.out"; }
ok "$([ "$(val slabs_moved)" -gt 0 ] 2>/dev/null; echo $?)" "pages were moved ($(val slabs_moved)) with items rescued ($(val slab_reassign_rescues))"
ok "$([ "$(val crawler_items_checked)" -gt 0 ] 2>/dev/null; echo $?)" "the LRU crawler walked items ($(val crawler_items_checked))"
ok "$([ "$(val objtag_active)" = 1 ] && [ "$(val objtag_ops)" -gt 0 ]; echo $?)" "chunks were tagged ($(val objtag_ops) tag operations)"
ok "$(kill -0 "$(cat "$T_TMP/churn.pid")" && [ ! -s "$T_TMP/churn.fault" ]; echo $?)" "no fault, still running" || { dump "$T_TMP/churn.fault"; dump "$T_TMP/churn.log"; }
done_testing
