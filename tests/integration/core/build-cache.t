#!/bin/bash
# Builds are cached by a hash of every input: a second build compiles
# nothing, and a changed patch makes a new build while the rest stay cached.
# One build of a service at a time: a build to make waits for another
# mtebench's lock (two plans started at once raced, and a build's rename
# could remove the tree a running service was using); a cached one does not.
# The tree a killed build left behind is removed by the next build.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"

"$M" build --service memcached --platform emu > "$T_TMP/b1.out" 2> "$T_TMP/b1.err"
is "$?" 0 "build the measured variants: plain, tagged, objtag, clang and stacktag"
"$M" build --service memcached --platform emu > "$T_TMP/b2.out" 2> "$T_TMP/b2.err"
is "$(grep -c ' cached ' "$T_TMP/b2.out")" 5 "second build: all five cached"
ok "$(! grep -q 'building' "$T_TMP/b2.err"; echo $?)" "second build compiles nothing"
bin=$(awk '$2=="tagged"{print $5}' "$T_TMP/b2.out")
ok "$(file "$bin" | grep -q 'ARM aarch64'; echo $?)" "tagged build is an aarch64 binary"
info=$(dirname "$(dirname "$bin")")/build.json
ok "$(jq_e '.source_sha256 and .toolchain and (.patches|length) >= 3 and (.cflags|test("memtag"))' "$info" >/dev/null; echo $?)" \
   "build.json records checksum, toolchain, patches and flags"

# a project copy whose tagged patch differs by a comment line
root2="$T_TMP/root"
mkdir -p "$root2/patches"
ln -s "$ROOT/services" "$root2/services"
ln -s "$ROOT/tests" "$root2/tests"
cp -r "$ROOT/patches/memcached" "$root2/patches/"
printf '\nmtebench test: a change of input\n' >> "$root2/patches/memcached/0003-restart-memfile-prot-mte.patch"
# (plain and tagged only: objtag would rebuild too, but costs another minute)
# while another mtebench holds memcached's build lock for 2 s: the cached
# plain build is used at once, the tagged one waits for the lock, says so,
# then builds
lockf="${MTEBENCH_CACHE:-/var/cache/mtebench}/builds/memcached/.lock"
# the tree of a build cut short (a killed harness) is removed by the next
# build made under the lock
stale="$(dirname "$lockf")/tagged-aarch64-000000000000.tmp.999999"
mkdir -p "$stale/work" && echo x > "$stale/work/obj.o"
flock "$lockf" sleep 2 & holder=$!
sleep 0.3
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t0=$(ms)
MTEBENCH_ROOT="$root2" "$M" build --service memcached --platform emu --variant plain > "$T_TMP/b3.out" 2> "$T_TMP/b3p.err"
rc=$? t1=$(ms)
[ $rc = 0 ] && MTEBENCH_ROOT="$root2" "$M" build --service memcached --platform emu --variant tagged >> "$T_TMP/b3.out" 2> "$T_TMP/b3.err"
rc=$? t2=$(ms)
wait $holder
is "$rc" 0 "build with a changed patch"
ok "$( [ $((t1 - t0)) -lt 1500 ] && ! grep -q waiting "$T_TMP/b3p.err"; echo $?)" \
   "a cached build is used without waiting for the lock ($((t1 - t0)) ms)" || dump "$T_TMP/b3p.err"
ok "$(grep -q 'waiting for another build of memcached' "$T_TMP/b3.err" && [ $((t2 - t0)) -ge 1700 ]; echo $?)" \
   "a build to make waits for the lock, saying so ($((t2 - t0)) ms)" || dump "$T_TMP/b3.err"
ok "$( [ ! -e "$stale" ] && grep -q "removing $stale (a build cut short)" "$T_TMP/b3.err"; echo $?)" \
   "an abandoned build tree is removed under the lock, saying so" || dump "$T_TMP/b3.err"
is "$(awk '$2=="plain"{print $4}' "$T_TMP/b3.out")" cached "unchanged plain variant still cached"
is "$(awk '$2=="tagged"{print $4}' "$T_TMP/b3.out")" built "changed patch rebuilds tagged"
ok "$( [ "$(awk '$2=="tagged"{print $5}' "$T_TMP/b3.out")" != "$bin" ]; echo $?)" "under a new key"
rm -rf "$(dirname "$(dirname "$(awk '$2=="tagged"{print $5}' "$T_TMP/b3.out")")")"
done_testing
