#!/bin/bash
# PostgreSQL on a remote server host, loaded by pgbench from two client hosts
# (tests/hosts.sh: h1 the server, h2 and h3 the clients), as
# server-host-nginx.t does nginx:
# - `mtebench run` of the tagged build in sync mode on emu (the build the
#   other PostgreSQL tests use; `make bench` would also need the plain build):
#   the record made on h1, PostgreSQL listening on h1's address with
#   pg_hba.conf letting in h2's and h3's addresses; each client host's
#   per-transaction log brought back, folded and merged (the merged
#   histograms the sums of the hosts'); the transactions the logs hold plus
#   pgbench's own setup transactions (per host: its setup connection, two
#   table checks, one connection per client) equal PostgreSQL's own
#   xact_commit change in the bench database, exactly;
# - a client host whose pgbench is killed mid-run: a named failure, no
#   partial result; nothing of ours left running on any host.
# 2 s runs. About 60 s warm.
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
hosts_need qemu
command -v pgbench > /dev/null || skip_all "no pgbench (postgresql-client; make deps)"

hosts_prebuild postgresql tagged; ok $? "postgresql's emu builds (tagged) made here, outside the namespaces" || done_testing
hosts_up 3; ok $? "three hosts up" || done_testing
hosts_lab_conf "$T_TMP/lab.conf" "test lab: PostgreSQL on h1, pgbench from h2 and h3"
# h1's cache starts empty (a tmpfs of its own): seed its PostgreSQL setups
# (initdb'd data directories, keyed by the build's key, the script, the user,
# the mode and the workload) from this machine's cache, as contrib/ansible's
# mtebench_cache_seed seeds a server's; without one h1 runs initdb itself
# (about a minute more under emu)
C=${MTEBENCH_CACHE:-/var/cache/mtebench}
seeds=$(cd "$C/setup" 2> /dev/null && ls -d postgresql-* 2> /dev/null | grep -v '\.tmp\.')
[ -z "$seeds" ] || tar -C "$C/setup" -cf - $seeds | hosts_exec h1 sh -c 'mkdir -p /var/cache/mtebench/setup && tar -C /var/cache/mtebench/setup -xf -'
# PostgreSQL runs as the unprivileged user mtebench: the far agent's
# directory (runs under it) must be reachable by that user, so not root's home
K=(--ssh-config "$HOSTS_DIR/ssh_config" --remote-dir "$T_TMP/agent")
run() { # results-dir extra-options...
    local r=$1; shift
    hosts_ctl "$M" run --service postgresql --variant tagged --mode sync --platform emu --machine "$T_TMP/lab.conf" \
        --conns 4 --quiet "${K[@]}" --results "$r" "$@"
}

# ---- select-only from h2 and h3, counted against xact_commit --------------------------
t0=$(date +%s.%N)
run "$T_TMP/r" --duration 2 --warmup 1 > "$T_TMP/r.out" 2>&1
ok $? "postgresql tagged/sync on server host h1, pgbench from h2 and h3" || dump "$T_TMP/r.out"
diag "the run took $(echo "$(date +%s.%N) - $t0" | bc) s"
r="$T_TMP/r/001-tagged-sync/record.json"; d=$(dirname "$r")
is "$(jq -r '.status' "$r")" ok "ok" || jq -r .error "$r" | sed 's/^/#   /'
is "$(jq -r '.hosts.server.hostname' "$r")" h1 "made on the server host h1"
diag "h1's initdb'd data directory $(jq -r 'if .setup.reused then "reused (seeded)" else "made there (no seed matched)" end' "$r")"
jq_e '.proof.ok == true and .load.config.driver == "pgbench" and .load.config.script == "select-only"' "$r" > /dev/null
ok $? "h1's proof; pgbench's select-only from the client hosts"
is "$(jq -r '.hosts.client_addresses' "$r")" "$(hosts_addr h2) $(hosts_addr h3)" "h2's and h3's addresses let in"
jq -r '.service_command' "$r" | grep -q 'listen_addresses=0.0.0.0'
ok $? "PostgreSQL listened beyond 127.0.0.1 (listen_addresses=0.0.0.0)"
for h in h2 h3; do
    ls "$d"/clients/$h/pgbench_tx.* > /dev/null 2>&1; ok $? "$h's per-transaction log came back"
