#!/bin/bash
# Load from several client hosts over real SSH and TCP (tests/hosts.sh):
# Debian's memcached on h1, `mtebench load` from h2 and h3 at once.
# - the merged histogram is the sum of the clients' histograms bucket by
#   bucket, and memcached's own cmd_get + cmd_set change is at least the
#   merged answered requests and at most the merged sent ones;
# - shares: connections and the open-loop rate split over the hosts; each
#   host's identity, clock offset, start lateness, CPU use, client-bound flag;
# - a client host whose mtload is killed mid-run fails the load with its
#   name and reason; no merged result is written; nothing is left running;
# - the uncorrected latency is merged the same way (count = corrected count);
# - SERVICE=rocksdb (in process) with client hosts is refused up front,
#   saying so; SERVICE=postgresql is taken (pgbench runs on the client hosts:
#   server-host-postgresql.t);
# - so do client hosts that start later than --late-limit after the instant;
# - truth across hosts: memcached paused (SIGSTOP) 200 ms every second, open
#   loop from both hosts: the merged corrected p99 is at least 100 ms.
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"
[ -x /usr/sbin/sshd ] || skip_all "no sshd (openssh-server; make deps)"
command -v memcached >/dev/null || skip_all "no memcached (make deps)"

hosts_up 3; ok $? "three hosts up" || done_testing
# RocksDB runs in process: client hosts are refused before anything runs, saying so
"$M" bench --service rocksdb --mode sync --server-host h1 --client-hosts h2,h3 --dry-run > "$T_TMP/rdb.out" 2>&1
is "$?" 2 "SERVICE=rocksdb with client hosts is refused"
grep -q 'rocksdb runs in process.*client hosts (h2,h3) cannot load it' "$T_TMP/rdb.out"; ok $? "... saying it runs in process" || dump "$T_TMP/rdb.out"
# PostgreSQL from client hosts: pgbench runs there (server-host-postgresql.t): taken
"$M" bench --service postgresql --mode sync --server-host h1 --client-hosts h2,h3 --dry-run > "$T_TMP/pg.out" 2>&1
is "$?" 0 "SERVICE=postgresql with client hosts is taken (--dry-run)" || dump "$T_TMP/pg.out"
K=(--ssh-config "$HOSTS_DIR/ssh_config")
# setsid -f: memcached's parent is not nsenter (which stops itself when its
# child is stopped, as memcached is below, and would then never reap it)
hosts_exec h1 setsid -f memcached -u nobody -l 10.77.0.11 -p 11211 -t 1 -U 0 < /dev/null > /dev/null 2>&1
for i in $(seq 50); do hosts_ctl bash -c 'exec 3<>/dev/tcp/10.77.0.11/11211' 2>/dev/null && break; sleep 0.1; done
mcops() {   # memcached's cmd_get + cmd_set, asked over TCP from the controller
    hosts_ctl bash -c 'exec 3<>/dev/tcp/10.77.0.11/11211; printf "stats\r\nquit\r\n" >&3; tr -d "\r" <&3' |
        awk '$2 == "cmd_get" || $2 == "cmd_set" { s += $3 } END { print s + 0 }'
}
# connections of ours stay open only over ssh: warm the masters' agents first
hosts_ctl "$M" hosts "${K[@]}" h2 h3 > /dev/null 2>&1

# ---- closed loop ----------------------------------------------------------------
a=$(mcops)
t0=$(date +%s.%N)
hosts_ctl "$M" load "${K[@]}" --client-hosts h2,h3 --server 10.77.0.11:11211 --conns 5 --duration 2 \
    --keys 1000 --mix 1:4 --out "$T_TMP/c" > "$T_TMP/c.out" 2>&1
