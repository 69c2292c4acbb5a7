#!/bin/bash
# The nightly's history in PostgreSQL: a throwaway server (initdb + pg_ctl of
# the host's postgresql-15, as the unprivileged mtebench user, listening only
# on a unix socket in the test's directory, password authentication), then
# `mtebench nightly --ingest` of synthetic nights (records written here, as
# the nightly writes them) into it:
# - the rows are there, the change detection and the dashboard give the same
#   as the same nights in an SQLite history;
# - a hand-made schema 1 is migrated; newer schemas, foreign tables named
#   like ours, a foreign schema_version table, a wrong password, a missing
#   database and a stopped server are refused with exit 4 and a clear message;
# - two machines creating and appending to one new history at once;
# - the password of the URL appears in no output, file or report.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
PGBIN=/usr/lib/postgresql/15/bin
[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] || skip_all "no PostgreSQL 15 server ($PGBIN; make deps)"
command -v psql >/dev/null || skip_all "no psql (postgresql-client-15; make deps)"
id mtebench >/dev/null 2>&1 || skip_all "no mtebench user (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root to run PostgreSQL as the mtebench user"
"$M" nightly --history postgresql:///x --out "$T_TMP/probe" 2>&1 | grep -q 'built without libpq' &&
    skip_all "mtebench built without libpq (libpq-dev; make deps)"

# ---- the server --------------------------------------------------------------
PGD="$T_TMP/pg"                      # data and socket (a short path: sockets have a length limit)
mkdir -p "$PGD" && chown mtebench "$PGD" && chmod 700 "$PGD"
PW='Sx9:q@w%zQ7/kT'                  # characters a URL must escape
PWU='Sx9%3Aq%40w%25zQ7%2FkT'         # ... percent-encoded
printf '%s\n' "$PW" > "$PGD/pwfile"; chown mtebench "$PGD/pwfile"
pg() { runuser -u mtebench -- "$@"; }
pg "$PGBIN/initdb" -D "$PGD/data" -U mtebench --auth=scram-sha-256 --pwfile="$PGD/pwfile" -E UTF8 --locale=C.UTF-8 \
    > "$T_TMP/initdb.log" 2>&1
