#!/bin/bash
# Build PostgreSQL's server for one variant and target. Env contract: see
# services/memcached/build.sh (MTB_SRC MTB_WORK MTB_OUT MTB_TARGET MTB_CC
# MTB_CFLAGS MTB_PATCHES MTB_HOST MTB_XSYSROOT MTB_JOBS).
#
# From the pristine upstream tarball (not Debian's patched tree, whose
# pkglibdir override points at the host's /usr/lib/postgresql). Only what a
# server needs is built and installed under MTB_OUT:
#   bin/postgres bin/initdb bin/pg_ctl, lib/libpq.so* (initdb and pg_ctl use
#   it), lib/postgresql/{plpgsql,dict_snowball}.so (initdb loads both),
#   share/postgresql/* (catalog, samples, timezonesets, tsearch data), and the
#   clients the vm guest needs in place of the host's (bin/pgbench, bin/psql,
#   bin/pg_isready: the driver, the counters and the readiness check).
# No ICU, LLVM, readline, zlib or OpenSSL; time zones from /usr/share/zoneinfo.
# Not built: encoding conversion modules (use UTF8 server and client), contrib,
# other client programs (on host and emu the host's Debian psql/pgbench drive it).
# Relocatable: PostgreSQL finds share/ and lib/ relative to its binary, and
# libpq through an $ORIGIN rpath, so MTB_OUT may be moved after the build.
#
# Incremental builds (recipe `tree_from`, e.g. the bug variants): MTB_TREE
# is the base variant's built tree (kept by the harness); it is copied with
# its mtimes, MTB_PATCHES (only the patches beyond the base's) applied, and
# make recompiles the files they touch and, through configure's
# --enable-depend, every file including a touched header. The objects
# recompiled are listed in MTB_OUT/recompiled.txt.
set -euo pipefail
cd "$MTB_WORK"
apply_patches() {
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        echo "applying $(basename "$p")"
        patch -p1 --no-backup-if-mismatch < "$p"
    done <<< "$MTB_PATCHES"
}
touch .before
if [ -n "${MTB_TREE:-}" ]; then
    echo "starting from the object tree $MTB_TREE"
    cp -a "$MTB_TREE"/. .
    cd postgresql-*/
    sleep 1  # make compares mtimes: patched files must be strictly newer
    touch ../.before
    apply_patches
else
    tar xjf "$MTB_SRC"
    cd postgresql-*/
    apply_patches
    hostarg=""
    [ -n "$MTB_HOST" ] && hostarg="--host=$MTB_HOST"
    ./configure $hostarg --prefix="$MTB_OUT" --enable-depend \
        --without-icu --without-llvm --without-readline --without-zlib --without-openssl \
        --with-system-tzdata=/usr/share/zoneinfo \
        CC="$MTB_CC" CFLAGS="-O2 -g $MTB_CFLAGS" \
        > configure.log 2>&1 || { tail -n 40 configure.log; exit 1; }
fi

# libpq via $ORIGIN/../lib instead of the (temporary) install path
mk=(-j"$MTB_JOBS" rpathdir='$$ORIGIN/../lib')
make "${mk[@]}" -C src/port
make "${mk[@]}" -C src/common
make "${mk[@]}" -C src/backend
make "${mk[@]}" -C src/backend/snowball
make "${mk[@]}" -C src/pl/plpgsql/src
make "${mk[@]}" -C src/interfaces/libpq
make "${mk[@]}" -C src/fe_utils
make "${mk[@]}" -C src/bin/initdb
make "${mk[@]}" -C src/bin/pg_ctl
make "${mk[@]}" -C src/bin/pgbench
make "${mk[@]}" -C src/bin/psql
make "${mk[@]}" -C src/bin/scripts pg_isready

# prefix again: a tree copied from a base build was configured with the base's
for d in src/backend src/backend/snowball src/pl/plpgsql/src src/interfaces/libpq \
         src/bin/initdb src/bin/pg_ctl src/bin/pgbench src/bin/psql src/timezone/tznames; do
    make "${mk[@]}" -C "$d" install prefix="$MTB_OUT" > /dev/null
done
install -m 755 src/bin/scripts/pg_isready "$MTB_OUT/bin/"
rm -rf "$MTB_OUT/include" "$MTB_OUT/lib/pkgconfig" "$MTB_OUT"/lib/*.a
find . -name '*.o' -newer ../.before | sed 's|^\./||' | sort > "$MTB_OUT/recompiled.txt"
echo "recompiled $(wc -l < "$MTB_OUT/recompiled.txt") objects"
