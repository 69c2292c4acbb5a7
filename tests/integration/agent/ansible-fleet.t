#!/bin/bash
# (~50 s on a quiet 2-core machine, about half of it provision;
# MTB_FLEET_KEEP=/tmp/x keeps the playbooks' logs as /tmp/x-NAME.log)
# The Ansible playbooks (contrib/ansible) against two test hosts (tests/hosts.sh:
# network namespaces, each with its own sshd and empty work directories) and a
# throwaway PostgreSQL history on the bridge's address (10.77.0.1), as a lab's
# fleet of servers and its history server:
# - provision.yml puts the project on both hosts (from this checkout's git
#   archive; the controller's build/ and memcached's builds shipped, so that
#   make all and the warm step find everything up to date);
# - nightly.yml runs a short plan (tests/fixtures/fleet-plan.conf, memcached
#   under emu, 2 runs of 1 s) on both at once into the one history, fetches
#   each host's results and dashboard, and reports them in one report with the
#   host named in every row;
# - a second night with h2's mtebench removed: h2 is named as failed, the
#   playbook fails, h1's night is kept in the history and the report;
# - nothing of ours is left running on either host.
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
PGBIN=/usr/lib/postgresql/15/bin
command -v ansible-playbook >/dev/null || skip_all "no ansible-playbook (ansible; make deps)"
[ -x "$PGBIN/pg_ctl" ] && command -v psql >/dev/null || skip_all "no PostgreSQL 15 (make deps)"
[ "$(id -u)" = 0 ] || skip_all "needs root (namespaces, PostgreSQL as mtebench)"
id mtebench >/dev/null 2>&1 || skip_all "no mtebench user (make deps)"
"$M" nightly --history postgresql:///x --out "$T_TMP/probe" 2>&1 | grep -q 'built without libpq' &&
    skip_all "mtebench built without libpq (libpq-dev; make deps)"
git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1 || skip_all "not a git checkout (provision.yml ships git archive HEAD)"
# memcached's emu builds in the shared cache (already there in a suite run)
"$M" build --service memcached --platform emu > "$T_TMP/warm.out" 2>&1 || { dump "$T_TMP/warm.out"; skip_all "memcached builds failed"; }

# the seed of the hosts' build caches: just the plan's builds
# (from this machine's build cache: MTEBENCH_CACHE where the suite points it elsewhere)
CACHE=${MTEBENCH_CACHE:-/var/cache/mtebench}
SEED=$(awk -v c="$CACHE/" '$4 == "cached" || $4 == "built" { p = $5; if (index(p, c) == 1) p = substr(p, length(c) + 1); sub("/bin/.*", "", p); printf "%s\x27%s\x27", (n++ ? "," : ""), p }' "$T_TMP/warm.out")
# ... and memcached's Debian sources (the build keys hash them; the hosts have no archive)
SEED="$SEED$(cd "$CACHE" && ls src/memcached_* | sed "s/.*/,'&'/" | tr -d '\n')"
# ... and QEMU's plugin header, which make deps fetches from QEMU's source
# tarball (the hosts reach no archive: each spent seconds failing to)
[ -d "$CACHE/qemu" ] && SEED="$SEED,'qemu'"
[ -n "$SEED" ] || { dump "$T_TMP/warm.out"; skip_all "no memcached builds found in the cache"; }
hosts_up 2 || { echo "not ok 1 - hosts up"; exit 1; }
diag "hosts up in ${HOSTS_UP_SECONDS}s"

# ---- the history server, reachable from the hosts on the bridge -----------------
PGD="$T_TMP/pg"; PW='fleet-Pw:7'
mkdir -p "$PGD" && chown mtebench "$PGD" && chmod 700 "$PGD"
printf '%s\n' "$PW" > "$PGD/pwfile"; chown mtebench "$PGD/pwfile"
pg() { runuser -u mtebench -- "$@"; }
pg "$PGBIN/initdb" -D "$PGD/data" -U mtebench --auth=scram-sha-256 --pwfile="$PGD/pwfile" -E UTF8 --locale=C.UTF-8 \
    > "$T_TMP/initdb.log" 2>&1 || { dump "$T_TMP/initdb.log"; echo "not ok 1 - initdb"; exit 1; }
