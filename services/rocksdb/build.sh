#!/bin/bash
# Build RocksDB's db_bench for one variant and target. Env contract: see
# services/memcached/build.sh (MTB_SRC MTB_WORK MTB_OUT MTB_TARGET MTB_CC
# MTB_CFLAGS MTB_PATCHES MTB_HOST MTB_XSYSROOT MTB_JOBS).
#
# Compiling RocksDB takes ~11 min on 2 cores, and the tagged variant differs
# from the plain one in a handful of .cc files. So the full compile happens once,
# in an object cache shared by all variants:
#
#   <cache>/obj/rocksdb-<base key>/rocksdb-<version>/   (a built source tree)
#
# <cache> is the mtebench cache holding MTB_OUT (<cache>/builds/...); the base
# key hashes everything the plain compile depends on: the source tarball's
# sha256, the compiler's identity, the target, the gflags library and headers,
# the Makefile environment below and BASE_ABI (bump it when changing how the
# base tree is built). Variant flags and patches are not in it. An interrupted
# base build (<key>.tmp) is resumed by the next build that needs it.
#
# - A variant without patches and flags (plain) installs the tree's db_bench.
# - A variant with patches copies the tree into MTB_WORK (mtimes kept), applies
#   the patches (which touch mtimes) and runs make again: only the patched files
#   and their dependents are recompiled, and only those with MTB_CFLAGS (added
#   last on the command line). The list is written to MTB_OUT/recompiled.txt.
# - A variant with flags but no patches is built in full in MTB_WORK.
# The first variant to need the base tree builds it (under a lock), so any
# order of variant builds works, and a clean cache pays the compile once.
set -euo pipefail

cache=${MTB_OUT%/builds/*}
objroot=$cache/obj
mkdir -p "$objroot"

CXX=${MTB_CC/%gcc/g++}
if [ -n "$MTB_HOST" ]; then
    AR=$MTB_HOST-ar
else
    AR=ar
fi
# gflags for db_bench: from the cross sysroot (libgflags-dev is not
# co-installable as :arm64), copied into the work directory first so that the
# build does not depend on the shared sysroot afterwards, and linked statically
# so that db_bench needs nothing beyond libc6 and libstdc++6.
gflags=$MTB_WORK/gflags
mkdir -p "$gflags/lib" "$gflags/include"
if [ -n "$MTB_HOST" ]; then
    gsrc=$MTB_XSYSROOT/usr
    glib=$gsrc/lib/$MTB_HOST
else
    gsrc=/usr
    glib=/usr/lib/$(gcc -dumpmachine)
fi
[ -f "$glib/libgflags.a" ] || { echo "rocksdb: $glib/libgflags.a missing (make deps installs libgflags-dev)"; exit 1; }
cp "$glib/libgflags.a" "$gflags/lib/"
cp -r "$gsrc/include/gflags" "$gflags/include/"


# RocksDB's Makefile takes its platform from the environment
export CC="$MTB_CC" CXX AR TARGET_OS=Linux PORTABLE=1 DEBUG_LEVEL=0
[ "$MTB_TARGET" = aarch64 ] && export TARGET_ARCHITECTURE=aarch64
# -DZLIB among the variant's flags asks for zlib in the whole tree (RocksDB's
# own detection then defines ZLIB and links -lz): a shared object tree of its
# own, since the macro changes every file that includes util/compression.h.
# Only the bug builds RocksDB #6014 needs ask for it (compressed blocks).
zlib=""
case " $MTB_CFLAGS " in *" -DZLIB "*) zlib=yes ;; esac
for lib in SNAPPY ZLIB BZIP LZ4 ZSTD NUMA TBB JEMALLOC TCMALLOC LIBURING MEMKIND BENCHMARK; do
    [ "$lib" = ZLIB ] && [ -n "$zlib" ] && continue
    export ROCKSDB_DISABLE_$lib=1
done
export EXTRA_CXXFLAGS="-g0 -I$gflags/include" EXTRA_CFLAGS="-g0" EXTRA_LDFLAGS="-L$gflags/lib"
# No .d dependency files: generating them covers every test source too (~2 min).
# Objects still depend on their .cc; a patch that edits an existing header
# makes the variant build in full (see below).
export SKIP_DEPENDS=1

# Variant flags go last on the compile line, after the Makefile's own
# -march=armv8-a+crc+crypto (gcc takes the last -march). Keep crc+crypto.
variant_flags=""
for f in $MTB_CFLAGS; do
    case "$f" in
        -DZLIB) ;;  # the tree's, above
        -march=*) variant_flags="$variant_flags $f+crc+crypto" ;;
        *) variant_flags="$variant_flags $f" ;;
    esac
done
hook='CXXFLAGS += $(MTB_VARIANT_FLAGS)'

# The base tree's key: every input of the plain compile. Bump BASE_ABI when
# changing how the base tree is built in a way the variables below miss.
BASE_ABI=rocksdb-base/1
srcsha=$(sha256sum "$MTB_SRC" | cut -c1-64)
gflagssha=$(cat "$gflags/lib/libgflags.a" "$gflags"/include/gflags/*.h | sha256sum | cut -c1-64)
basekey=$( {
    echo "$BASE_ABI" "$srcsha" "$MTB_TARGET" "$gflagssha" "$hook"
    $CXX --version | head -n1
    env | grep -E '^(CC|CXX|AR|TARGET_OS|TARGET_ARCHITECTURE|PORTABLE|DEBUG_LEVEL|SKIP_DEPENDS|ROCKSDB_DISABLE_[A-Z]+|EXTRA_[A-Z]+FLAGS)=' \
        | sed "s|$MTB_WORK|WORK|g" | sort
} | sha256sum | cut -c1-16)
base=$objroot/rocksdb-${srcsha:0:12}-$basekey

make_db_bench() {  # in a source tree; $1 = variant flags
    make -j"$MTB_JOBS" db_bench MTB_VARIANT_FLAGS="$1" V=1 > make.log 2>&1 \
        || { tail -n 60 make.log; return 1; }
}

unpack() {  # into directory $1, with the variant-flags hook appended to the Makefile
    mkdir -p "$1"
    tar xzf "$MTB_SRC" -C "$1"
    local tree
    tree=$(echo "$1"/rocksdb-*/)
    printf '\n# mtebench: per-variant flags, last on the compile line\n%s\n' "$hook" >> "$tree/Makefile"
}

