#!/bin/bash
# Make the initramfs of the PLATFORM=vm guest. Called by harness/agent/transport_console.c with:
#   MTB_ROOT      the project checkout (build/aarch64/*, services/*/recipe.ini)
#   MTB_OUTDIR    where images are kept ($CACHE/guest); named by a hash of their content,
#                 found again by a hash of their inputs (inputs-<key>: "<path> <sha256>")
#   MTB_BUILDS    service builds to include, one "service variant dir" per line
#   MTB_SEEDS     setup copies to include, one "setup/<name> dir" per line (dir: the
#                 controller's $CACHE/setup/<name>, named by its content key), at
#                 /mtb/seed/setup/<name>: the guest's runs copy them instead of running
#                 their setup (MTEBENCH_SEED, harness/run/service.c)
#   MTB_XSYSROOT  unpacked arm64 -dev packages (libevent for memcached)
#   MTB_GUESTROOT unpacked arm64 bash and busybox (setup and counter scripts);
#                 on an arm64 host the host's own /bin/bash and busybox serve
#   MTB_SCUDO     Scudo's aarch64 library (ALLOCATOR=scudo), put at the same path
#                 in the guest; empty: none
# Prints the image's path and content hash on the last line: "<path> <sha256>".
#
# Layout:  /init (build/aarch64/mtbinit)   /mtb/build/{mtebench,mtload}
#   /mtb/build/aarch64/{mteprobe,detectsweep,mtework,libmtefault.so,libmtealloc.so,libmtestack.so}   /mtb/services/*/ (recipes, scripts)
#   /mtb/services/*/bugs/<id>/*.hex (the bug catalogue's triggers)
#   /mtb/builds/<service>/<variant>/ (bin/..., build.json)   /lib/aarch64-linux-gnu/*.so*
#   /mtb/seed/setup/<name>/ (MTB_SEEDS)
#   /bin/bash, /bin/sh -> bash, /bin/busybox and links for the few tools the
#   services' scripts use; /usr/local/bin: links to the builds' programs (a
#   service's own clients, e.g. PostgreSQL's pgbench, psql, pg_isready)
set -euo pipefail
G=${MTB_GUESTROOT:-/opt/mtebench/guest-arm64}