rm -f "$PGD/pwfile"
echo "host all mtebench $HOSTS_NET.0/24 scram-sha-256" >> "$PGD/data/pg_hba.conf"
pgstop() { pg "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate -w stop >/dev/null 2>&1; }
trap 'pgstop; hosts_down; cleanup' EXIT
hosts_ctl runuser -u mtebench -- "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 30 \
    -o "-c listen_addresses='$HOSTS_NET.1' -c unix_socket_directories='$PGD' -c fsync=off -c full_page_writes=off" start \
    > "$T_TMP/pgctl.log" 2>&1
ok "$?" "PostgreSQL history server on $HOSTS_NET.1 (the bridge)" || { dump "$T_TMP/pgctl.log"; dump "$PGD/log"; done_testing; }
sqlh() { PGPASSWORD="$PW" psql -h "$PGD" -U mtebench -X -q -t -A -v ON_ERROR_STOP=1 -d "${2:-fleet}" -c "$1"; }
sqlh "CREATE DATABASE fleet" postgres

# ---- the inventory ---------------------------------------------------------------------
C="$T_TMP/collect"
cat > "$T_TMP/inventory.ini" <<EOI
[servers]
h1
h2

[all:vars]
ansible_user=root
ansible_python_interpreter=/usr/bin/python3
ansible_ssh_common_args=-F $HOSTS_DIR/ssh_config -o ControlMaster=no
mtebench_dir=/work/mtebench
mtebench_plan=tests/fixtures/fleet-plan.conf
mtebench_platform=emu
mtebench_history=postgresql://mtebench@$HOSTS_NET.1:5432/fleet
mtebench_history_password=$PW
mtebench_collect=$C
mtebench_cache_dir=$CACHE
mtebench_cache_seed=[$SEED]
mtebench_ship_build=true
mtebench_deps_throttle=1
mtebench_night_timeout=300
EOI
play() { # play NAME PLAYBOOK [ARGS...]: output to NAME.log, exit status kept
    local name=$1 pb=$2; shift 2
    hosts_ctl env ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks ANSIBLE_SSH_CONTROL_PATH_DIR="$T_TMP/cp" ANSIBLE_CONFIG="$ROOT/contrib/ansible/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$T_TMP/ansible-local" \
        ANSIBLE_HOME="$T_TMP/ansible-home" timeout 600 ansible-playbook -i "$T_TMP/inventory.ini" \
        "$ROOT/contrib/ansible/$pb" "$@" > "$T_TMP/$name.log" 2>&1
    local r=$?; [ -n "${MTB_FLEET_KEEP:-}" ] && cp "$T_TMP/$name.log" "$MTB_FLEET_KEEP-$name.log"
    diag "$name: the slowest tasks:"; grep -A3 '^=====' "$T_TMP/$name.log" | tail -n 3 | sed 's/^/#   /'
    return $r
}

# ---- provision ----------------------------------------------------------------------------
t0=$(date +%s)
play provision provision.yml
is "$?" 0 "provision.yml on h1 and h2" || dump "$T_TMP/provision.log" 60
diag "provision: $(( $(date +%s) - t0 )) s"
for h in h1 h2; do
    ok "$(hosts_exec $h test -x /work/mtebench/build/mtebench; echo $?)" "$h: the project built in its own /work/mtebench"
    ok "$(hosts_exec $h sh -c 'ls /var/cache/mtebench/builds/memcached | grep -q ^tagged-aarch64-'; echo $?)" \
        "$h: memcached's builds in its own build cache"
done
ok "$(grep -q 'memcached tagged aarch64 cached' "$T_TMP/provision.log" || grep -q 'changed: \[h1\] => (item=memcached)' "$T_TMP/provision.log"
      hosts_exec h1 /work/mtebench/build/mtebench build --service memcached --platform emu | grep -q 'tagged aarch64 cached'; echo $?)" \
    "the plan's builds are warm on h1 (mtebench build says cached)"

# ---- night 1: both hosts, one history, one report -------------------------------------------
t0=$(date +%s)
play night1 nightly.yml -e mtebench_night=night1
is "$?" 0 "nightly.yml, night 1: both hosts" || dump "$T_TMP/night1.log" 80
diag "night 1: $(( $(date +%s) - t0 )) s"
hostruns() { sqlh "SELECT n.host || '=' || count(r.id) FROM nights n LEFT JOIN runs r ON r.night = n.id GROUP BY n.host ORDER BY n.host" | tr '\n' ' '; }
is "$(hostruns)" "h1=2 h2=2 " "the shared history: 2 runs from each host"
is "$(sqlh "SELECT string_agg(c, ' ' ORDER BY c) FROM (SELECT count(DISTINCT series) || ':' || string_agg(DISTINCT host, ',' ORDER BY host) AS c FROM runs GROUP BY config_hash) x")" \
    "2:h1,h2 2:h1,h2" "... two series per configuration, one on each host"
is "$(sqlh "SELECT count(*) FROM runs WHERE status = 'ok'")" 4 "... all ok" ||
    for r in "$C"/night1/h*/results/*/*/record.json; do
        jq -r --arg r "$r" 'select(.status != "ok") | "\($r): \(.status): \(.error // "")"' "$r" 2>/dev/null | sed 's/^/#   /'
    done
