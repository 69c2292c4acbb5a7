#!/bin/bash
# A fleet through Ansible (Debian's ansible-core) against the test hosts
# (tests/hosts.sh): h1 and h2 are two "servers".
# - provision.yml: the checkout, the build, a warmed build cache, put on each
#   host over ssh;
# - nightly.yml: a short nightly plan (memcached on emu, 1 s runs) on both at
#   once into one PostgreSQL history (a throwaway server on the controller's
#   bridge address); h2 is made to fail (a bad platform): it shows up as h2's
#   failure while h1's night is kept;
# - report.yml: one report over what came back, fleet.md naming both hosts.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/hosts.sh"
PGBIN=/usr/lib/postgresql/15/bin
[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"
command -v ansible-playbook > /dev/null || skip_all "no ansible-playbook (ansible-core; make deps)"
[ -x /usr/sbin/sshd ] || skip_all "no sshd (openssh-server; make deps)"
[ -x "$PGBIN/pg_ctl" ] || skip_all "no PostgreSQL 15 server (make deps)"
id mtebench > /dev/null 2>&1 || skip_all "no mtebench user (make deps)"
ls -d /var/cache/mtebench/builds/memcached/plain-aarch64-* > /dev/null 2>&1 || skip_all "no memcached aarch64 build in the cache"
git -C "$ROOT" rev-parse HEAD > /dev/null 2>&1 || skip_all "not a git checkout"

hosts_up 2; ok $? "two hosts up" || done_testing

# ---- one PostgreSQL history on the controller's bridge address -------------------------------
PGD="$T_TMP/pg"; mkdir -p "$PGD" && chown mtebench "$PGD" && chmod 700 "$PGD"
PW=fleetpw; echo "$PW" > "$PGD/pw"; chown mtebench "$PGD/pw"
pg() { hosts_ctl runuser -u mtebench -- "$@"; }
pg "$PGBIN/initdb" -D "$PGD/data" -U mtebench --auth=scram-sha-256 --pwfile="$PGD/pw" -E UTF8 --locale=C.UTF-8 > "$T_TMP/initdb.log" 2>&1
echo "host all all 10.77.0.0/24 scram-sha-256" >> "$PGD/data/pg_hba.conf"
pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 30 \
    -o "-c listen_addresses='10.77.0.1' -c unix_socket_directories='$PGD' -c fsync=off" start > "$T_TMP/pgctl.log" 2>&1
ok $? "PostgreSQL on 10.77.0.1 (the controller's side of the lab)" || { dump "$PGD/log"; done_testing; }
trap 'pg "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate -w stop > /dev/null 2>&1; hosts_down; cleanup' EXIT
PGPASSWORD=$PW pg psql -h "$PGD" -U mtebench -d postgres -X -q -c "CREATE DATABASE fleet" > /dev/null

# ---- the inventory ---------------------------------------------------------------------
cat > "$T_TMP/short.conf" <<EOF
[plan]
name = fleet
reps = 1
duration = 1s
warmup = 0s

[memcached]
service = memcached
mix = 1:10
modes = sync
EOF
cat > "$T_TMP/inventory.ini" <<EOF
[servers]
h1
h2 mtebench_night_args="--platform nosuch"

[all:vars]
ansible_ssh_common_args=-F $HOSTS_DIR/ssh_config
ansible_python_interpreter=/usr/bin/python3
mtebench_dir=/root/mtebench
mtebench_src=$ROOT
mtebench_stage=$T_TMP/stage
mtebench_skip_deps=true
mtebench_prebuilt=true
mtebench_cache_services=["memcached"]
mtebench_history=postgresql://mtebench:$PW@10.77.0.1:5432/fleet
mtebench_plan_file=$T_TMP/short.conf
mtebench_night_args=--platform emu
mtebench_collect=$T_TMP/collected
EOF
A=(env ANSIBLE_CONFIG="$ROOT/contrib/ansible/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP="$T_TMP/ansible-local"
   ansible-playbook -i "$T_TMP/inventory.ini")

t0=$(date +%s.%N)
hosts_ctl "${A[@]}" "$ROOT/contrib/ansible/provision.yml" > "$T_TMP/prov.out" 2>&1
ok $? "provision.yml on h1 and h2" || dump "$T_TMP/prov.out" 30
diag "provision took $(echo "$(date +%s.%N) - $t0" | bc) s"
for h in h1 h2; do
    hosts_exec $h test -x /root/mtebench/build/mtebench; ok $? "$h: the checkout and build in its own home"
done
[ ! -e /root/mtebench ]; ok $? "... not on the controller's file system"

t0=$(date +%s.%N)
hosts_ctl "${A[@]}" "$ROOT/contrib/ansible/nightly.yml" > "$T_TMP/night.out" 2>&1
ok $? "nightly.yml on both servers" || dump "$T_TMP/night.out" 30
diag "nightly took $(echo "$(date +%s.%N) - $t0" | bc) s"
C="$T_TMP/collected"
is "$(jq -r .ok "$C/h1/status.json")" true "h1: its night ran" || dump "$C/h1/status.json"
is "$(jq -r .ok "$C/h2/status.json")" false "h2: its failure is reported as h2's"
jq -r '.stderr_tail[]' "$C/h2/status.json" | grep -q 'nosuch'; ok $? "... with the reason" || dump "$C/h2/status.json"
is "$(ls "$C"/h1/results/*/*/record.json | wc -l)" 2 "h1's records came back"
n=$(PGPASSWORD=$PW pg psql -h "$PGD" -U mtebench -d fleet -X -q -t -A -c "SELECT count(*) FROM runs WHERE record LIKE 'h1:%'")
is "$n" 2 "h1's runs are in the shared PostgreSQL history"

hosts_ctl "${A[@]}" "$ROOT/contrib/ansible/report.yml" > "$T_TMP/rep.out" 2>&1
ok $? "report.yml" || dump "$T_TMP/rep.out" 30
grep -q '^| h1 | ok | 2 |' "$C/fleet.md"; ok $? "fleet.md: h1 ok with 2 records" || dump "$C/fleet.md"
grep -q '^| h2 | failed (exit 2): .*nosuch' "$C/fleet.md"; ok $? "fleet.md: h2 failed, with why"
[ -s "$C/report/fleet/index.html" ]; ok $? "one report over the fleet's records"
grep -q 'collected/h1/' "$C/report/fleet/runs.csv"; ok $? "runs.csv names each record's host (by its path)"
done_testing
