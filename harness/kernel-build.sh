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
#   MTB_GIT, MTB_GIT_COMMIT  optional: build this commit of a git work tree instead of
#                    the tarball (over a copy of MTB_BASE_TREE when given: changed files only)
set -euo pipefail
tree="$MTB_OUT/tree"
kmake() { make -C "$tree" ARCH=arm64 CROSS_COMPILE="$MTB_CROSS" -j"$MTB_JOBS" "$@"; }

# a git tree's commit written over a copy of the base tree: only the files whose
# content differs (blob ids compared), so make rebuilds only what they touch
git_sync() {
    export LC_ALL=C
    local ls="$MTB_OUT/git-ls-tree" have="$MTB_OUT/git-have" changed="$MTB_OUT/git-changed"
    git -C "$MTB_GIT" ls-tree -r --full-tree "$MTB_GIT_COMMIT" |
        awk -F'\t' '{ split($1, a, " "); if (a[2] == "blob") print a[3] "\t" $2 "\t" a[1] }' | sort > "$ls"
    (cd "$tree" && cut -f2 "$ls" | while IFS= read -r f; do [ -f "$f" ] && [ ! -L "$f" ] && printf '%s\n' "$f"; done) > "$have.paths"
    (cd "$tree" && git hash-object --no-filters --stdin-paths < "$have.paths") > "$have.ids"
    paste "$have.ids" "$have.paths" | sort > "$have"
    cut -f1,2 "$ls" | comm -23 - "$have" | cut -f2 > "$changed"
    echo "== $(wc -l < "$changed") files of ${MTB_GIT_COMMIT:0:12} differ from the base tree"
    [ "$(wc -l < "$changed")" -le 5000 ] || return 1
    while IFS= read -r f; do
        mode=$(awk -F'\t' -v f="$f" '$2 == f { print $3; exit }' "$ls")
        mkdir -p "$tree/$(dirname "$f")"
        rm -f "$tree/$f"
        if [ "$mode" = 120000 ]; then
            ln -s "$(git -C "$MTB_GIT" cat-file blob "$MTB_GIT_COMMIT:$f")" "$tree/$f"
        else
            git -C "$MTB_GIT" cat-file blob "$MTB_GIT_COMMIT:$f" > "$tree/$f"
            [ "$mode" != 100755 ] || chmod +x "$tree/$f"
        fi
        echo "   $f"
    done < "$changed"
}

if [ -n "${MTB_BASE_TREE:-}" ] && [ -d "$MTB_BASE_TREE" ]; then
    echo "== incremental: copying the base build tree $MTB_BASE_TREE"
    # cp -a keeps timestamps, so make rebuilds only what the patches touch
    cp -a "$MTB_BASE_TREE" "$tree"
    # the base was built unpatched; its tree must be pristine
    if [ -f "$tree/.mtb-patched" ]; then echo "base tree is patched; refusing" >&2; exit 1; fi
    if [ -n "${MTB_GIT:-}" ] && ! git_sync; then
        echo "== too many files differ: the commit's whole tree instead"
        rm -rf "$tree"; mkdir -p "$tree"
        git -C "$MTB_GIT" archive "$MTB_GIT_COMMIT" | tar -x -C "$tree"
    fi
elif [ -n "${MTB_GIT:-}" ]; then
    echo "== exporting ${MTB_GIT_COMMIT:0:12} of $MTB_GIT"
    mkdir -p "$tree"
    git -C "$MTB_GIT" archive "$MTB_GIT_COMMIT" | tar -x -C "$tree"
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