ok "$?" "initdb (scram-sha-256)" || dump "$T_TMP/initdb.log"
rm -f "$PGD/pwfile"
pgstop() { pg "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate -w stop >/dev/null 2>&1; }
trap 'pgstop; cleanup' EXIT
pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 30 \
    -o "-c listen_addresses='' -c unix_socket_directories='$PGD' -c fsync=off -c full_page_writes=off" start \
    > "$T_TMP/pgctl.log" 2>&1
ok "$?" "PostgreSQL started on a unix socket only" || { dump "$T_TMP/pgctl.log"; dump "$PGD/log"; done_testing; }
export PGPASSWORD="$PW"              # for psql only; mtebench gets the URL
sqlp() { psql -h "$PGD" -U mtebench -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
for db in mtb mtb2 v1 v3 newer alien alienver shape conc bis; do sqlp -d postgres -c "CREATE DATABASE $db" || diag "createdb $db"; done
url() { echo "postgresql://mtebench:$PWU@/$1?host=$PGD"; }
unset PGPASSWORD                     # from here on the password comes from the URL alone

# ---- synthetic nights --------------------------------------------------------
# night DIR N OPS_SCALE: 6 reps of plain/off and tagged/async, records as the
# nightly writes them (throughput around 10000 and 8000 ops/s, +-2%)
night_dir() {
    local dir=$1 n=$2 scale=$3 rep v m ops
    for rep in 1 2 3 4 5 6; do
        for v in plain tagged; do
            [ $v = plain ] && m=off || m=async
            ops=$(awk -v n="$n" -v r="$rep" -v v="$v" -v s="$scale" 'BEGIN{srand(n*100+r*10+(v=="plain")); b=(v=="plain")?10000:8000; printf "%.1f", b*s*(0.98+0.04*rand())}')
            mkdir -p "$dir/$rep-$v"
            jq -n --arg v $v --arg m $m --argjson rep $rep --argjson ops "$ops" --arg st "2026-11-0${n}T02:0${rep}:00Z" '{
                schema: "mtebench-run/1", status: "ok", started: $st, finished: $st, mtebench_version: "v-test",
                config: {service: "memcached", variant: $v, mode: $m, platform: "emu", kernel: "host", plan: "pgnightly",
                         rep: $rep, index: $rep, workload: {name: "default", mix: "1:10", conns: 4, duration_s: 1}},
                build: {key: "b0123"}, kernel: {uname_r: "6.1.0", uname_v: "#1 SMP"},
                machine: {name: "auto", service_cpus: "0"},
                summary: {ops_per_sec: $ops, p50_us: 10.0, p99_us: (1000000 / $ops), p999_us: (2000000 / $ops)}}' \
                > "$dir/$rep-$v/record.json"
        done
    done
}
for n in 1 2 3 4; do night_dir "$T_TMP/nights/night$n" $n 1.0; done
night_dir "$T_TMP/nights/night5" 5 0.7          # night 5: 30% slower
nightly() { # nightly OUT HISTORY ARGS...: stdout+stderr to OUT.out/.err, exit status kept
    local out=$1 hist=$2; shift 2
    "$M" nightly --history "$hist" --out "$T_TMP/$out" "$@" > "$T_TMP/$out.out" 2> "$T_TMP/$out.err"
}

# ---- a few nights into PostgreSQL and SQLite ----------------------------------------
P=$(url mtb); S="$T_TMP/history.sqlite"
nightly pg1 "$P" --ingest "$T_TMP/nights/night1" "$T_TMP/nights/night2" "$T_TMP/nights/night3"
is "$?" 0 "PostgreSQL: nights 1-3 ingested, no regression" || { dump "$T_TMP/pg1.err"; dump "$T_TMP/pg1.out"; }
ok "$(grep -q 'new history postgresql://mtebench:\*\*\*@/mtb?host=.* (PostgreSQL)' "$T_TMP/pg1.err"; echo $?)" \
    "new history announced with the password redacted" || dump "$T_TMP/pg1.err"
nightly pg2 "$P" --ingest "$T_TMP/nights/night4"
is "$?" 0 "night 4: no regression"
nightly pg3 "$P" --ingest "$T_TMP/nights/night5"
is "$?" 3 "night 5 (30% slower): regression (exit 3)" || { dump "$T_TMP/pg3.err"; dump "$T_TMP/pg3.out"; }
nightly pg4 "$P" --ingest "$T_TMP/nights/night5"
is "$?" 0 "night 5 again: nothing added, the regression is not new (exit 0)"
ok "$(grep -q 'already in the history' "$T_TMP/pg4.err"; echo $?)" "... and says it was already in the history"
sqlm() { PGPASSWORD="$PW" sqlp -d "${2:-mtb}" -c "$1"; }
is "$(sqlm 'SELECT count(*) FROM nights')" 5 "PostgreSQL holds 5 nights"
is "$(sqlm "SELECT count(*) FROM runs WHERE status = 'ok'")" 60 "and 60 runs"
is "$(sqlm 'SELECT count(*) FROM overheads')" 30 "and 30 overhead pairs"
is "$(sqlm "SELECT version FROM schema_version WHERE program = 'mtebench'")" 6 "schema_version: mtebench 6"
is "$(sqlm "SELECT count(*) FROM runs WHERE record LIKE '$(hostname):/%'")" 60 "records keyed by host:path"

for n in 1 2 3 4 5; do nightly sq$n "$S" --ingest "$T_TMP/nights/night$n"; done
is "$?" 3 "SQLite, same nights: regression at night 5 too"
ja() { jq -S '{series: [.series[] | {series, metric, changes: [.changes[] | {x, kind, change}]}], open: [.open[] | {series, metric, night, change}]}' "$1"; }
ja "$T_TMP/pg3/analysis.json" > "$T_TMP/pg.analysis"; ja "$T_TMP/sq5/analysis.json" > "$T_TMP/sq.analysis"
ok "$(cmp -s "$T_TMP/pg.analysis" "$T_TMP/sq.analysis"; echo $?)" "the analysis of the PostgreSQL history equals SQLite's" ||
    diff "$T_TMP/pg.analysis" "$T_TMP/sq.analysis" | head -20 | sed 's/^/# /'
ok "$(jq_e '[.new[] | select(.metric == "throughput" and .x == 5 and .change <= -0.2)] | length >= 1' "$T_TMP/pg3/analysis.json" >/dev/null; echo $?)" \
    "the new regression: throughput at night 5, 20% or more down"
is "$(grep -c '<section class="series"' "$T_TMP/pg3/index.html")" "$(grep -c '<section class="series"' "$T_TMP/sq5/index.html")" \
    "dashboard: as many series sections as from SQLite"
ok "$(grep -A3 'id="open"' "$T_TMP/pg3/index.html" | grep -q regression; echo $?)" "dashboard: open regression listed"
ok "$(grep -q 'href="nights/night5/index.html"' "$T_TMP/pg3/index.html"; echo $?)" "dashboard links to the night's run report"
ok "$(grep -q '^# mtebench nightly: REGRESSION' "$T_TMP/pg3.out"; echo $?)" "digest says REGRESSION"

# ---- two machines at once on a new history ------------------------------------------
for n in 1 2; do cp -r "$T_TMP/nights/night$n" "$T_TMP/nights/c$n"; done
nightly conc1 "$(url conc)" --ingest "$T_TMP/nights/c1" & c1=$!
nightly conc2 "$(url conc)" --ingest "$T_TMP/nights/c2" & c2=$!
wait $c1; r1=$?; wait $c2; r2=$?
is "$r1 $r2" "0 0" "two writers creating one new history at once: both succeed" || { dump "$T_TMP/conc1.err"; dump "$T_TMP/conc2.err"; }
is "$(sqlm 'SELECT count(*) FROM nights' conc) $(sqlm 'SELECT count(*) FROM runs' conc) $(sqlm 'SELECT count(*) FROM schema_version' conc)" \
    "2 24 1" "... 2 nights, 24 runs, one schema version row"

# ---- migration from schema 1 (made by hand) -------------------------------------------
kept="$(hostname):$(realpath "$T_TMP/nights/night1/1-plain/record.json")"
sqlm "CREATE TABLE runs(id BIGSERIAL PRIMARY KEY, plan TEXT NOT NULL, service TEXT, workload TEXT, variant TEXT,
      mode TEXT, platform TEXT, kernel TEXT, started TEXT, rep BIGINT, mtebench_version TEXT, build_key TEXT,
      status TEXT, ops_per_sec DOUBLE PRECISION, p50_us DOUBLE PRECISION, p99_us DOUBLE PRECISION,
      p999_us DOUBLE PRECISION, record TEXT UNIQUE);
    INSERT INTO runs(plan, service, workload, variant, mode, platform, kernel, started, rep, mtebench_version,
      build_key, status, ops_per_sec, p50_us, p99_us, p999_us, record) VALUES
     ('pgnightly', 'memcached', 'mix=\"1:10\"', 'plain', 'off', 'emu', 'host', '2026-10-01T01:00:00Z', 1, 'v-old', 'b0', 'ok', 1000, 10, 100, 200, '$kept'),
     ('pgnightly', 'memcached', 'mix=\"1:10\"', 'tagged', 'async', 'emu', 'host', '2026-10-01T01:01:00Z', 1, 'v-old', 'b0', 'ok', 500, 10, 100, 200, 'lab1:/gone/2.json'),
     ('pgnightly', 'memcached', 'mix=\"1:10\"', 'plain', 'off', 'emu', 'host', '2026-10-02T01:00:00Z', 1, 'v-old', 'b0', 'ok', 990, 10, 100, 200, 'lab1:/gone/3.json'),
     ('pgnightly', 'memcached', 'mix=\"1:10\"', 'plain', 'off', 'emu', 'host', '2026-10-01T01:02:00Z', 1, 'v-old', 'b0', 'ok', 1000, 10, 90, 200, 'lab1:/gone/4.json');
    CREATE TABLE schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);
    INSERT INTO schema_version VALUES ('mtebench', 1);" v1
