#!/bin/bash
# The version stamp follows the commit without `make clean`: a clone is
# built, a commit made, and the rebuild's programs and records carry the new
# commit's version; only the version object is recompiled. Builds mtload and
# mtebench in a clone (about 60 s on 2 cores; the clone's build is reused
# by nothing else).
. "$(dirname "$0")/../../lib.sh"
command -v git >/dev/null || skip_all "no git"
C="$T_TMP/clone"
git clone -q "$ROOT" "$C" || skip_all "cannot clone $ROOT"
cd "$C" || exit 1
git config user.email t@example.invalid; git config user.name test
make -s -j"$(nproc)" build/mtload build/mtebench > "$T_TMP/b1.out" 2>&1
is "$?" 0 "the clone builds" || dump "$T_TMP/b1.out"
v1=$(git describe --always --dirty --tags)
is "$(build/mtload --version)" "mtload $v1" "mtload carries the clone's commit"
is "$(build/mtebench --version)" "mtebench $v1" "mtebench carries the clone's commit"

echo "# a new commit" >> README.md
git commit -qam "a new commit"
v2=$(git describe --always --dirty --tags)
make -j"$(nproc)" build/mtload build/mtebench > "$T_TMP/b2.out" 2>&1
is "$?" 0 "rebuilt without make clean" || dump "$T_TMP/b2.out"
is "$(build/mtload --version)" "mtload $v2" "mtload now carries the new commit"
is "$(build/mtebench --version)" "mtebench $v2" "mtebench now carries the new commit"
is "$(grep -c '^  CC ' "$T_TMP/b2.out")" 1 "only the version object was recompiled (CC lines: $(grep '^  CC ' "$T_TMP/b2.out" | tr '\n' ' '))"
ok "$(grep -q '^  CC     build/gen/version.c' "$T_TMP/b2.out"; echo $?)" "the build prints one short line per file"
make build/mtload > "$T_TMP/b3.out" 2>&1
ok "$(grep -q 'up to date\|Nothing to be done' "$T_TMP/b3.out"; echo $?)" "an unchanged tree rebuilds nothing" || dump "$T_TMP/b3.out"

# a record made after the commit carries it: one short run of an existing
# memcached build (never a build of its own)
bd=$(ls -d "${MTEBENCH_CACHE:-/var/cache/mtebench}"/builds/memcached/plain-aarch64-* 2>/dev/null | head -1)
if [ -n "$bd" ]; then
    timeout 120 build/mtebench run --service memcached --platform emu --duration 1 --warmup 0 --build "$bd" \
        --results "$T_TMP/r" > "$T_TMP/run.out" 2>&1
    is "$(jq -r .mtebench_version "$T_TMP"/r/*/record.json 2>/dev/null)" "$v2" \
       "a record made after the commit carries its version" || dump "$T_TMP/run.out"
else
    diag "no memcached build in the cache: the record check is skipped"
fi
touch common/version.h
make V=1 build/mtload > "$T_TMP/b4.out" 2>&1
ok "$(grep -q -- '-MMD -MP -c -o build/obj/loadgen/config.o' "$T_TMP/b4.out"; echo $?)" "V=1 prints the full commands" ||
    dump "$T_TMP/b4.out"
done_testing
