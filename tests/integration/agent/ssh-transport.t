#!/bin/bash
# The ssh transport against real sshds (tests/hosts.sh: two hosts in network
# namespaces, files reach them only over SSH):
# - `mtebench hosts` connects, names each host (hostname, architecture, clock
#   offset) and puts the agent; a second call copies nothing (same sha256);
# - an unknown host key is refused with a message saying how to trust it;
#   --trust-new-hosts accepts it and records it in known_hosts;
# - --exec runs the far mtebench and brings its output back;
# - a far command past its deadline, a Ctrl-C and a SIGKILL of the
#   controller each leave nothing of ours running on the host (ps there),
#   children in process groups of their own included; no ssh is left here.
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"
[ -x /usr/sbin/sshd ] || skip_all "no sshd (openssh-server; make deps)"
[ -x "$B/aarch64/mtebench" ] || skip_all "no aarch64 build (make all)"

hosts_up 2; ok $? "two hosts up (sshd each, namespaces)" || done_testing
diag "hosts up in $HOSTS_UP_SECONDS s"
K=(--ssh-config "$HOSTS_DIR/ssh_config")

# ---- connect, identity, agent put once -------------------------------------
hosts_ctl "$M" hosts "${K[@]}" h1 h2 > "$T_TMP/h.out" 2> "$T_TMP/h.err"
ok $? "mtebench hosts h1 h2" || { dump "$T_TMP/h.out"; dump "$T_TMP/h.err"; }
grep -q '^h1: ok: h1 x86_64 .*clock offset' "$T_TMP/h.out"; ok $? "h1 named by its own hostname, architecture and clock offset" || dump "$T_TMP/h.out"
grep -q '^h2: ok: h2 ' "$T_TMP/h.out"; ok $? "h2 too"
is "$(grep -c 'h1: put' "$T_TMP/h.err")" 11 "the agent's 11 parts put on h1 (libmtestack.so, and libmtealloc.so for fault reports, among them)"
hosts_exec h1 test -x /root/.mtebench-agent/build/mtebench; ok $? "the agent is in h1's own home"
[ ! -e /root/.mtebench-agent ]; ok $? "... and not in the controller's (nothing passes through the shared file system)"
hosts_ctl "$M" hosts "${K[@]}" h1 > "$T_TMP/h2.out" 2> "$T_TMP/h2.err"
is "$(grep -c 'put' "$T_TMP/h2.err")" 0 "second connection: nothing copied (same sha256)" || dump "$T_TMP/h2.err"

# ---- host keys -----------------------------------------------------------------
: > "$T_TMP/kh"
hosts_ctl "$M" hosts --ssh-key "$HOSTS_DIR/id_ed25519" --known-hosts "$T_TMP/kh" root@10.77.0.11 > "$T_TMP/u.out" 2>&1
is "$?" 1 "unknown host key: refused"
grep -q 'host key not known.*refused.*ssh-keyscan.*--trust-new-hosts' "$T_TMP/u.out"; ok $? "... saying how to trust it" || dump "$T_TMP/u.out"
hosts_ctl "$M" hosts --ssh-key "$HOSTS_DIR/id_ed25519" --known-hosts "$T_TMP/kh" --trust-new-hosts root@10.77.0.11 > "$T_TMP/t.out" 2>&1
ok $? "--trust-new-hosts: accepted" || dump "$T_TMP/t.out"
ssh-keygen -F 10.77.0.11 -f "$T_TMP/kh" | grep -q "ssh-ed25519 $(cut -d' ' -f2 "$HOSTS_DIR/h1/ssh_host_ed25519_key.pub")"
ok $? "... and recorded in known_hosts" || dump "$T_TMP/kh"
ssh-keygen -q -t ed25519 -N '' -f "$T_TMP/other" && echo "10.77.0.11 $(cut -d' ' -f1,2 "$T_TMP/other.pub")" > "$T_TMP/kh"
hosts_ctl "$M" hosts --ssh-key "$HOSTS_DIR/id_ed25519" --known-hosts "$T_TMP/kh" --trust-new-hosts root@10.77.0.11 > "$T_TMP/c.out" 2>&1
is "$?" 1 "a changed host key: refused even with --trust-new-hosts"
grep -q 'differs from the one in known_hosts' "$T_TMP/c.out"; ok $? "... saying so" || dump "$T_TMP/c.out"

# ---- exec ------------------------------------------------------------------------
hosts_ctl "$M" hosts "${K[@]}" --exec "$T_TMP/x" h1 -- list > "$T_TMP/x.out" 2>&1
ok $? "--exec h1 -- list" || dump "$T_TMP/x.out"
grep -q 'memcached' "$T_TMP/x/agent.log"; ok $? "the far output came back (agent.log)"

# a far mtebench that does not end, with children in process groups of
# their own (as services are): stand-in planted on h2 behind the hash file
hosts_exec h2 bash -c 'cat > /root/.mtebench-agent/build/mtebench <<"EOF"
#!/bin/bash
set -m
sleep 301 & sleep 302 &
echo started > "$MTEBENCH_ROOT/started"
wait
EOF'
left() { hosts_ps h2 | grep -v sshd; }
gone() { local i; for i in $(seq 50); do [ -z "$(left)" ] && return 0; sleep 0.1; done; return 1; }
t0=$(date +%s.%N)
hosts_ctl "$M" hosts "${K[@]}" --exec "$T_TMP/d" --deadline 2 h2 -- run > "$T_TMP/d.out" 2>&1
is "$?" 1 "a far command past its deadline fails"
grep -q 'did not end within 2 s' "$T_TMP/d.out"; ok $? "... naming the deadline" || dump "$T_TMP/d.out"
gone; ok $? "... and nothing of ours is left on h2" || left | sed 's/^/#   /'
diag "deadline case took $(echo "$(date +%s.%N) - $t0" | bc) s"

for sig in INT KILL; do
    hosts_exec h2 rm -f /root/.mtebench-agent/started
    ip netns exec "$HOSTS_CTL" setsid "$M" hosts "${K[@]}" --exec "$T_TMP/s$sig" h2 -- run > "$T_TMP/s$sig.out" 2>&1 &
    pid=$!                          # mtebench itself (ip and setsid exec it)
    for i in $(seq 100); do hosts_exec h2 test -e /root/.mtebench-agent/started && break; sleep 0.1; done
    [ -n "$(left)" ]; ok $? "SIG$sig: the far command is running" || dump "$T_TMP/s$sig.out"
    kill -"$sig" "$pid"; wait "$pid" 2>/dev/null
    gone; ok $? "SIG$sig to the controller: nothing of ours left on h2" || left | sed 's/^/#   /'
    for i in $(seq 30); do [ -z "$(ip netns pids "$HOSTS_CTL")" ] && break; sleep 0.1; done
    is "$(ip netns pids "$HOSTS_CTL" | wc -l)" 0 "SIG$sig: no ssh (master or session) left on the controller"
done
done_testing
