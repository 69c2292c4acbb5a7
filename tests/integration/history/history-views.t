#!/bin/bash
# The history's SQL views for dashboards (docs/FORMATS.md): a throwaway
# PostgreSQL 15 server (as 51-history-postgresql.t starts one) filled by
# `mtebench nightly --ingest` with five synthetic nights, the last one 30%
# slower; then every panel and annotation query of the Grafana dashboard
# (contrib/grafana/, extracted with jq, Grafana's $__timeFilter macro made
# TRUE) and both of Otava's queries (contrib/otava/) run against it and return
# rows; the same queries against the same nights in an SQLite history. ~15 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
PGBIN=/usr/lib/postgresql/15/bin
DASH="$ROOT/contrib/grafana/mtebench-nightly.json"
[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] || skip_all "no PostgreSQL 15 server ($PGBIN; make deps)"
command -v psql >/dev/null && command -v sqlite3 >/dev/null || skip_all "no psql or sqlite3 (make deps)"
id mtebench >/dev/null 2>&1 || skip_all "no mtebench user (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root to run PostgreSQL as the mtebench user"
"$M" nightly --history postgresql:///x --out "$T_TMP/probe" 2>&1 | grep -q 'built without libpq' &&
    skip_all "mtebench built without libpq (libpq-dev; make deps)"

PGD="$T_TMP/pg"; mkdir -p "$PGD" && chown mtebench "$PGD" && chmod 700 "$PGD"
pg() { runuser -u mtebench -- "$@"; }
pg "$PGBIN/initdb" -D "$PGD/data" -U mtebench --auth=trust -E UTF8 --locale=C.UTF-8 >"$T_TMP/initdb.log" 2>&1
ok $? "initdb" || dump "$T_TMP/initdb.log"
pgstop() { pg "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate -w stop >/dev/null 2>&1; }
trap 'pgstop; cleanup' EXIT
pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 30 \
    -o "-c listen_addresses='' -c unix_socket_directories='$PGD' -c fsync=off -c full_page_writes=off" start \
    >"$T_TMP/pgctl.log" 2>&1
ok $? "PostgreSQL started on a unix socket only" || { dump "$PGD/log"; done_testing; }
sqlp() { psql -h "$PGD" -U mtebench -d "${DB:-hist}" -X -q -t -A -v ON_ERROR_STOP=1 "$@"; }
DB=postgres sqlp -c "CREATE DATABASE hist"
URL="postgresql://mtebench@/hist?host=$PGD"

# night DIR N SCALE: 6 reps of plain/off and tagged/async (tagged throughput x SCALE), records as the nightly writes them
night_dir() {
    local dir=$1 n=$2 scale=$3 rep v m ops
    for rep in 1 2 3 4 5 6; do
        for v in plain tagged; do
            [ $v = plain ] && m=off || m=async
            ops=$(awk -v n="$n" -v r="$rep" -v v="$v" -v s="$scale" 'BEGIN{srand(n*100+r*10+(v=="plain")); b=(v=="plain")?10000:8000; printf "%.1f", b*((v=="plain")?1:s)*(0.99+0.02*rand())}')
            mkdir -p "$dir/$rep-$v"
            jq -n --arg v $v --arg m $m --argjson rep $rep --argjson ops "$ops" --arg st "2026-11-0${n}T02:0${rep}:00Z" '{
                schema: "mtebench-run/1", status: "ok", started: $st, finished: $st, mtebench_version: "v-test",
                config: {service: "memcached", variant: $v, mode: $m, platform: "emu", kernel: "host", plan: "views",
                         rep: $rep, index: $rep, workload: {name: "default", mix: "1:10", conns: 4, duration_s: 1}},
                build: {key: "b0123"}, kernel: {uname_r: "6.1.0", uname_v: "#1 SMP"},
                machine: {name: "auto", service_cpus: "0"},
                summary: {ops_per_sec: $ops, p50_us: 10.0, p99_us: (1000000 / $ops), p999_us: (2000000 / $ops)}}' \
                >"$dir/$rep-$v/record.json"
        done
    done
}
for n in 1 2 3 4 5 6; do night_dir "$T_TMP/nights/n$n" $n 1.0; done
night_dir "$T_TMP/nights/n7" 7 0.7
for H in "$URL" "$T_TMP/h.sqlite"; do
    "$M" nightly --history "$H" --out "$T_TMP/dash" --ingest "$T_TMP"/nights/n[1-6] >"$T_TMP/n6.out" 2>&1
    "$M" nightly --history "$H" --out "$T_TMP/dash" --ingest "$T_TMP/nights/n7" >"$T_TMP/n7.out" 2>&1
    st=$?
    is "$st" 3 "nightly ingests 7 nights into $(case $H in postgresql*) echo PostgreSQL;; *) echo SQLite;; esac), the last a regression" ||
        dump "$T_TMP/n7.out"
