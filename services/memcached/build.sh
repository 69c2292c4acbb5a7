#!/bin/bash
# Build memcached for one variant and target. Called by `mtebench build` with:
#   MTB_SRC       verified upstream tarball      MTB_WORK   scratch directory (empty)
#   MTB_OUT       install here (bin/memcached)   MTB_TARGET aarch64 | native
#   MTB_CC        C compiler                     MTB_CFLAGS variant flags
#   MTB_PATCHES   patch files, one per line      MTB_HOST   configure --host triple or empty
#   MTB_XSYSROOT  unpacked arm64 -dev packages (cross builds)   MTB_JOBS  make -j
#   MTB_TREE      empty, or a base variant's built tree (recipe tree_from): copied
#                 with its mtimes, MTB_PATCHES (those beyond the base's) applied
#                 and only what they touch recompiled (automake's dependency
#                 tracking covers headers); the list in MTB_OUT/recompiled.txt
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
    cd memcached-*/
    sleep 1  # make compares mtimes: patched files must be strictly newer
    touch ../.before
    apply_patches
else
    tar xf "$MTB_SRC"
    cd memcached-*/
    apply_patches
    cppflags="" ldflags="" hostarg=""
    if [ -n "$MTB_HOST" ]; then
        hostarg="--host=$MTB_HOST"
        cppflags="-I$MTB_XSYSROOT/usr/include -I$MTB_XSYSROOT/usr/include/$MTB_HOST"
        ldflags="-L$MTB_XSYSROOT/usr/lib/$MTB_HOST"
    fi
    ./configure $hostarg --prefix="$MTB_OUT" --disable-sasl --disable-extstore \
        --disable-docs --disable-coverage \
        CC="$MTB_CC" CFLAGS="-O2 -g $MTB_CFLAGS" CPPFLAGS="$cppflags" LDFLAGS="$ldflags" \
        > configure.log 2>&1 || { tail -n 40 configure.log; exit 1; }
fi
make -j"$MTB_JOBS" memcached
mkdir -p "$MTB_OUT/bin"
install -m 755 memcached "$MTB_OUT/bin/memcached"
find . -name '*.o' -newer ../.before | sed 's|^\./||' | sort > "$MTB_OUT/recompiled.txt"
echo "recompiled $(wc -l < "$MTB_OUT/recompiled.txt") objects"
