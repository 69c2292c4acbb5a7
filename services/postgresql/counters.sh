#!/bin/bash
# PostgreSQL's own counters for cross-checks: committed and rolled-back
# transactions over all databases (pg_stat_database).
psql -X -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -F ' ' \
    -c "SELECT 'xact_commit', sum(xact_commit) FROM pg_stat_database UNION ALL SELECT 'xact_rollback', sum(xact_rollback) FROM pg_stat_database"
