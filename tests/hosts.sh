# tests/hosts.sh - test hosts: N machines reachable only over SSH, built from
# namespaces on this one machine. Source it (after tests/lib.sh, or alone):
#
#   . tests/hosts.sh
#   hosts_up 3            # h1 h2 h3, each with its own sshd
#   hosts_ctl ssh h1 uname -n
#
# Layout (nothing outside these namespaces is contacted):
#   - the controller's network namespace "ctl" holds a bridge on the private
#     subnet 10.77.0.0/24 (address 10.77.0.1); the test's controller commands
#     run there (hosts_ctl CMD...);
#   - each host hI is a network namespace joined to that bridge by a veth
#     pair (its eth0, address 10.77.0.$((10+I))), with its own PID, UTS
#     (hostname hI) and mount namespaces. In its mount namespace /root, /tmp,
#     /work and /var/cache/mtebench are empty tmpfs of its own, so the only
#     way files reach a host is SSH; the system's packages (/usr, /opt) are
#     shared, as on a provisioned machine;
#   - each host runs Debian's sshd (-D, its own config and ed25519 host key,
#     port 22 on its own address, root by key only);
#   - $HOSTS_DIR/ssh_config names the hosts (Host h1 -> 10.77.0.11, root, the
#     test key, the test known_hosts); $HOSTS_DIR/id_ed25519 is the key and
#     $HOSTS_DIR/known_hosts holds every host's key (by address and name).
#
# hosts_down (run at exit, also on failure) kills every host (SIGKILL to the
# init of its PID namespace takes all of its processes with it) and deletes
# the namespaces. Taking up 3 hosts takes about a second.
#
# Other helpers: hosts_ps HOST (processes running on HOST, sshd excluded),
# hosts_exec HOST CMD... (a command inside HOST, not over SSH: for checks and
# for breaking things), hosts_sshd_stop HOST / hosts_sshd_start HOST,
# hosts_link HOST down|up, hosts_addr HOST.
#
# For the bench tests (server-host*.t): hosts_need [qemu] (skip the test
# unless hosts can be made here), hosts_left (what of ours still runs on any
# host), hosts_gone (wait, bounded, until nothing is left) and hosts_resdir
# FILE (the results directory a bench's output names), hosts_prebuild SERVICE
# VARIANT... (the emu builds the test's runs need, made before any runs in
# the controller's namespace: a build the cache lacks fetches its sources
# with apt-get source, and that namespace has no route out; the cold suite
# once failed server-host-nginx.t so, when it was the first to want nginx).

HOSTS_NET=10.77.0
HOSTS_PFX="mtb$$"                       # namespace and interface names: unique per process
HOSTS_CTL="${HOSTS_PFX}ctl"
HOSTS_LIST=""
HOSTS_DIR=""

hosts_addr() { echo "$HOSTS_NET.$((10 + ${1#h}))"; }

hosts_prebuild() {
    local svc=$1 v; shift
    for v in "$@"; do
        "$B/mtebench" build --service "$svc" --platform emu --variant "$v" > "$T_TMP/prebuild-$svc-$v.log" 2>&1 ||
            { dump "$T_TMP/prebuild-$svc-$v.log"; return 1; }
    done
}
hosts_ctl() { ip netns exec "$HOSTS_CTL" "$@"; }

# hosts_lab_conf FILE SUMMARY: a machine profile "lab" with the server on h1
# and the load from h2 and h3 (one CPU each: the namespaces share this machine's)
hosts_lab_conf() {
    printf '[machine]\nname = lab\nsummary = %s\nservice_cpus = 0\nclient_cpus = 0\nallow_overlap = yes\nserver_host = h1\nclient_hosts = h2,h3\n' "$2" > "$1"
}

# hosts_exec HOST CMD...: CMD in HOST's namespaces (network, PID, mount, UTS)
hosts_exec() {
    local h=$1; shift
    nsenter --target "$(cat "$HOSTS_DIR/$h/init.pid")" --net --pid --mount --uts -- "$@"
}

# hosts_ps HOST: "PID COMMAND" of every process on HOST except the namespace's
# init (and its sleep, and the init's own fork just before that sleep's exec:
# CI on aac9e3d once listed it as "260 bash .../init.sh .../h3 h3") and its
# sshd listener (an ssh session's own sshd processes are listed, and so is
# anything left behind, even orphaned)
hosts_ps() {
    local sshd
    sshd=$(cat "$HOSTS_DIR/$1/sshd.innerpid" 2>/dev/null)
    hosts_exec "$1" ps -eo pid=,ppid=,args= |
        awk -v s="$sshd" '{ a = $0; sub(/^ *[0-9]+ +[0-9]+ +/, "", a) }
                          $1 == 1 { a1 = a; next }
                          $1 == s || $3 == "ps" { next }
                          $2 == 1 && $3 == "sleep" && $4 == "1" && NF == 4 { next }
                          $2 == 1 && a == a1 { next }
                          { $2 = ""; print }'
}