nightly v1 "$(url v1)" --ingest "$T_TMP/nights/night3"
is "$?" 0 "schema 1 history: opened, migrated and a night added" || dump "$T_TMP/v1.err"
is "$(sqlm "SELECT version FROM schema_version WHERE program = 'mtebench'" v1)" 6 "schema_version now 6"
is "$(sqlm "SELECT count(*) FROM capacity" v1)" 0 "schema 5's capacity table made on the way, empty"
is "$(sqlm "SELECT count(*) FROM work" v1)" 0 "schema 6's work table made on the way, empty"
is "$(sqlm 'SELECT count(*) FROM nights' v1) $(sqlm 'SELECT count(*) FROM runs WHERE night IS NULL' v1)" "3 0" \
    "one night per plan and day (2) plus the new one; every old run has a night"
is "$(sqlm "SELECT count(*) FROM runs WHERE id = 1 AND machine <> '' AND kernel_release = '6.1.0'" v1)" 1 \
    "a run whose record file still exists gets its series from the record"
is "$(sqlm 'SELECT count(*) FROM overheads WHERE slowdown = 2.0' v1)" 1 "overheads derived for migrated nights (runs 4 and 2: 1000/500)"

# ---- migration from schema 3: 286d1ca's history of two server hosts (tests/fixtures/records-286d1ca-hosts),
# its SQLite dump (the tables) in PostgreSQL's types, records keyed host:path: h1's as this machine wrote
# them, h2's as another machine did (the same paths there are that machine's records, not read here) ------
FX3="$ROOT/tests/fixtures/records-286d1ca-hosts"; R3="$T_TMP/rec3"; cp -r "$FX3" "$R3"
{ grep -vE '^PRAGMA|^COMMIT;|(TABLE|INTO|VIEW) mtebench_' "$FX3/history-schema3.sql" |
    sed "s/id INTEGER PRIMARY KEY/id BIGSERIAL PRIMARY KEY/; s/ INTEGER/ BIGINT/g; s/ REAL/ DOUBLE PRECISION/g;
         s#'@RECORDS@/h1\([^']*record.json\)'#'$(hostname):$R3/h1\1'#g;
         s#'@RECORDS@/h2\([^']*record.json\)'#'lab9:$R3/h2\1'#g; s#@RECORDS@#$R3#g; s#@DASH@#$T_TMP/dash0#g"
  for t in nights runs overheads; do echo "SELECT setval('${t}_id_seq', (SELECT max(id) FROM $t));"; done
  echo "CREATE TABLE schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);"
  echo "INSERT INTO schema_version VALUES ('mtebench', 3); COMMIT;"; } > "$T_TMP/v3.sql"