# Fast path: an image made before from the same inputs. Cache builds are
# immutable (their directory names carry their content keys), so the inputs
# are this script, the build lines, the project's aarch64 programs, the
# services' run-time files, the unpacked package roots' stamps and the
# host's arm64 libraries (names, sizes, times).
inkey=$( {
    cat "$0"
    printf '%s\n' "$MTB_BUILDS" "${MTB_SEEDS:-}"
    sha256sum "$MTB_ROOT"/build/aarch64/{mtbinit,mtebench,mtload,mteprobe,detectsweep,mtework,libmtefault.so,libmtestack.so}
    [ -z "${MTB_SCUDO:-}" ] || sha256sum "$MTB_SCUDO"
    find "$MTB_ROOT"/services -maxdepth 2 -type f ! -name build.sh -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    find "$MTB_ROOT"/services -path '*/bugs/*/*.hex' -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
    cat "$MTB_XSYSROOT/.stamp" "$G/.stamp" 2>/dev/null || true
    ls -lL --time-style=+%s /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu 2>/dev/null || true
} | sha256sum | cut -c1-32)
keyf="$MTB_OUTDIR/inputs-$inkey"
if [ -s "$keyf" ]; then
    read -r img hash < "$keyf"
    if [ -s "$img" ]; then
        echo "$img $hash"
        exit 0
    fi
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/mtb-guest.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"   # the guest's / : services run as the unprivileged user mtebench
cd "$stage"
mkdir -p mtb/build/aarch64 mtb/builds mtb/services lib/aarch64-linux-gnu etc root tmp proc sys dev run usr/bin bin
B="$MTB_ROOT/build"
install -m 755 "$B/aarch64/mtbinit" init
install -m 755 "$B/aarch64/mtebench" "$B/aarch64/mtload" mtb/build/
install -m 755 "$B/aarch64/mteprobe" "$B/aarch64/detectsweep" "$B/aarch64/mtework" mtb/build/aarch64/
install -m 644 "$B/aarch64/libmtefault.so" "$B/aarch64/libmtealloc.so" "$B/aarch64/libmtestack.so" mtb/build/aarch64/
if [ -n "${MTB_SCUDO:-}" ]; then
    mkdir -p "$(dirname "${MTB_SCUDO#/}")"
    install -m 644 "$MTB_SCUDO" "${MTB_SCUDO#/}"
fi
# each service's recipe with its run-time files (setup and counter scripts,
# configuration templates)
for r in "$MTB_ROOT"/services/*/recipe.ini; do
    sd=$(dirname "$r")
    s=$(basename "$sd")
    mkdir -p "mtb/services/$s"
    find "$sd" -maxdepth 1 -type f ! -name build.sh -exec cp {} "mtb/services/$s/" \;
    # the bug catalogue's request bytes (trigger.hex, dns-answer.hex): a
    # detection trial's far run (`mtebench detect --platform vm`)
    for h in "$sd"/bugs/*/*.hex; do
        [ -f "$h" ] || continue
        b=$(basename "$(dirname "$h")")
        mkdir -p "mtb/services/$s/bugs/$b"
        cp "$h" "mtb/services/$s/bugs/$b/"
    done
done
while read -r svc var dir; do
    [ -n "$svc" ] || continue
    # a build directory of the cache, never anything else
    if [ -z "$var" ] || [ -z "$dir" ] || [ ! -f "$dir/build.json" ]; then
        echo "guest-image: bad build line '$svc $var $dir' (want: service variant cache-dir)" >&2; exit 1
    fi
    mkdir -p "mtb/builds/$svc/$var"
    cp -a "$dir"/. "mtb/builds/$svc/$var/"
    rm -rf "mtb/builds/$svc/$var/work"
done <<< "$MTB_BUILDS"
while read -r rel dir; do
    [ -n "$rel" ] || continue
    case "$rel" in
        setup/*/* | setup/ | */..* ) echo "guest-image: bad seed line '$rel $dir'" >&2; exit 1 ;;
        setup/*) ;;
        *) echo "guest-image: bad seed line '$rel $dir' (want: setup/<name> cache-dir)" >&2; exit 1 ;;
    esac
    [ -d "$dir" ] || { echo "guest-image: seed $dir is not a directory" >&2; exit 1; }
    mkdir -p "mtb/seed/setup"
    cp -a "$dir" "mtb/seed/$rel"
done <<< "${MTB_SEEDS:-}"
# a shell and tools for the services' setup and counter scripts
for prog in bash busybox; do
    src="$G/bin/$prog"
    [ -x "$src" ] || { [ "$(uname -m)" = aarch64 ] && src=$(command -v "$prog" || true); }
    [ -x "$src" ] || { echo "guest-image: no arm64 $prog (make deps unpacks it into $G)" >&2; exit 1; }
    install -m 755 "$src" "bin/$prog"
done
ln -sf bash bin/sh
for a in awk basename cat chmod cp cut date dirname env grep head id kill ln ls mkdir mktemp mv \
         printf ps rm sed seq sleep sort tail tee tr true false uname wc xargs; do
    ln -sf busybox "bin/$a"
done
mkdir -p usr/local/bin
for d in mtb/builds/*/*/bin; do
    [ -d "$d" ] || continue
    for f in "$d"/*; do
        [ -f "$f" ] && [ -x "$f" ] && [ ! -e "usr/local/bin/$(basename "$f")" ] && ln -s "/$f" "usr/local/bin/$(basename "$f")"
    done
done
printf 'root:x:0:0:root:/root:/bin/sh\nmtebench:x:999:999:mtebench:/tmp:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > etc/passwd
printf 'root:x:0:\nmtebench:x:999:\nnogroup:x:65534:\n' > etc/group
printf 'hosts: files\npasswd: files\ngroup: files\n' > etc/nsswitch.conf
printf '127.0.0.1 localhost\n' > etc/hosts

# shared libraries: everything the ELF files need, recursively
dirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu "$MTB_XSYSROOT/usr/lib/aarch64-linux-gnu" "$MTB_XSYSROOT/lib/aarch64-linux-gnu"
      "$G/lib/aarch64-linux-gnu" "$G/usr/lib/aarch64-linux-gnu")
find_lib() { for d in "${dirs[@]}"; do [ -e "$d/$1" ] && { echo "$d/$1"; return 0; }; done; return 1; }
declare -A seen=()
queue=()
while IFS= read -r -d '' f; do
    if head -c 4 "$f" | grep -q ELF; then queue+=("$f"); fi
done < <(find init mtb bin ${MTB_SCUDO:+"${MTB_SCUDO#/}"} -path mtb/seed -prune -o -type f -print0)
while [ ${#queue[@]} -gt 0 ]; do
    f=${queue[0]}; queue=("${queue[@]:1}")
    dyn=$(aarch64-linux-gnu-readelf -d "$f" 2>/dev/null)
    # $ORIGIN-relative run paths (PostgreSQL's programs find libpq in ../lib):
    # such libraries are in the image already
    rp=$(sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' <<< "$dyn" | sed "s|\$ORIGIN|$(dirname "$f")|g; s|\${ORIGIN}|$(dirname "$f")|g")
    for n in $(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<< "$dyn"); do
        own=""
        IFS=: read -ra rpd <<< "$rp"
        for d in "${rpd[@]}"; do [ -n "$d" ] && [ -e "$d/$n" ] && own=1; done
        [ -n "$own" ] && continue
        [ -n "${seen[$n]:-}" ] && continue
        seen[$n]=1
        p=$(find_lib "$n") || { echo "guest-image: library $n (needed by $f) not found" >&2; exit 1; }
        cp -L "$p" "lib/aarch64-linux-gnu/$n"
        queue+=("lib/aarch64-linux-gnu/$n")
    done
done
ld=$(find_lib ld-linux-aarch64.so.1) || { echo "guest-image: no arm64 dynamic loader (libc6:arm64)" >&2; exit 1; }
cp -L "$ld" lib/aarch64-linux-gnu/ld-linux-aarch64.so.1
ln -sf aarch64-linux-gnu/ld-linux-aarch64.so.1 lib/ld-linux-aarch64.so.1
aarch64-linux-gnu-strip --strip-unneeded lib/aarch64-linux-gnu/*.so* 2>/dev/null || true

find . -exec touch -h -d @0 {} +
hash=$(tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . | sha256sum | cut -c1-64)
mkdir -p "$MTB_OUTDIR"
img="$MTB_OUTDIR/initramfs-${hash:0:16}.cpio.gz"
if [ ! -s "$img" ]; then
    find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1 > "$img.tmp.$$"
    mv "$img.tmp.$$" "$img"
    echo "guest-image: made $img ($(du -h "$img" | cut -f1))" >&2
fi
echo "$img $hash" > "$keyf.tmp.$$" && mv "$keyf.tmp.$$" "$keyf"
echo "$img $hash"
