#!/bin/bash
# Bad arguments: a one-line message naming the option, exit status 2.
. "$(dirname "$0")/../../lib.sh"
MTL="$B/mtload"
# the system python: a version-manager shim can take seconds per start
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
[ -x "$MTL" ] || skip_all "build/mtload is not built"

bad() {   # bad OPTION-NAME ARGS...: exits 2, one line on stderr naming the option
    local name=$1; shift
    "$MTL" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T_TMP/err")" = 1 ] && grep -q -- "$name" "$T_TMP/err" \
       && [ ! -s "$T_TMP/out" ]; then
        ok 0 "$* -> exit 2: $(cat "$T_TMP/err")"
    else
        ok 1 "$* -> exit 2 with a message naming $name (got $rc: $(cat "$T_TMP/err"))"
    fi
}
bad --protocol --protocol smtp
bad --server --server 1.2.3:80
bad --server --server 127.0.0.1:70000
bad --server --server nosuchhost.example:11211
bad --threads --threads 0
bad --conns --conns x
bad --conns --threads 4 --conns 2
bad --pipeline --pipeline 0
bad --cpus --cpus 1-0
bad --ratio --ratio 1-10
bad --ratio --ratio 0:0
bad --keys --keys 0
bad --key-pattern --key-pattern zipf
bad --key-pattern --key-pattern zipf:-1
bad --value-size --value-size 0
bad --value-size --value-size 100-10
bad --value-size --value-size 100:0
bad --paths --paths nopath
bad --rate --rate 0
bad --arrival --arrival bursty
bad --duration --duration 10x
bad --warmup --warmup -1s
bad --timeout --timeout 0
bad --requests --requests -5
bad --preload --preload --protocol http
bad --engine --engine kqueue
bad --bogus --bogus
bad --duration --duration
bad extra extra
"$MTL" --help >"$T_TMP/help" 2>&1
ok $? "--help exits 0"
grep -q -- --key-pattern "$T_TMP/help"
ok $? "--help lists the options"
"$MTL" --engines >"$T_TMP/engines" 2>"$T_TMP/engines.err"
ok "$([ $? = 0 ] && grep -qx epoll "$T_TMP/engines"; echo $?)" \
   "--engines lists the usable engines: $(tr '\n' ' ' <"$T_TMP/engines")$(cat "$T_TMP/engines.err")"
# a server that refuses: counted, never a crash; a count-bounded run gives up
port=$(free_port)
for E in $(mtload_engines); do
    timeout 30 "$MTL" --engine "$E" --server "127.0.0.1:$port" --duration 1s --json "$T_TMP/refused.json" >"$T_TMP/refused.out" 2>&1
    is $? 3 "[$E] refused connections: the run ends, nothing measured: exit 3"
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["totals"]["errors"]["connect"] > 0 and d["totals"]["requests"] == 0 else 1)' "$T_TMP/refused.json"
    ok $? "[$E] refused connections are counted as connect errors"
done
# auto takes io_uring wherever it is usable, and says so
timeout 30 "$MTL" --server "127.0.0.1:$port" --duration 100ms --json "$T_TMP/auto.json" >"$T_TMP/auto.out" 2>&1
want=epoll; grep -qx io_uring "$T_TMP/engines" && want=io_uring
is "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["engine"])' "$T_TMP/auto.json")" "$want" \
   "--engine auto runs $want here"
# ... below pipeline 8: from there on epoll costs less CPU per request (docs/MTLOAD.md)
timeout 30 "$MTL" --server "127.0.0.1:$port" --pipeline 8 --duration 100ms --json "$T_TMP/auto8.json" >"$T_TMP/auto8.out" 2>&1
is "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["engine"], d["config"]["engine"], "auto: epoll at pipeline 8" in d.get("engine_note",""))' "$T_TMP/auto8.json")" \
   "epoll auto True" "--engine auto at pipeline 8 runs epoll and says why" || dump "$T_TMP/auto8.out"
timeout 30 "$MTL" --engine io_uring --server "127.0.0.1:$port" --pipeline 16 --duration 100ms --json "$T_TMP/u16.json" >"$T_TMP/u16.out" 2>&1
grep -qx io_uring "$T_TMP/engines" &&
    is "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["engine"])' "$T_TMP/u16.json")" io_uring \
       "--engine io_uring at pipeline 16 runs io_uring"
# where io_uring is refused (a seccomp filter, as in many containers) auto
# falls back to epoll and says why; --engine io_uring fails naming the engine.
# The filter makes io_uring_setup (425 on x86_64 and arm64) fail with EPERM.
cat >"$T_TMP/noring.py" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def stmt(code, k, jt=0, jf=0): return struct.pack("HBBI", code, jt, jf, k)
prog = (stmt(0x20, 0) +                      # ld [nr]
        stmt(0x15, 425, 0, 1) +              # jeq io_uring_setup
        stmt(0x06, 0x00050000 | 1) +         # ret ERRNO(EPERM)
        stmt(0x06, 0x7fff0000))              # ret ALLOW
buf = ctypes.create_string_buffer(prog)
class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = Fprog(len(prog) // 8, ctypes.addressof(buf))
assert libc.prctl(38, 1, 0, 0, 0) == 0                       # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(fp), 0, 0) == 0, ctypes.get_errno()  # SECCOMP_MODE_FILTER
os.execv(sys.argv[1], sys.argv[1:])
PY
if grep -qx io_uring "$T_TMP/engines"; then
    timeout 30 "$PY" "$T_TMP/noring.py" "$MTL" --server "127.0.0.1:$port" --duration 100ms --json "$T_TMP/fb.json" >"$T_TMP/fb.out" 2>&1
    is $? 3 "io_uring refused by seccomp: auto still runs (no server here: nothing answered, exit 3)"
    is "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["engine"], "EPERM" if "not permitted" in d.get("engine_note","") else d.get("engine_note"))' "$T_TMP/fb.json")" \
       "epoll EPERM" "... on epoll, with the reason in engine_note" || dump "$T_TMP/fb.out"
    timeout 30 "$PY" "$T_TMP/noring.py" "$MTL" --engine io_uring --server "127.0.0.1:$port" --duration 100ms >"$T_TMP/fbu.out" 2>&1
    rc=$?
    ok "$([ $rc = 1 ] && grep -q -- '--engine io_uring: io_uring_queue_init' "$T_TMP/fbu.out"; echo $?)" \
       "--engine io_uring where refused: exit 1, $(head -1 "$T_TMP/fbu.out")"
    timeout 30 "$PY" "$T_TMP/noring.py" "$MTL" --engines >"$T_TMP/fbe.out" 2>&1
    ok "$(grep -qx epoll "$T_TMP/fbe.out" && ! grep -qx io_uring "$T_TMP/fbe.out"; echo $?)" \
       "--engines leaves io_uring out where refused: $(tr '\n' ' ' <"$T_TMP/fbe.out")"
fi
done_testing
