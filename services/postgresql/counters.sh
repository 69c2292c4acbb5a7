#!/bin/bash
# PostgreSQL's own counters for cross-checks: committed and rolled-back
# transactions over all databases (pg_stat_database).
# A backend adds its statistics to pg_stat_database as it exits, before it
# leaves pg_stat_activity; the driver's backends may still be exiting when
# the driver has returned (seconds, on a loaded machine under emulation), so
# wait (at most ~8 s, under the harness's 10 s limit) until no other client
# backend is left.
q() { psql -X -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -F ' ' -c "$2"; }
for _ in {1..40}; do
    n=$(q "$1" "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()") || break
    [ "$n" = 0 ] && break
    sleep 0.2
done
q "$1" "SELECT 'xact_commit', sum(xact_commit) FROM pg_stat_database UNION ALL SELECT 'xact_rollback', sum(xact_rollback) FROM pg_stat_database"