ok $? "load from h2 and h3" || dump "$T_TMP/c.out"
diag "load of 2 s took $(echo "$(date +%s.%N) - $t0" | bc) s"
b=$(mcops)
L="$T_TMP/c/load.json"
merged=$(jq -c '[.histogram[] | [.[0], .[1]]] | sort' "$L")
summed=$(jq -cs '[.[].histogram[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]) | sort' "$T_TMP/c/h2/load.json" "$T_TMP/c/h3/load.json")
[ -n "$merged" ] && [ "$merged" != "[]" ] && [ "$merged" = "$summed" ]
ok $? "merged histogram == sum of the clients' histograms, bucket for bucket ($(jq '.histogram | length' "$L") buckets)"
req=$(jq '.totals.requests' "$L")
is "$req" "$(( $(jq '.totals.requests' "$T_TMP/c/h2/load.json") + $(jq '.totals.requests' "$T_TMP/c/h3/load.json") ))" "merged requests == sum of the clients'"
sent=$(jq '.totals.accounting.sent' "$L")
is "$sent" "$(( $(jq '.totals.accounting.sent' "$T_TMP/c/h2/load.json") + $(jq '.totals.accounting.sent' "$T_TMP/c/h3/load.json") ))" "merged sent requests == sum of the clients'"
# memcached counts every answered request, and at most every one sent (in
# flight at the end, or timed out, a request may have reached it)
ok "$( [ "$((b - a))" -ge "$req" ] && [ "$((b - a))" -le "$sent" ] && { [ "$sent" -gt "$req" ] || [ "$((b - a))" = "$req" ]; }; echo $?)" \
   "memcached's cmd_get + cmd_set change ($((b - a))) within the merged answered ($req) and sent ($sent) requests"
is "$(jq '.latency_us.corrected.count' "$L")" "$req" "the merged latency counts every request"
# the uncorrected latency merged the same way: its histogram the clients' sum,
# its count the corrected one's, its p50 not above the corrected p50
merged=$(jq -c '[.histogram_uncorrected[] | [.[0], .[1]]] | sort' "$L")
summed=$(jq -cs '[.[].histogram_uncorrected[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]) | sort' "$T_TMP/c/h2/load.json" "$T_TMP/c/h3/load.json")
[ -n "$merged" ] && [ "$merged" != "[]" ] && [ "$merged" = "$summed" ]
ok $? "merged uncorrected histogram == sum of the clients' uncorrected histograms"
jq_e '.latency_us.uncorrected | type == "object" and .count == $c and .p50 <= $p50 and .p50 > 0' \
    --argjson c "$(jq '.latency_us.corrected.count' "$L")" --argjson p50 "$(jq '.latency_us.corrected.p50' "$L")" "$L" > /dev/null
ok $? "merged uncorrected latency present: count == corrected count, p50 <= corrected p50 ($(jq -c '[.latency_us.uncorrected.count, .latency_us.uncorrected.p50, .latency_us.corrected.p50]' "$L"))"
# the hosts' HdrHistogram interval logs merged the same way (docs/FORMATS.md)
[ -s "$T_TMP/c/h2/load.hlog" ] && [ -s "$T_TMP/c/h3/load.hlog" ] && [ -s "$T_TMP/c/load.hlog" ]
ok $? "each host's load.hlog came back and load.hlog merges them" || dump "$T_TMP/c.out"
"$M" report --out "$T_TMP/hrep" --name merged "$T_TMP/c/load.hlog" > "$T_TMP/hrep.out" 2>&1
is "$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="requests") c=i} NR==2{print $c}' "$T_TMP/hrep/merged/runs.csv")" "$req" \
   "the merged interval log counts every request too" || dump "$T_TMP/hrep.out"
is "$(jq -r '[.clients[].conns] | join(",")' "$L")" "3,2" "connections shared 3 + 2"
is "$(jq -r '[.clients[].identity.hostname] | join(",")' "$L")" "h2,h3" "each client host named by its own hostname"
jq_e '.clients | all(has("clock_offset_s") and (.late_s < 0.25) and .cpu.user_s >= 0 and (.client_bound | type == "boolean"))' "$L" > /dev/null
ok $? "each host's clock offset, start lateness, CPU use and client-bound flag recorded"

# ---- open loop: the rate shared ------------------------------------------------------
hosts_ctl "$M" load "${K[@]}" --client-hosts h2,h3 --server 10.77.0.11:11211 --conns 4 --rate 1000 --duration 2 \
    --out "$T_TMP/o" > "$T_TMP/o.out" 2>&1
