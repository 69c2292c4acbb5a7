#!/bin/bash
# Bad arguments: a one-line message naming the option, exit status 2.
. "$(dirname "$0")/../lib.sh"
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
bad --bogus --bogus
bad --duration --duration
bad extra extra
"$MTL" --help >"$T_TMP/help" 2>&1
ok $? "--help exits 0"
grep -q -- --key-pattern "$T_TMP/help"
ok $? "--help lists the options"
# a server that refuses: counted, never a crash; a count-bounded run gives up
port=$(free_port)
timeout 30 "$MTL" --server "127.0.0.1:$port" --duration 1s --json "$T_TMP/refused.json" >"$T_TMP/refused.out" 2>&1
ok $? "refused connections: the run still ends normally"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["totals"]["errors"]["connect"] > 0 and d["totals"]["requests"] == 0 else 1)' "$T_TMP/refused.json"
ok $? "refused connections are counted as connect errors"
done_testing