done

# ---- the views ------------------------------------------------------------------
is "$(sqlp -c "SELECT data_type FROM information_schema.columns WHERE table_name = 'mtebench_runs_v' AND column_name = 'time'")" \
   "timestamp with time zone" "PostgreSQL: mtebench_runs_v.time is a timestamptz"
is "$(sqlp -c "SELECT count(*) FROM mtebench_runs_v")" 84 "one row per run (7 nights x 12)"
is "$(sqlp -c "SELECT count(*) FROM mtebench_overheads_v")" 7 "one row per overhead series and night"
is "$(sqlp -c "SELECT sum(pairs) FROM mtebench_overheads_v")" 42 "... summing the 42 pairs"
ok "$([ "$(sqlp -c "SELECT count(*) FROM mtebench_change_points_v WHERE is_open = 1 AND kind = 'regression'")" -ge 1 ]; echo $?)" \
   "the open regression is a change point"
is "$(sqlp -c "SELECT count(*) FROM mtebench_digest_v")" 2 "one digest per nightly analysis"
sqlp -c "SELECT digest FROM mtebench_digest_v ORDER BY time DESC, id DESC LIMIT 1" | grep -q REGRESSION
ok $? "the latest digest says REGRESSION"

# ---- every query of the Grafana dashboard, and Otava's ---------------------------------
jq -r '[.panels[].targets[].rawSql, .annotations.list[].target.rawSql][]' "$DASH" >"$T_TMP/queries"
is "$(wc -l <"$T_TMP/queries")" 7 "the dashboard has 7 queries (6 panels, 1 annotation)"
ser=$(sqlp -c "SELECT config FROM mtebench_overheads_v LIMIT 1")
rser=$(sqlp -c "SELECT config FROM mtebench_runs_v LIMIT 1")
sed -n '/query: |/,/;$/p' "$ROOT/contrib/otava/otava.yaml" | sed '/query: |/d' | tr -d '\n' | sed 's/;/;\n/g' |
    sed 's/^ *//' >"$T_TMP/otava"
{ sed -n 1p "$T_TMP/otava" | sed "s|\${SERIES}|$ser|"; sed -n 2p "$T_TMP/otava" | sed "s|\${SERIES}|$rser|"; } >>"$T_TMP/queries"
i=0
while IFS= read -r qq; do
    i=$((i + 1))
    q=$(printf '%s' "$qq" | sed -E 's/\$__timeFilter\(([a-z_]+)\)/TRUE/g; s/;$//')
    n=$(sqlp -c "SELECT count(*) FROM ($q) AS panel" 2>"$T_TMP/q$i.err")
    ok "$([ -n "$n" ] && [ "$n" -ge 1 ]; echo $?)" "PostgreSQL: query $i returns rows ($n): ${q:0:70}..." || dump "$T_TMP/q$i.err"
    n=$(sqlite3 "$T_TMP/h.sqlite" "SELECT count(*) FROM ($(printf '%s' "$q" | sed 's/TRUE/1/g')) AS panel" 2>"$T_TMP/s$i.err")
    ok "$([ -n "$n" ] && [ "$n" -ge 1 ]; echo $?)" "SQLite: query $i returns rows ($n)" || dump "$T_TMP/s$i.err"
done <"$T_TMP/queries"
done_testing