npatches=$(grep -c . <<< "$MTB_PATCHES" || true)

# files the patches edit that exist in the pristine tree and are not .cc
edits_headers=""
while IFS= read -r p; do
    [ -n "$p" ] || continue
    for f in $(sed -n 's|^--- a/\([^\t ]*\).*|\1|p' "$p"); do
        case "$f" in *.cc) ;; *) tar tzf "$MTB_SRC" "rocksdb-*/$f" --wildcards >/dev/null 2>&1 \
            && edits_headers="$edits_headers $f" ;; esac
    done
done <<< "$MTB_PATCHES"

# An edited header included by .cc files only (by its path from the tree's
# root) needs only those recompiled: they are touched after patching. A
# header another header includes, or a non-header, means a full build.
touch_cc="" edits_full=""
if [ -n "$edits_headers" ]; then
    scan=$MTB_WORK/scan
    mkdir -p "$scan"
    tar xzf "$MTB_SRC" -C "$scan" --wildcards '*.cc' '*.h'
    for f in $edits_headers; do
        inc=$(cd "$scan"/rocksdb-*/ && grep -rlF "#include \"$f\"" --include='*.cc' --include='*.h' . || true)
        case "$f" in *.h) ;; *) inc="non-header" ;; esac
        if [ -z "$inc" ] || grep -qv '\.cc$' <<< "$inc"; then
            edits_full="$edits_full $f"
        else
            touch_cc="$touch_cc $(tr '\n' ' ' <<< "$inc")"
        fi
    done
    rm -rf "$scan"
fi

full=""
if [ "$npatches" = 0 ] && [ -n "${variant_flags// /}" ]; then
    full="flags without patches"
elif [ -n "${edits_full:-}" ]; then
    full="the patches edit existing non-.cc files that headers include (or non-headers):$edits_full"
fi
apply_patches() {  # in a source tree
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        echo "applying $(basename "$p")"
        patch -p1 --no-backup-if-mismatch < "$p"
    done <<< "$MTB_PATCHES"
}

if [ -n "$full" ]; then
    echo "rocksdb: $full: full build in $MTB_WORK"
    unpack "$MTB_WORK/full"
    cd "$MTB_WORK"/full/rocksdb-*/
    apply_patches
    make_db_bench "$variant_flags"
    mkdir -p "$MTB_OUT/bin"
    install -m 755 db_bench "$MTB_OUT/bin/db_bench"
    echo "full build, all objects with:$variant_flags" > "$MTB_OUT/recompiled.txt"
    exit 0
fi

# --- the shared base tree --------------------------------------------------
exec 9> "$base.lock"
flock 9
if [ ! -e "$base/.complete" ]; then
    t0=$(date +%s)
    rm -rf "$base"
    if [ -e "$base.tmp/.unpacked" ]; then
        # an interrupted build: resume it; the objects written last may be
        # truncated, so they are compiled again
        echo "rocksdb: resuming the shared object tree $base"
        find "$base.tmp" -name '*.o' -printf '%T@ %p\n' | sort -n | tail -n $((2 * MTB_JOBS + 2)) \
            | cut -d' ' -f2- | xargs -r rm -f
        rm -f "$base.tmp"/rocksdb-*/db_bench "$base.tmp"/rocksdb-*/*.a
    else
        echo "rocksdb: building the shared object tree $base"
        rm -rf "$base.tmp"
        unpack "$base.tmp"
        touch "$base.tmp/.unpacked"
    fi
    (cd "$base.tmp"/rocksdb-*/ && make_db_bench "")
    echo "$(( $(date +%s) - t0 ))" > "$base.tmp/.build_seconds"
    touch "$base.tmp/.complete"
    mv "$base.tmp" "$base"
    echo "rocksdb: object tree built in $(cat "$base/.build_seconds") s"
else
    echo "rocksdb: reusing the shared object tree $base"
fi

if [ "$npatches" = 0 ]; then
    mkdir -p "$MTB_OUT/bin"
    install -m 755 "$base"/rocksdb-*/db_bench "$MTB_OUT/bin/db_bench"
    echo "object tree: $base" > "$MTB_OUT/objtree.txt"
    exit 0
fi

# --- a patched variant: copy the tree, patch, recompile what changed --------
cp -a "$base"/rocksdb-*/ "$MTB_WORK/"
flock -u 9
cd "$MTB_WORK"/rocksdb-*/
touch "$MTB_WORK/.before"
sleep 1  # make compares mtimes: patched files must be strictly newer
apply_patches
for f in $touch_cc; do touch "$f"; done  # the includers of an edited header
make_db_bench "$variant_flags"
mkdir -p "$MTB_OUT/bin"
install -m 755 db_bench "$MTB_OUT/bin/db_bench"
{
    echo "object tree: $base"
    echo "variant flags (these objects only):$variant_flags"
    echo "recompiled:"
    find . -name '*.o' -newer "$MTB_WORK/.before" | sed 's|^\./|  |' | sort
} > "$MTB_OUT/recompiled.txt"
cat "$MTB_OUT/recompiled.txt"
