#!/bin/bash
# nginx on a remote server host, loaded by mtload (HTTP) from two client hosts
# (tests/hosts.sh: h1 the server, h2 and h3 the clients), as
# server-host.t does memcached:
# - `make bench SERVICE=nginx MODE=sync`: records made on h1, the merged
#   histograms (corrected and uncorrected) the clients' sums, and nginx's own
#   request count (stub_status `requests`, less the status request itself)
#   at least every answered request and at most every one sent;
# - nothing of ours left running on any host.
# A client host's mtload killed mid-run is server-host.t's: the controller
# handles it in one place for every service (agent/clients.c client_result,
# agent/remote.c add_clients), and nginx's load is mtload's as memcached's.
# emu platform on the server host; 2 s runs. About 40 s warm.
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
hosts_need qemu

hosts_prebuild nginx plain tagged; ok $? "nginx's emu builds (plain tagged) made here, outside the namespaces" || done_testing
hosts_up 3; ok $? "three hosts up" || done_testing
hosts_lab_conf "$T_TMP/lab.conf" "test lab: nginx on h1, load from h2 and h3"
# nginx runs as the unprivileged user mtebench: the far agent's directory
# (runs under it) must be reachable by that user, so not root's home
mkdir -p "$T_TMP/agent"; chmod 755 "$T_TMP/agent"
K=(--ssh-config "$HOSTS_DIR/ssh_config" --remote-dir "$T_TMP/agent")
SSH=(SSH_OPTS="${K[*]}")

# ---- make bench SERVICE=nginx: server h1, clients h2 h3 --------------------------------
t0=$(date +%s.%N)
hosts_ctl make -s -C "$ROOT" bench SERVICE=nginx MODE=sync PLATFORM=emu MACHINE="$T_TMP/lab.conf" \
    DURATION=2 WARMUP=0.5 REPS=1 CONNS=4 "${SSH[@]}" > "$T_TMP/b.out" 2>&1
ok $? "make bench SERVICE=nginx MODE=sync with a server host and two client hosts" || dump "$T_TMP/b.out"
diag "make bench took $(echo "$(date +%s.%N) - $t0" | bc) s"
R=$(hosts_resdir "$T_TMP/b.out")
recs=("$R"/*/record.json)
is "${#recs[@]}" 2 "two records (plain/off, tagged/sync)"
for r in "${recs[@]}"; do
    d=$(dirname "$r"); n=$(basename "$d")
    is "$(jq -r '.status' "$r")" ok "$n: ok" || jq -r .error "$r" | sed 's/^/#   /'
    is "$(jq -r '.hosts.server.hostname' "$r")" h1 "$n: made on the server host h1"
    is "$(jq -r '.load.config.protocol' "$r")" http "$n: mtload's HTTP from the client hosts"
    for hk in histogram histogram_uncorrected; do
        merged=$(jq -c "[.load.$hk[] | [.[0], .[1]]] | sort" "$r")
        summed=$(jq -cs "[.[].$hk[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)]) | sort" "$d"/clients/h2/load.json "$d"/clients/h3/load.json)
        [ -n "$merged" ] && [ "$merged" != "[]" ] && [ "$merged" = "$summed" ]
        ok $? "$n: merged $hk == sum of h2's and h3's, bucket for bucket"
    done
    jq_e '.load.latency_us | .uncorrected.count == .corrected.count and .uncorrected.p50 <= .corrected.p50' "$r" > /dev/null
    ok $? "$n: merged uncorrected latency: count == corrected count, p50 <= corrected p50"
    # nginx counts every request it read (stub_status), the status request itself less
    jq_e '.client_check | .counted == "requests" and .merged_requests > 0 and .merged_sent >= .merged_requests
          and .service_requests >= .merged_requests and .service_requests <= .merged_sent + .warmup_unanswered
          and (.merged_sent + .warmup_unanswered > .merged_requests or .service_requests == .merged_requests)' \
        "$r" > /dev/null
    ok $? "$n: nginx's stub_status requests within the answered and sent requests ($(jq -c '.client_check | [.merged_requests, .service_requests, .merged_sent, .warmup_unanswered]' "$r"))"
    is "$(jq -r '[.clients[].identity.hostname] | join(",")' "$r")" "h2,h3" "$n: each client host named"
done
hosts_gone; ok $? "nothing of ours left on h1, h2, h3" || hosts_left | sed 's/^/#   /'
done_testing