# hosts_need [qemu]: skip the whole test (lib.sh's skip_all) unless test hosts
# can be made here: root (network namespaces) and Debian's sshd; with "qemu",
# also qemu-aarch64 (the server host's emu platform)
hosts_need() {
    [ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"
    [ -x /usr/sbin/sshd ] || skip_all "no sshd (openssh-server; make deps)"
    [ "${1:-}" != qemu ] || command -v qemu-aarch64 >/dev/null || skip_all "no qemu-aarch64 (make deps)"
}

# hosts_left: "HOST: PID COMMAND" of whatever of ours still runs on any host
# (sshd excluded); hosts_gone: wait (at most 5 s) until nothing is left
hosts_left() { local h; for h in $HOSTS_LIST; do hosts_ps "$h" | grep -v sshd | sed "s/^/$h: /"; done; }
hosts_gone() { local i; for i in $(seq 50); do [ -z "$(hosts_left)" ] && return 0; sleep 0.1; done; return 1; }

# hosts_resdir FILE: the results directory named by a bench's output in FILE
hosts_resdir() { sed -n 's/.*results in \([^ ]*\)$/\1/p' "$1" | head -1; }

# the host's init: a shell that masks directories, then runs sshd as its child
# (so that the sshd can be stopped and started again while the host lives on)
_hosts_init() {
    cat <<'EOF'
set -e
d=$1
mount -t tmpfs -o mode=700,size=2g mtbroot /root
mkdir -p /root/.ssh /root/.sshd
cp "$d"/sshd_config "$d"/ssh_host_ed25519_key "$d"/ssh_host_ed25519_key.pub /root/.sshd/
cp "$d"/authorized_keys /root/.ssh/authorized_keys
chmod 600 /root/.sshd/ssh_host_ed25519_key /root/.ssh/authorized_keys
for m in /work /var/cache/mtebench /tmp; do
    [ -d "$m" ] && mount -t tmpfs -o size=2g mtbhost "$m"
done
chmod 1777 /tmp
mkdir -p /run/sshd
hostname "$2"
set +e
run_sshd() { /usr/sbin/sshd -D -e -f /root/.sshd/sshd_config & echo $! > /root/.sshd/pid; }
run_sshd
# SIGUSR1: stop the sshd (and every session it runs); SIGUSR2: start it again
trap 'kill $(cat /root/.sshd/pid) 2>/dev/null' USR1
trap 'run_sshd' USR2
while :; do sleep 1 & wait $!; done
EOF
}

hosts_up() {
    local n=${1:-2} i h d a t0
    t0=$(date +%s.%N)
    command -v /usr/sbin/sshd >/dev/null || { echo "hosts: no sshd (openssh-server; make deps)" >&2; return 1; }
    HOSTS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mtb-hosts.XXXXXX")
    _hosts_init > "$HOSTS_DIR/init.sh"
    ip netns add "$HOSTS_CTL" || return 1
    hosts_ctl ip link set lo up
    hosts_ctl ip link add br0 type bridge
    hosts_ctl ip addr add "$HOSTS_NET.1/24" dev br0
    hosts_ctl ip link set br0 up
    ssh-keygen -q -t ed25519 -N '' -C mtb-test -f "$HOSTS_DIR/id_ed25519" || return 1
    : > "$HOSTS_DIR/known_hosts"
    : > "$HOSTS_DIR/ssh_config"
    for i in $(seq 1 "$n"); do
        h=h$i; d="$HOSTS_DIR/$h"; a=$(hosts_addr "$h")
        mkdir -p "$d"
        ip netns add "$HOSTS_PFX$h" || return 1
        HOSTS_LIST="$HOSTS_LIST $h"
        ip link add "${HOSTS_PFX}${h}p" type veth peer name eth0 netns "$HOSTS_PFX$h" || return 1
        ip link set "${HOSTS_PFX}${h}p" netns "$HOSTS_CTL"
        hosts_ctl ip link set "${HOSTS_PFX}${h}p" master br0 up
        ip -n "$HOSTS_PFX$h" link set lo up
        ip -n "$HOSTS_PFX$h" addr add "$a/24" dev eth0
        ip -n "$HOSTS_PFX$h" link set eth0 up
        ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$d/ssh_host_ed25519_key" || return 1
        cp "$HOSTS_DIR/id_ed25519.pub" "$d/authorized_keys"
        cat > "$d/sshd_config" <<EOF
ListenAddress $a:22
HostKey /root/.sshd/ssh_host_ed25519_key
PidFile none
AuthorizedKeysFile /root/.ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
MaxSessions 100
MaxStartups 100
LogLevel ERROR
Subsystem sftp internal-sftp
EOF
        echo "$a,$h $(cut -d' ' -f1,2 "$d/ssh_host_ed25519_key.pub")" >> "$HOSTS_DIR/known_hosts"
        printf 'Host %s\n  HostName %s\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  BatchMode yes\n\n' \
            "$h" "$a" "$HOSTS_DIR/id_ed25519" "$HOSTS_DIR/known_hosts" >> "$HOSTS_DIR/ssh_config"
        # the host's init: --kill-child takes the whole PID namespace down with unshare
        setsid ip netns exec "$HOSTS_PFX$h" unshare --pid --fork --kill-child --mount-proc --uts --mount \
            --propagation private bash "$HOSTS_DIR/init.sh" "$d" "$h" > "$d/sshd.log" 2>&1 < /dev/null &
        echo $! > "$d/unshare.pid"; disown $!
    done
    # wait for each sshd to listen (bounded), note the pids of the inits
    for h in $HOSTS_LIST; do
        d="$HOSTS_DIR/$h"; a=$(hosts_addr "$h")
        for i in $(seq 100); do
            hosts_ctl bash -c "exec 3<>/dev/tcp/$a/22" 2>/dev/null && break
            sleep 0.05
        done
        hosts_ctl bash -c "exec 3<>/dev/tcp/$a/22" 2>/dev/null || { echo "hosts: $h: sshd not listening" >&2; cat "$d/sshd.log" >&2; return 1; }
        # the init is unshare's child (pid 1 in the host's PID namespace)
        pgrep -P "$(cat "$d/unshare.pid")" > "$d/init.pid"
        hosts_exec "$h" cat /root/.sshd/pid > "$d/sshd.innerpid"
    done
    HOSTS_UP_SECONDS=$(echo "$(date +%s.%N) - $t0" | bc)
    return 0
}

# hosts_sshd_stop HOST / hosts_sshd_start HOST: stop HOST's sshd (its
# sessions too) or start it again; the host itself stays up
hosts_sshd_stop() {
    kill -USR1 "$(cat "$HOSTS_DIR/$1/init.pid")"
    local i; for i in $(seq 50); do
        hosts_ctl bash -c "exec 3<>/dev/tcp/$(hosts_addr "$1")/22" 2>/dev/null || return 0; sleep 0.05
    done; return 1
}
hosts_sshd_start() {
    kill -USR2 "$(cat "$HOSTS_DIR/$1/init.pid")"
    local i; for i in $(seq 100); do
        hosts_ctl bash -c "exec 3<>/dev/tcp/$(hosts_addr "$1")/22" 2>/dev/null && break; sleep 0.05
    done
    hosts_exec "$1" cat /root/.sshd/pid > "$HOSTS_DIR/$1/sshd.innerpid"
}

# hosts_link HOST down|up: HOST's network link cut or restored (its veth's
# end on the bridge, as a cable pulled at the switch: HOST itself sees its
# carrier go, its sockets and processes stay)
hosts_link() { hosts_ctl ip link set "${HOSTS_PFX}${1}p" "$2"; }

hosts_down() {
    local h p
    [ -n "$HOSTS_DIR" ] || return 0
    for h in $HOSTS_LIST; do
        p=$(cat "$HOSTS_DIR/$h/init.pid" 2>/dev/null); [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
        p=$(cat "$HOSTS_DIR/$h/unshare.pid" 2>/dev/null); [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    done
    for h in $HOSTS_LIST; do
        p=$(cat "$HOSTS_DIR/$h/unshare.pid" 2>/dev/null)
        [ -n "$p" ] && while kill -0 "$p" 2>/dev/null; do sleep 0.02; done
        ip netns del "$HOSTS_PFX$h" 2>/dev/null
    done
    ip netns del "$HOSTS_CTL" 2>/dev/null
    rm -rf "$HOSTS_DIR"
    HOSTS_DIR=""; HOSTS_LIST=""
}

if declare -f cleanup >/dev/null; then
    trap 'hosts_down; cleanup' EXIT
else
    trap 'hosts_down' EXIT
    trap 'exit 130' INT TERM
fi
