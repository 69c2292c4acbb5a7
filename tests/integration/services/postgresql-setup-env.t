#!/bin/bash
# PostgreSQL's setup (initdb) under emu gets the run's mode through
# qemu-aarch64 -E, never in qemu-aarch64's own environment: on an arm64 MTE
# host that is Debian's static-pie qemu-user, whose glibc 2.36 crashes at
# start-up when GLIBC_TUNABLES asks for heap tagging. Every qemu-aarch64 the
# harness starts is seen through a PATH shim that logs its environment and
# arguments; the setup is made fresh (a setup cache of this test's own; the
# builds are the shared cache's). The shim stops at initdb (what initdb does
# under emu, 30-90 s, is postgresql.t's and vm-service-regions.t's to show), so the run ends
# there, a setup failure. A few seconds.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
cache=${MTEBENCH_CACHE:-/var/cache/mtebench}
qemu=$(command -v qemu-aarch64)
mkdir -p "$T_TMP/shim" "$T_TMP/cache"
ln -s "$cache/builds" "$T_TMP/cache/builds"
calls="$T_TMP/qemu-calls.log"
: > "$calls"; chmod 666 "$calls"   # initdb runs as the unprivileged service user
cat > "$T_TMP/shim/qemu-aarch64" <<EOF
#!/bin/sh
echo "own_env=\${GLIBC_TUNABLES:-none} args=\$*" >> "$calls"
case "\$*" in *bin/initdb*) echo "shim: initdb stops here" >&2; exit 1;; esac
exec "$qemu" "\$@"
EOF
chmod 755 "$T_TMP/shim/qemu-aarch64"

# a GLIBC_TUNABLES exported in the user's shell is dropped too (said once)
PATH="$T_TMP/shim:$PATH" MTEBENCH_CACHE="$T_TMP/cache" GLIBC_TUNABLES=glibc.mem.tagging=1 "$M" run --service postgresql --variant tagged --mode sync \
    --platform emu --duration 1 --warmup 0 --results "$T_TMP/r" > "$T_TMP/out" 2>&1
rc=$?
ok "$( [ $rc != 0 ] && grep -q 'setup of postgresql failed' "$T_TMP/out" && grep -q 'shim: initdb stops here' "$T_TMP/r/001-tagged-sync/setup.log"; echo $?)" \
   "the run went as far as initdb, where the shim stopped it (exit $rc)" || { dump "$T_TMP/out"; dump "$T_TMP/r/001-tagged-sync/setup.log"; }
ok "$(grep -q 'bin/initdb' "$calls"; echo $?)" "initdb ran through qemu-aarch64" || dump "$calls"
ok "$(grep 'bin/initdb' "$calls" | grep -q -- '-E GLIBC_TUNABLES=glibc.mem.tagging=3 '; echo $?)" \
    "initdb got the sync mode through -E" || dump "$calls"
is "$(grep -vc '^own_env=none ' "$calls")" 0 "no qemu-aarch64 had GLIBC_TUNABLES in its own environment" || dump "$calls"
ok "$(grep -q 'GLIBC_TUNABLES=glibc.mem.tagging=1 from the environment is ignored' "$T_TMP/out"; echo $?)" \
    "the user's own GLIBC_TUNABLES is named as ignored" || dump "$T_TMP/out"
ok "$(! grep -q 'glibc.mem.tagging=1' "$calls"; echo $?)" "and reached no qemu-aarch64, not even through -E" || dump "$calls"
done_testing
