#!/bin/bash
# Let client hosts in: run on the server host (as the controller's ssh user,
# in this directory) once PostgreSQL serves on 0.0.0.0, before the client
# hosts load it. Appends "host all all ADDR/32 trust" (/128 for IPv6) for
# each client host's address to the server's pg_hba.conf and reloads it.
# $1: the port; $2...: the client hosts' addresses as they reach the server.
# Trust, as for 127.0.0.1 (initdb -A trust): a benchmark server's throwaway
# cluster, reachable from the named addresses only.
set -euo pipefail
port=$1; shift
q() { psql -X -At -h 127.0.0.1 -p "$port" -U postgres -d template1 -c "$1"; }
f=$(q 'SHOW hba_file')
for a in "$@"; do
    case $a in *:*) m=128 ;; *) m=32 ;; esac
    echo "host all all $a/$m trust" >> "$f"
done
# the rules as PostgreSQL reads them: none in error, every address there
bad=$(q "SELECT count(*) FROM pg_hba_file_rules WHERE error IS NOT NULL")
[ "$bad" = 0 ] || { echo "pg_hba.conf ($f): $bad rules in error" >&2; exit 1; }
[ "$(q 'SELECT pg_reload_conf()')" = t ] || { echo "pg_reload_conf() failed" >&2; exit 1; }
# the postmaster reloads on SIGHUP; new connections follow the new rules
sleep 0.5
echo "admitted: $*"