ok $? "open loop at 1000 requests/s from two hosts" || dump "$T_TMP/o.out"
is "$(jq -r '[.clients[].rate] | join(",")' "$T_TMP/o/load.json")" "500,500" "the rate shared 500 + 500"
is "$(jq -r '.config.rate' "$T_TMP/o/h3/load.json")" "500" "h3's mtload ran at its share"

# ---- a client host killed mid-run ----------------------------------------------------------
hosts_ctl "$M" load "${K[@]}" --client-hosts h2,h3 --server 10.77.0.11:11211 --conns 4 --duration 3 \
    --out "$T_TMP/k" > "$T_TMP/k.out" 2>&1 &
lp=$!
for i in $(seq 100); do hosts_exec h3 pgrep -x mtload > /dev/null && break; sleep 0.1; done
sleep 0.5
hosts_exec h3 pkill -KILL -x mtload
wait $lp
is "$?" 1 "a client killed mid-run fails the load"
grep -q 'client host h3: mtload failed there (signal 9' "$T_TMP/k.out"; ok $? "... naming the host and why" || dump "$T_TMP/k.out"
[ ! -e "$T_TMP/k/load.json" ]; ok $? "... and no merged result is written"
jq_e '.[0].status == "ok" and .[1].status == "failed"' "$T_TMP/k/clients.json" > /dev/null; ok $? "clients.json: h2 ok, h3 failed"
for h in h2 h3; do
    is "$(hosts_ps $h | grep -v sshd)" "" "nothing of ours left on $h"
done

# ---- clients that start later than the limit ---------------------------------------------
# (no host starts within 1 us of the instant: waking from the wait alone takes longer)
hosts_ctl "$M" load "${K[@]}" --client-hosts h2,h3 --server 10.77.0.11:11211 --conns 2 --duration 1 \
    --late-limit 1us --out "$T_TMP/late" > "$T_TMP/late.out" 2>&1
is "$?" 1 "a client host that starts later than --late-limit fails the load"
grep -Eq 'client host h[23]: started 0\.[0-9]{6} s late \(the limit is 0\.000001 s' "$T_TMP/late.out"
ok $? "... naming the host and how late it started" || dump "$T_TMP/late.out"
jq_e 'all(.[]; .status == "failed" and .late_s > 0.000001 and .late_s < 0.25)' "$T_TMP/late/clients.json" > /dev/null
ok $? "clients.json: both late by more than 1 us, less than 250 ms ($(jq -c '[.[].late_s]' "$T_TMP/late/clients.json" 2>/dev/null))"
[ ! -e "$T_TMP/late/load.json" ]; ok $? "... and no merged result is written"

# ---- truth across hosts: the server stalls 200 ms every second ----------------------------
hosts_exec h1 setsid -f bash -c 'p=$(pgrep -x memcached); while :; do sleep 0.8; kill -STOP $p; sleep 0.2; kill -CONT $p; done' \
    > /dev/null 2>&1 < /dev/null
hosts_ctl "$M" load "${K[@]}" --client-hosts h2,h3 --server 10.77.0.11:11211 --conns 8 --pipeline 4 --rate 2000 \
    --keys 1000 --duration 3 --out "$T_TMP/st" > "$T_TMP/st.out" 2>&1
rc=$?
hosts_exec h1 bash -c 'pkill -f "kill -ST[O]P"; sleep 0.3; pkill -CONT -x memcached'   # [O]: not this command itself
ok "$rc" "open loop at 2000/s from h2 and h3 against a stalling memcached" || dump "$T_TMP/st.out"
p99=$(jq '.latency_us.corrected.p99' "$T_TMP/st/load.json")
jq_e '.latency_us.corrected.p99 >= 100000' "$T_TMP/st/load.json" > /dev/null
ok $? "merged corrected p99 ${p99} us >= 100 ms"
diag "per client corrected p99: $(jq -r '[.clients[] | "\(.host) \(.latency_us.p99) us"] | join(", ")' "$T_TMP/st/load.json")"
done_testing