PGPASSWORD="$PW" sqlp -d v3 -f "$T_TMP/v3.sql" > /dev/null
is "$(sqlm "SELECT count(DISTINCT series) || ' ' || count(*) FROM runs" v3)" "2 4" "schema 3 in PostgreSQL: 4 runs of h1 and h2 in 2 shared series"
nightly v3 "$(url v3)" --ingest "$R3/h1"
is "$?" 0 "schema 3 history: opened and migrated (nothing added)" || dump "$T_TMP/v3.err"
is "$(sqlm "SELECT version FROM schema_version WHERE program = 'mtebench'" v3)" 6 "schema_version now 6"
is "$(sqlm "SELECT string_agg(id || ':' || host, ' ' ORDER BY id) FROM runs" v3)" "1:h1 2:h1 3:unknown 4:unknown" \
    "each run's host from its record where this machine wrote it (host:path), unknown for lab9's"
is "$(sqlm "SELECT string_agg(c, ' ' ORDER BY c) FROM (SELECT count(DISTINCT series) || ':' || string_agg(DISTINCT host, ',' ORDER BY host) AS c FROM runs GROUP BY config_hash) x" v3)" \
    "2:h1,unknown 2:h1,unknown" "two series per configuration where one shared series was"
is "$(sqlm "SELECT string_agg(host, ' ' ORDER BY host) FROM overheads" v3)" "h1 unknown" "overheads derived again, one per host"
is "$(jq -r '[.series[] | .host] | unique | join(" ")' "$T_TMP/v3/analysis.json")" "h1 unknown" "the analysis names the hosts"

# a migration that fails is rolled back: still schema 1, no half-made tables
sqlm "CREATE TABLE runs(id BIGSERIAL PRIMARY KEY, plan TEXT, started TEXT, night TEXT);
      CREATE TABLE schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);
      INSERT INTO schema_version VALUES ('mtebench', 1);" mtb2
nightly v1bad "$(url mtb2)" --ingest "$T_TMP/nights/night1"
is "$?" 4 "a migration that fails: exit 4"
is "$(sqlm "SELECT version FROM schema_version" mtb2) $(sqlm "SELECT count(*) FROM information_schema.tables WHERE table_name = 'nights'" mtb2)" \
    "1 0" "... rolled back: still schema 1, no nights table"

