#!/bin/bash
# PostgreSQL with a tag per AllocSet chunk (variant objtag) still behaves in
# sync mode under emu: initdb (the whole bootstrap) runs tagged, pgbench's
# three built-in scripts run against it, and a set of PostgreSQL's own
# regression SQL files chosen for memory-context churn run to their end with
# the server still up and no tag-check fault: numeric (arbitrary-precision
# arithmetic, palloc/pfree per operation), strings (text functions, regular
# expressions), jsonpath and json (parsers, nested structures). Their
# expected output is not compared (they test errors on purpose and some use
# the regression database's tables, absent here): the point is that the
# server survives them with per-chunk tags. (tuplesort.sql was left out: it
# took 104 s under emu on a loaded machine.) Each server process writes its
# tag operations to the server log at exit; services/postgresql/counters.sh
# sums them: over the select-only run they exceed its transactions (every
# query pallocs). About 2.5 min under emu here with a load average of 26, most
# of it initdb (90 s).
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
SQL_FILES="numeric strings jsonpath json"
command -v psql >/dev/null && command -v pgbench >/dev/null || skip_all "psql/pgbench missing (make deps: postgresql-client)"
id mtebench >/dev/null 2>&1 || skip_all "no user mtebench (make deps)"
bin=$("$M" build --service postgresql --platform emu --variant objtag 2>"$T_TMP/build.err" | awk '{print $5}')
ok "$([ -x "$bin" ]; echo $?)" "objtag build" || dump "$T_TMP/build.err"
BLD=$(dirname "$(dirname "$bin")")
# objtag is tagged's object tree with its one patched file recompiled
# (recipe tree_from = tagged): the same objects a full build makes, minutes
# less cold; and objtag's own tree is the base of objtag-bugs (a chain)
jq_e '.tree_from.variant == "tagged"' "$BLD/build.json" > /dev/null
ok $? "objtag built from tagged's object tree (build.json: tree_from)" || jq -c '.tree_from' "$BLD/build.json"
is "$(cat "$BLD/recompiled.txt" 2> /dev/null)" "src/backend/utils/mmgr/aset.o" \
    "only aset.o recompiled (recompiled.txt)"
# the regression files from the object tree objtag was built from (no patch
# touches them); from the source tarball where that tree is gone
mkdir -p "$T_TMP/sql"
tree=$(jq -r '.tree_from.tree // empty' "$BLD/build.json")/postgresql-15.18/src/test/regress/sql
if [ -d "$tree" ]; then
    for f in $SQL_FILES; do cp "$tree/$f.sql" "$T_TMP/sql/"; done
else
    src=$(ls "${MTEBENCH_CACHE:-/var/cache/mtebench}"/src/postgresql-15_*.orig.tar.bz2 | head -1)
    tar xjf "$src" -C "$T_TMP/sql" --strip-components=5 $(for f in $SQL_FILES; do echo "postgresql-15.18/src/test/regress/sql/$f.sql"; done)
fi
ok "$(for f in $SQL_FILES; do [ -s "$T_TMP/sql/$f.sql" ] || exit 1; done; echo $?)" "regression files from the pinned source ($SQL_FILES)"

D="$T_TMP/pg"; mkdir -p "$D"; chown mtebench: "$D"
as_pg() { runuser -u mtebench -- env GLIBC_TUNABLES=glibc.mem.tagging=3 "$@"; }
t0=$SECONDS
as_pg "$BLD/bin/initdb" -D "$D/data" -U postgres -A trust -E UTF8 --locale=C --no-sync --no-instructions > "$T_TMP/initdb.log" 2>&1
is "$?" 0 "initdb under objtag sync ($((SECONDS - t0)) s)" || dump "$T_TMP/initdb.log"
port=$(free_port)
pid=$(spawn "$T_TMP/server.log" runuser -u mtebench -- env GLIBC_TUNABLES=glibc.mem.tagging=3 \
    LD_PRELOAD="$B/aarch64/libmtefault.so" MTEBENCH_FAULT_FILE="$D/fault" \
    "$BLD/bin/postgres" -D "$D/data" -p "$port" -k "$D" -c listen_addresses=127.0.0.1 -c max_connections=20 \
    -c shared_buffers=32MB -c huge_pages=off -c shared_memory_type=mmap -c dynamic_shared_memory_type=posix \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum=off)
up=1; for _ in $(seq 60); do pg_isready -q -h 127.0.0.1 -p "$port" -U postgres && { up=0; break; }; sleep 0.5; done
ok "$up" "server up (sync)" || dump "$T_TMP/server.log"
pg() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }
tunables=$(pg -At -c "select current_setting('server_version')" 2>&1)
ok "$([ -n "$tunables" ]; echo $?)" "psql connects (server $tunables)"

pgbench -i -q -s 1 -h 127.0.0.1 -p "$port" -U postgres postgres > "$T_TMP/pgbench-init.log" 2>&1
is "$?" 0 "pgbench -i" || dump "$T_TMP/pgbench-init.log"
counter() { bash "$ROOT/services/postgresql/counters.sh" "$port" "$T_TMP/server.log" | awk -v k="$1" '$1 == k { print $2 }'; }
ops0=$(counter objtag_ops); gr0=$(counter objtag_granules)
for b in select-only tpcb-like simple-update; do
    t0=$SECONDS
    pgbench -b "$b" -T 3 -c 2 -h 127.0.0.1 -p "$port" -U postgres postgres > "$T_TMP/pgbench-$b.log" 2>&1
    rc=$?
    n=$(awk '/number of transactions actually processed/ {print $NF}' "$T_TMP/pgbench-$b.log")
    ok "$([ "$rc" = 0 ] && [ "${n:-0}" -gt 0 ]; echo $?)" "pgbench built-in $b: $n transactions ($((SECONDS - t0)) s)" || dump "$T_TMP/pgbench-$b.log"
    if [ "$b" = select-only ]; then
        sleep 1   # pgbench's backends write their counts as they exit
        ops=$(( $(counter objtag_ops) - ${ops0:-0} )); gr=$(( $(counter objtag_granules) - ${gr0:-0} ))
        ok "$([ -n "$ops0" ] && [ "$ops" -gt "${n:-0}" ] && [ "$gr" -ge "$ops" ]; echo $?)" \
           "select-only: its backends counted their tag operations ($ops, $gr granules: $(( ops / (n > 0 ? n : 1) )) per transaction)" \
           || dump "$T_TMP/server.log"
    fi
done
for f in $SQL_FILES; do
    t0=$SECONDS
    timeout 120 psql -X -h 127.0.0.1 -p "$port" -U postgres -d postgres -f "$T_TMP/sql/$f.sql" > "$T_TMP/$f.out" 2>&1
    rc=$?
    ok "$([ "$rc" = 0 ] && ! grep -q 'server closed the connection\|connection to server was lost' "$T_TMP/$f.out"; echo $?)" \
       "regression $f.sql runs to its end in $((SECONDS - t0)) s ($(grep -c 'ERROR:' "$T_TMP/$f.out") statement errors: deliberate ones, absent tables)" || dump "$T_TMP/$f.out"
done
ok "$(kill -0 "$pid" 2>/dev/null && ! grep -q 'terminated by signal' "$T_TMP/server.log" && [ ! -s "$D/fault" ]; echo $?)" \
   "no fault, no backend terminated by a signal, server still up" || { dump "$D/fault"; dump "$T_TMP/server.log"; }
done_testing