done
for hk in histogram histogram_uncorrected; do
    merged=$(jq -c "[.load.$hk[] | [.[0], .[1]]] | sort" "$r")
    summed=$(jq -cs "[.[].$hk[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]) | sort" "$d"/clients/h2/load.json "$d"/clients/h3/load.json)
    [ -n "$merged" ] && [ "$merged" != "[]" ] && [ "$merged" = "$summed" ]
    ok $? "merged $hk == sum of h2's and h3's, bucket for bucket"
done
# every transaction the two logs hold, counted here from the logs themselves
[ "$(jq -r '.load.hlog' "$r")" = clients/driver.hlog ] && head -c 4000 "$d/clients/driver.hlog" | grep -q '^Tag=request,'
ok $? "the merged histogram as an interval log beside the record (clients/driver.hlog)"
logged=$(cat "$d"/clients/h2/pgbench_tx.* "$d"/clients/h3/pgbench_tx.* | grep -vc -e failed -e skipped)
is "$(jq '.load.totals.requests' "$r")" "$logged" "the merged transactions are the logs' ($logged)"
# PostgreSQL's own count: per client host, pgbench -n commits its setup
# connection's start, two table checks (built-in script) and each of its 2
# client connections' start (5), beside the logged transactions
delta=$(jq '.client_check | .after.bench_xact_commit - .before.bench_xact_commit' "$r")
is "$delta" "$((logged + 2 * (3 + 2)))" "xact_commit change in the bench database == logged + 2 x 5 setup transactions"
jq_e '.client_check | .counted == "bench_xact_commit" and .clients_setup == 10
      and .service_requests == .merged_requests and .merged_requests > 0' "$r" > /dev/null
ok $? "the record's check: $(jq -c '.client_check | [.merged_requests, .service_requests, .clients_setup]' "$r")"
is "$(jq -r '[.clients[].identity.hostname] | join(",")' "$r")" "h2,h3" "each client host named"
jq_e '.clients | all(.cpu.user_s >= 0 and has("client_bound") and has("late_s"))' "$r" > /dev/null
ok $? "CPU use, client-bound flag and lateness per client"
hosts_gone; ok $? "nothing of ours left on h1, h2, h3" || hosts_left | sed 's/^/#   /'

# ---- a client host's pgbench killed mid-run: a named failure -------------------------------
# the key-value scripts: no pgbench -i on h1 first (~8 s under emu)
run "$T_TMP/rk" --workload kv --duration 4 --warmup 0 > "$T_TMP/k.out" 2>&1 &
bp=$!
for i in $(seq 900); do hosts_exec h3 pgrep -x pgbench > /dev/null && break; sleep 0.1; done
sleep 0.5
hosts_exec h3 pkill -KILL -x pgbench
wait $bp
is "$?" 1 "client killed: the run fails"
k="$T_TMP/rk/001-tagged-sync/record.json"
is "$(jq -r .status "$k")" error "... recorded as an error"
jq -r .error "$k" | grep -q '^client host h3: pgbench failed there (signal 9'
ok $? "... naming h3 and why" || jq -r .error "$k" | sed 's/^/#   /'
jq_e '.load == null and .summary == null' "$k" > /dev/null; ok $? "... and no partial result in its record"
jq_e '[.clients[] | select(.status == "failed") | .host] == ["h3"]' "$k" > /dev/null
ok $? "... and h3 the one client marked failed in the record's clients" || jq -c '.clients' "$k" | sed 's/^/#   /'

hosts_gone; ok $? "nothing of ours left on any host" || hosts_left | sed 's/^/#   /'
done_testing
