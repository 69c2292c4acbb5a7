#!/bin/bash
# Build one named arm64 kernel. Called by `mtebench kernel build` (harness/kernel.c) with:
#   MTB_KSRC         Debian linux-source tarball (verified by its sha256 in the key)
#   MTB_OUT          build output dir: Image, config, System.map, tree/ (in-tree build)
#   MTB_BASE_TREE    optional: build tree of the base kernel; copied and rebuilt
#                    incrementally (same fragments, only patches/localversion differ)
#   MTB_FRAGMENTS    config fragments, one per line (merged on tinyconfig)
#   MTB_PATCHES      patch files, one per line
#   MTB_LOCALVERSION CONFIG_LOCALVERSION (uname -r suffix)
#   MTB_CROSS        CROSS_COMPILE prefix ("" on arm64)   MTB_JOBS  make -j
set -euo pipefail
tree="$MTB_OUT/tree"
kmake() { make -C "$tree" ARCH=arm64 CROSS_COMPILE="$MTB_CROSS" -j"$MTB_JOBS" "$@"; }

if [ -n "${MTB_BASE_TREE:-}" ] && [ -d "$MTB_BASE_TREE" ]; then
    echo "== incremental: copying the base build tree $MTB_BASE_TREE"
    # cp -a keeps timestamps, so make rebuilds only what the patches touch
    cp -a "$MTB_BASE_TREE" "$tree"
    # the base was built unpatched; its tree must be pristine
    if [ -f "$tree/.mtb-patched" ]; then echo "base tree is patched; refusing" >&2; exit 1; fi
else
    echo "== unpacking $MTB_KSRC"
    mkdir -p "$tree"
    tar -xJf "$MTB_KSRC" -C "$tree" --strip-components=1
fi

while IFS= read -r p; do
    [ -n "$p" ] || continue
    echo "== applying $(basename "$p")"
    patch -d "$tree" -p1 --no-backup-if-mismatch < "$p"
    echo "$(basename "$p")" >> "$tree/.mtb-patched"
done <<< "$MTB_PATCHES"

echo "== configuring: tinyconfig + fragments"
frags=()
while IFS= read -r f; do [ -n "$f" ] && frags+=("$f"); done <<< "$MTB_FRAGMENTS"
lv="$MTB_OUT/localversion.config"
printf 'CONFIG_LOCALVERSION="%s"\n' "$MTB_LOCALVERSION" > "$lv"
kmake tinyconfig > /dev/null
(cd "$tree" && ARCH=arm64 CROSS_COMPILE="$MTB_CROSS" \
    scripts/kconfig/merge_config.sh -m .config "${frags[@]}" "$lv")
kmake olddefconfig > /dev/null
# every option the fragments ask for must be in the final .config (options
# this source does not define, e.g. BASE_FULL in 6.12 or BASE_SMALL in 6.1, are skipped)
syms=$(cd "$tree" && find . -name 'Kconfig*' -print0 | xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' | sort -u)
bad=0
for f in "${frags[@]}" "$lv"; do
    while IFS= read -r line; do
        case "$line" in
        CONFIG_*=*) sym=${line%%=*} ;;
        "# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
        *) continue ;;
        esac
        grep -qxF "$sym" <<< "$syms" || { echo "config: $sym does not exist in this source (skipped)"; continue; }
        case "$line" in
        CONFIG_*=*) grep -qxF "$line" "$tree/.config" || { echo "config: $line did not hold (dependency missing?)"; bad=1; } ;;
        *) if grep -q "^$sym=" "$tree/.config"; then echo "config: $sym should be off"; bad=1; fi ;;
        esac
    done < "$f"
done
grep -qx 'CONFIG_ARM64_MTE=y' "$tree/.config" || { echo "CONFIG_ARM64_MTE is not set: refusing" >&2; exit 1; }
[ "$bad" = 0 ] || echo "warning: some fragment options did not hold (see above)"

echo "== building Image"
kmake Image
cp "$tree/arch/arm64/boot/Image" "$MTB_OUT/Image"
cp "$tree/.config" "$MTB_OUT/config"
cp "$tree/System.map" "$MTB_OUT/System.map"
kmake -s kernelrelease > "$MTB_OUT/kernelrelease"
echo "== done: $(cat "$MTB_OUT/kernelrelease"), $(stat -c %s "$MTB_OUT/Image") bytes"
