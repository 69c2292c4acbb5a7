#!/bin/bash
# A remote server host and two client hosts, over real SSH and TCP
# (tests/hosts.sh: h1 the server, h2 and h3 the clients; files reach them
# only over SSH):
# - `make bench SERVICE=memcached MODE=sync` with a machine profile naming
#   them: the records are made on the server host (its proof, its counters,
#   its paths), the merged histogram is the sum of the clients' histograms
#   bucket for bucket, and memcached's cmd_get + cmd_set change is at least
#   every answered request and at most every one sent (a request in flight
#   at the end, or timed out, may have reached it);
# - a client host whose mtload is killed mid-run, and a server host whose
#   sshd is stopped, each give a named failure, and the plan goes on;
# - nothing of ours is left running on any host (ps in each namespace).
# emu platform on the server host; 2 s runs. About 90 s.
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
hosts_need qemu

hosts_prebuild memcached plain tagged; ok $? "memcached's emu builds (plain tagged) made here, outside the namespaces" || done_testing
hosts_up 3; ok $? "three hosts up" || done_testing
hosts_lab_conf "$T_TMP/lab.conf" "test lab: the server on h1, load from h2 and h3"
SSH=(SSH_OPTS="--ssh-config $HOSTS_DIR/ssh_config")

# ---- make bench: server h1, clients h2 h3 -------------------------------------------
t0=$(date +%s.%N)
hosts_ctl make -s -C "$ROOT" bench SERVICE=memcached MODE=sync PLATFORM=emu MACHINE="$T_TMP/lab.conf" \
    DURATION=2 WARMUP=0.5 REPS=1 CONNS=4 "${SSH[@]}" > "$T_TMP/b.out" 2>&1
ok $? "make bench SERVICE=memcached MODE=sync with a server host and two client hosts" || dump "$T_TMP/b.out"
diag "make bench took $(echo "$(date +%s.%N) - $t0" | bc) s"
R=$(hosts_resdir "$T_TMP/b.out")
recs=("$R"/*/record.json)
is "${#recs[@]}" 2 "two records (plain/off, tagged/sync)"
for r in "${recs[@]}"; do
    d=$(dirname "$r"); n=$(basename "$d")
    is "$(jq -r '.status' "$r")" ok "$n: ok" || jq -r .error "$r" | sed 's/^/#   /'
    is "$(jq -r '.hosts.server.hostname' "$r")" h1 "$n: made on the server host h1"
    ls "$d"/server/001-*/service.log > /dev/null 2>&1
    ok $? "$n: the far run's own directory (service.log) came back from h1"
    jq_e '.proof.ok == true and (.environment | type == "object") and (.affinity.service != null)' "$r" > /dev/null
    ok $? "$n: h1's proof, environment and pinning in the record"
    [ -s "$d/server/agent.log" ]; ok $? "$n: the far mtebench's output came back"
    merged=$(jq -c '[.load.histogram[] | [.[0], .[1]]] | sort' "$r")
    summed=$(jq -cs '[.[].histogram[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]) | sort' "$d"/clients/h2/load.json "$d"/clients/h3/load.json)
    [ -n "$merged" ] && [ "$merged" != "[]" ] && [ "$merged" = "$summed" ]
    ok $? "$n: merged histogram == sum of h2's and h3's, bucket for bucket"
    req=$(jq '.summary.requests' "$r")
    # memcached counts every answered request, and at most every one sent
    # (a request in flight at the end, or timed out, may have reached it; so
    # may the warm-up's unanswered ones); exactly the answered when none was lost
    jq_e '.client_check | .merged_sent >= .merged_requests and .service_requests >= .merged_requests
          and .service_requests <= .merged_sent + .warmup_unanswered
          and (.merged_sent + .warmup_unanswered > .merged_requests or .service_requests == .merged_requests)' \
        "$r" > /dev/null
    ok $? "$n: memcached's cmd_get + cmd_set change within the $req answered and the sent requests ($(jq -c '.client_check | [.merged_requests, .service_requests, .merged_sent, .warmup_unanswered]' "$r"))"
    is "$(jq '.load.totals.accounting.sent' "$r")" "$(jq -s 'map(.totals.accounting.sent) | add' "$d"/clients/h2/load.json "$d"/clients/h3/load.json)" \
        "$n: the merged sent requests are h2's and h3's"
    is "$(jq -r '[.clients[].identity.hostname] | join(",")' "$r")" "h2,h3" "$n: each client host named"
    jq_e '.clients | all(has("clock_offset_s") and has("late_s") and has("cpu") and has("client_bound"))' "$r" > /dev/null
    ok $? "$n: clock offset, lateness, CPU use and client-bound flag per client"
done
hosts_gone; ok $? "nothing of ours left on h1, h2, h3" || hosts_left | sed 's/^/#   /'

# ---- a client host killed mid-run: named failure, the plan goes on ----------------------
hosts_ctl "$M" bench --service memcached --mode sync --platform emu --machine "$T_TMP/lab.conf" --duration 3 \
    --warmup 0 --reps 1 --conns 4 --quiet --ssh-config "$HOSTS_DIR/ssh_config" --results "$T_TMP/rk" > "$T_TMP/k.out" 2>&1 &
bp=$!
for i in $(seq 600); do hosts_exec h3 pgrep -x mtload > /dev/null && break; sleep 0.1; done
sleep 0.5
hosts_exec h3 pkill -KILL -x mtload
wait $bp
R="$T_TMP/rk"
first=$(ls -d "$R"/001-*/ | head -1)
is "$(jq -r .status "$first/record.json")" error "client killed: the run fails"
jq -r .error "$first/record.json" | grep -q '^client host h3: mtload failed there (signal 9'
ok $? "... naming h3 and why" || jq -r .error "$first/record.json" | sed 's/^/#   /'
jq_e '.load == null and .summary == null' "$first/record.json" > /dev/null; ok $? "... and no partial result in its record"
second=$(ls -d "$R"/002-*/ | head -1)
is "$(jq -r .status "$second/record.json")" ok "the plan went on: the next run is ok" || jq -r .error "$second/record.json" | sed 's/^/#   /'
hosts_gone; ok $? "nothing of ours left on any host" || hosts_left | sed 's/^/#   /'

# ---- the server host's sshd stopped -------------------------------------------------------
hosts_sshd_stop h1
hosts_ctl "$M" bench --service memcached --mode sync --platform emu --machine "$T_TMP/lab.conf" --duration 2 \
    --warmup 0 --reps 1 --conns 4 --quiet --ssh-config "$HOSTS_DIR/ssh_config" --results "$T_TMP/rs" > "$T_TMP/s.out" 2>&1
is "$?" 1 "server host unreachable: bench fails"
R="$T_TMP/rs"
is "$(ls "$R"/*/record.json | wc -l)" 2 "... both runs were tried (the plan went on) and recorded"
is "$(jq -r .error "$R"/*/record.json | grep -c '^server host h1: ssh h1: .*Connection refused')" 2 "... each naming h1 and why"
hosts_sshd_start h1
hosts_gone; ok $? "nothing of ours left on any host" || hosts_left | sed 's/^/#   /'
done_testing
