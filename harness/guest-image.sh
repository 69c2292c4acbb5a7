#!/bin/bash
# Make the initramfs of the PLATFORM=vm guest. Called by harness/vm.c with:
#   MTB_ROOT      the project checkout (build/aarch64/*, services/*/recipe.ini)
#   MTB_OUTDIR    where images are kept ($CACHE/guest); named by a hash of their content
#   MTB_BUILDS    service builds to include, one "service variant dir" per line
#   MTB_XSYSROOT  unpacked arm64 -dev packages (libevent for memcached)
# Prints the image's path and content hash on the last line: "<path> <sha256>".
#
# Layout:  /init (build/aarch64/mtbinit)   /mtb/build/{mtebench,mtload}
#   /mtb/build/aarch64/{mteprobe,libmtefault.so}   /mtb/services/*/recipe.ini
#   /mtb/builds/<service>/<variant>/ (bin/..., build.json)   /lib/aarch64-linux-gnu/*.so*
set -euo pipefail
stage=$(mktemp -d "${TMPDIR:-/tmp}/mtb-guest.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"   # the guest's / : services run as the unprivileged user mtebench
cd "$stage"
mkdir -p mtb/build/aarch64 mtb/builds mtb/services lib/aarch64-linux-gnu etc root tmp proc sys dev run usr/bin bin
B="$MTB_ROOT/build"
install -m 755 "$B/aarch64/mtbinit" init
install -m 755 "$B/aarch64/mtebench" "$B/aarch64/mtload" mtb/build/
install -m 755 "$B/aarch64/mteprobe" mtb/build/aarch64/
install -m 644 "$B/aarch64/libmtefault.so" mtb/build/aarch64/
for r in "$MTB_ROOT"/services/*/recipe.ini; do
    s=$(basename "$(dirname "$r")")
    mkdir -p "mtb/services/$s"
    cp "$r" "mtb/services/$s/"
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
printf 'root:x:0:0:root:/root:/bin/sh\nmtebench:x:999:999:mtebench:/tmp:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > etc/passwd
printf 'root:x:0:\nmtebench:x:999:\nnogroup:x:65534:\n' > etc/group
printf 'hosts: files\npasswd: files\ngroup: files\n' > etc/nsswitch.conf
printf '127.0.0.1 localhost\n' > etc/hosts

# shared libraries: everything the ELF files need, recursively
dirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu "$MTB_XSYSROOT/usr/lib/aarch64-linux-gnu" "$MTB_XSYSROOT/lib/aarch64-linux-gnu")
find_lib() { for d in "${dirs[@]}"; do [ -e "$d/$1" ] && { echo "$d/$1"; return 0; }; done; return 1; }
declare -A seen=()
queue=()
while IFS= read -r -d '' f; do
    if head -c 4 "$f" | grep -q ELF; then queue+=("$f"); fi
done < <(find init mtb -type f -print0)
while [ ${#queue[@]} -gt 0 ]; do
    f=${queue[0]}; queue=("${queue[@]:1}")
    for n in $(aarch64-linux-gnu-readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
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
echo "$img $hash"