for h in h1 h2; do
    ok "$( [ -f "$C/night1/$h/results/night1/summary.json" ] || ls "$C/night1/$h/results/night1"/*/record.json >/dev/null 2>&1; echo $?)" \
        "$h's results brought back" || ls -R "$C" | head -20 | sed 's/^/# /'
    ok "$( [ -f "$C/night1/$h/dashboard/index.html" ]; echo $?)" "$h's dashboard brought back"
    ok "$(grep -q "^$h: ok" "$C/night1/hosts.txt"; echo $?)" "summary: $h ok" || dump "$C/night1/hosts.txt"
done
R="$C/night1/report/fleet-night1"
ok "$( [ -f "$R/index.html" ] && [ -f "$R/runs.csv" ]; echo $?)" "one report of the fleet" || dump "$T_TMP/night1.log" 30
col=$(head -1 "$R/runs.csv" | tr -d '\r' | tr ',' '\n' | grep -nx host | cut -d: -f1)
ok "$( [ -n "$col" ]; echo $?)" "runs.csv has a host column"
is "$(tail -n +2 "$R/runs.csv" | tr -d '\r' | cut -d, -f"${col:-1}" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')" "h1=2 h2=2 " \
    "runs.csv: every row names its host"
is "$(jq -r '[.configs[] | .host] | sort | join(" ")' "$R/summary.json")" "h1 h1 h2 h2" \
    "summary: each configuration is one host's (none pooled across hosts)"
is "$(grep -c '<td class="l">[^<]* on h[12]</td>' "$R/index.html" | awk '$1 >= 4 {print "yes"}')" "yes" \
    "index.html: the configuration rows name the host"

# ---- night 2: h2 broken ----------------------------------------------------------------------
hosts_exec h2 rm -f /work/mtebench/build/mtebench
play night2 nightly.yml -e mtebench_night=night2
r=$?
ok "$( [ "$r" != 0 ]; echo $?)" "nightly.yml, night 2 with h2 broken: the playbook fails (exit $r)"
ok "$(grep -q '^h1: ok' "$C/night2/hosts.txt"; echo $?)" "summary: h1 ok" || dump "$C/night2/hosts.txt"
ok "$(grep -q '^Series by host: h1 (3 series), h2 (3 series)\.$' "$C/night2/h1/dashboard/digest.md"; echo $?)" \
    "h1's digest of the shared history names both hosts' series" || {
    dump "$C/night2/h1/dashboard/digest.md"
    # what the shared history holds, per host (a CI run on 86ef1af once saw h2 with 2 series, not reproduced)
    sqlh "SELECT 'run', host, night, variant, mode, status, ops_per_sec, allocator, series FROM runs ORDER BY id" | sed 's/^/#   /'
    sqlh "SELECT 'overhead', host, night, rep, series FROM overheads ORDER BY id" | sed 's/^/#   /'
    sqlh "SELECT 'night', id, host, started FROM nights ORDER BY id" | sed 's/^/#   /'
}
ok "$(grep -q "^h2: FAILED: mtebench nightly exit 127: .*build/mtebench.*No such file" "$C/night2/hosts.txt"; echo $?)" "summary: h2 FAILED, with the reason" ||
    dump "$C/night2/hosts.txt"
grep '^h2' "$C/night2/hosts.txt" | sed 's/^/# /'
is "$(sqlh "SELECT n.host || '=' || count(r.id) FROM nights n JOIN runs r ON r.night = n.id GROUP BY n.host ORDER BY n.host" | tr '\n' ' ')" \
    "h1=4 h2=2 " "the history: h1's two nights kept (4 runs), h2's first night intact (2)"
R2="$C/night2/report/fleet-night2"
ok "$( [ -f "$R2/runs.csv" ]; echo $?)" "night 2's report written from h1's results"
is "$(tail -n +2 "$R2/runs.csv" | tr -d '\r' | cut -d, -f"${col:-1}" | sort -u | tr '\n' ' ')" "h1 " "... naming h1 only"

# ---- nothing left running --------------------------------------------------------------------
# Ansible's own multiplexed ssh connections (ControlPersist) closed, as the
# end of a session closes them: what remains on a host would be ours
for cp in "$T_TMP"/cp/*; do [ -S "$cp" ] && hosts_ctl ssh -o ControlPath="$cp" -O exit x >/dev/null 2>&1; done
sleep 0.3
[ -n "${MTB_FLEET_KEEP:-}" ] && { ls -la "$T_TMP/cp" > "$MTB_FLEET_KEEP-cp"; for h in h1 h2; do hosts_exec $h ps -eo pid,ppid,lstart,args >> "$MTB_FLEET_KEEP-cp"; done; }
for h in h1 h2; do
    is "$(hosts_ps $h)" "" "nothing of ours left running on $h"
done
done_testing
