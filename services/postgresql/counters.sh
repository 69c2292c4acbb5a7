#!/bin/bash
# PostgreSQL's own counters for cross-checks: committed and rolled-back
# transactions over all databases (pg_stat_database). $1: the port; $2
# (optional): the server log. The objtag variant's processes write their tag
# operations there at exit ("mtebench objtag: pid P ops N granules M", after
# "mtebench objtag: on" from the postmaster): summed as objtag_ops and
# objtag_granules, the counts of the backends that have ended so far.
psql -X -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -F ' ' \
    -c "SELECT 'xact_commit', sum(xact_commit) FROM pg_stat_database UNION ALL SELECT 'xact_rollback', sum(xact_rollback) FROM pg_stat_database" \
    || exit
if [ -n "${2:-}" ] && grep -q '^mtebench objtag: on$' "$2" 2>/dev/null; then
    awk '$1 == "mtebench" && $2 == "objtag:" && $3 == "pid" && $5 == "ops" && $7 == "granules" { o += $6; g += $8 }
         END { printf "objtag_ops %.0f\nobjtag_granules %.0f\n", o, g }' "$2"
fi
