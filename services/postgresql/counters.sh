#!/bin/bash
# PostgreSQL's own counters for cross-checks: committed and rolled-back
# transactions over all databases (pg_stat_database: xact_commit,
# xact_rollback), and over the bench databases (bench_xact_commit,
# bench_xact_rollback: every database but template0 and template1). The
# reading connects to template1, so it adds nothing to the bench databases'
# counts (each connection commits one transaction as it starts, and each
# query one more). $1: the port; $2 (optional): the server log.
# A backend adds its statistics to pg_stat_database as it exits, before it
# leaves pg_stat_activity; the driver's backends may still be exiting when
# the driver has returned (seconds, on a loaded machine under emulation), so
# wait (at most ~8 s, under the harness's 10 s limit) until no other client
# backend is left.
# The objtag variant's processes write their tag operations to the server log
# as they exit, just after that ("mtebench objtag: pid P ops N granules M",
# after "mtebench objtag: on" from the postmaster): summed as objtag_ops and
# objtag_granules, the counts of the processes that have ended so far.
q() { psql -X -At -h 127.0.0.1 -p "$1" -U postgres -d template1 -F ' ' -c "$2"; }
for _ in {1..40}; do
    n=$(q "$1" "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()") || break
    [ "$n" = 0 ] && break
    sleep 0.2
done
q "$1" "SELECT 'xact_commit', sum(xact_commit) FROM pg_stat_database UNION ALL SELECT 'xact_rollback', sum(xact_rollback) FROM pg_stat_database
       UNION ALL SELECT 'bench_xact_commit', coalesce(sum(xact_commit), 0) FROM pg_stat_database WHERE datname NOT IN ('template0', 'template1')
       UNION ALL SELECT 'bench_xact_rollback', coalesce(sum(xact_rollback), 0) FROM pg_stat_database WHERE datname NOT IN ('template0', 'template1')" \
    || exit
if [ -n "${2:-}" ] && grep -q '^mtebench objtag: on$' "$2" 2>/dev/null; then
    sleep 0.3   # the last backends' exit handlers, after pg_stat_activity
    awk '$1 == "mtebench" && $2 == "objtag:" && $3 == "pid" && $5 == "ops" && $7 == "granules" { o += $6; g += $8 }
         END { printf "objtag_ops %.0f\nobjtag_granules %.0f\n", o, g }' "$2"
fi