# ---- refusals: exit 4, a clear message, nothing created -----------------------------------
refused() { # refused NAME URL PATTERN
    nightly "$1" "$2" --ingest "$T_TMP/nights/night1"
    local rc=$?
    is "$rc" 4 "$1: exit 4" || dump "$T_TMP/$1.err"
    ok "$(grep -Eq "$3" "$T_TMP/$1.err"; echo $?)" "$1: says so: $(head -c 300 "$T_TMP/$1.err")"
    ok "$(! grep -q 'nightly: new history' "$T_TMP/$1.err"; echo $?)" "$1: no new history started"
}
sqlm "CREATE TABLE schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);
      INSERT INTO schema_version VALUES ('mtebench', 99);" newer
refused newer "$(url newer)" 'schema version 99, newer than'
sqlm "CREATE TABLE runs(id SERIAL PRIMARY KEY, title TEXT, distance_km REAL);
      CREATE TABLE nights(id SERIAL PRIMARY KEY, slept_hours REAL);" alien
refused alien "$(url alien)" 'tables named like an mtebench history.*refusing'
is "$(sqlm "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'" alien)" 2 "... foreign tables left alone"
sqlm "CREATE TABLE schema_version(version INTEGER); INSERT INTO schema_version VALUES (7);" alienver
refused alienver "$(url alienver)" 'schema_version table belongs to another program'
# our name and version, but a table shaped otherwise
sqlm "CREATE TABLE schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);
      INSERT INTO schema_version VALUES ('mtebench', 2);
      CREATE TABLE nights(id SERIAL PRIMARY KEY, plan TEXT, started TEXT, results_dir TEXT, host TEXT,
        mtebench_version TEXT, report TEXT);
      CREATE TABLE runs(id SERIAL PRIMARY KEY, name TEXT);
      CREATE TABLE overheads(id SERIAL PRIMARY KEY, weight REAL);" shape
refused shape "$(url shape)" 'table runs is not shaped like an mtebench history'
refused badpw "postgresql://mtebench:wrong-$PWU@/mtb?host=$PGD" 'cannot connect to PostgreSQL: authentication failed'
refused nodb "$(url nosuchdb)" 'cannot connect to PostgreSQL: .*database "nosuchdb" does not exist'
refused badurl "postgresql://mtebench:$PWU@/mtb?host=$PGD&nosuchoption=1" 'cannot connect to PostgreSQL: .*invalid URI query parameter'
# libpq quotes a badly encoded password in its message: scrubbed
refused badpct "postgresql://mtebench:Zq%zzLeak9@/mtb?host=$PGD" 'cannot connect to PostgreSQL: invalid percent-encoded token: "\*\*\*"'
# ---- bisections (history_bisect.c) in PostgreSQL: the unit test against this server ----------
MTB_TEST_HISTORY="$(url bis)" "$B/tests/test_history_bisect" > "$T_TMP/bisect-pg.tap" 2>&1
ok "$?" "bisections and their steps written and refused as in SQLite ($(grep -c '^ok' "$T_TMP/bisect-pg.tap") checks)" ||
    dump "$T_TMP/bisect-pg.tap"
is "$(sqlm "SELECT count(*) || ' ' || min(outcome) FROM bisect_steps s JOIN bisections b ON b.id = s.bisection" bis)" \
    "2 found" "... and there: two steps of a found bisection"

pgstop
refused stopped "$P" 'cannot connect to PostgreSQL: .*(No such file or directory|Connection refused)'

# ---- the password appears nowhere -------------------------------------------------------------
for s in "$PW" "$PWU" "Sx9" "zQ7" "zzLeak9"; do
    leaks=$(grep -rlF -- "$s" "$T_TMP" --exclude-dir=pg --exclude-dir=nights 2>/dev/null)
    is "$leaks" "" "password (or a piece: '${s:0:3}...') in no output, digest, dashboard or report"
done
ok "$(grep -q 'postgresql://mtebench:\*\*\*@' "$T_TMP/pg3/index.html" && grep -q 'postgresql://mtebench:\*\*\*@' "$T_TMP/pg3/analysis.json"; echo $?)" \
    "dashboard and analysis name the history with the password redacted"
done_testing
