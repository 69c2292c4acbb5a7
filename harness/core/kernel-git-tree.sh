#!/bin/bash
# The tree of a git commit for kernel-build.sh (KERNEL=git:PATH@REF; harness/kernel.c):
#   MTB_GIT, MTB_GIT_COMMIT  the work tree and the commit
#   MTB_BASE_TREE    optional: the base kernel's build tree; copied as hard links (cheap:
#                    kernel-build.sh copies this tree again with cp -a before it builds
#                    in the copy, and a changed file is unlinked here before it is
#                    written, so the base's files are never written), and only the
#                    files of the commit whose content differs (blob ids compared)
#                    written over it, so make rebuilds only what they touch (files the
#                    base has and the commit has not are left)
#   MTB_PREP         the directory to make (kernel-build.sh then builds from it as its
#                    base tree)
set -euo pipefail
tree="$MTB_PREP"
MTB_OUT=$(dirname "$MTB_PREP")
# a git tree's commit written over a copy of the base tree: only the files whose
# content differs (blob ids compared), so make rebuilds only what they touch
git_sync() {
    export LC_ALL=C
    local ls="$MTB_OUT/git-ls-tree" have="$MTB_OUT/git-have" changed="$MTB_OUT/git-changed"
    git -C "$MTB_GIT" ls-tree -r --full-tree "$MTB_GIT_COMMIT" |
        awk -F'\t' '{ split($1, a, " "); if (a[2] == "blob") print a[3] "\t" $2 "\t" a[1] }' | sort > "$ls"
    # the commit's paths that are regular files in the tree (find, not a test per path)
    (cd "$tree" && find . -type f -printf '%P\n') | sort > "$have.files"
    cut -f2 "$ls" | sort | comm -12 - "$have.files" > "$have.paths"
    (cd "$tree" && git hash-object --no-filters --stdin-paths < "$have.paths") > "$have.ids"
    paste "$have.ids" "$have.paths" > "$have.unsorted"
    # symlinks: a link's blob is its target
    (cd "$tree" && awk -F'\t' '$3 == "120000" { print $2 }' "$ls" | while IFS= read -r f; do
        if [ -L "$f" ]; then printf '%s\t%s\n' "$(printf '%s' "$(readlink "$f")" | git hash-object --stdin)" "$f"; fi
    done) >> "$have.unsorted"
    sort "$have.unsorted" > "$have"
    rm -f "$have.files" "$have.paths" "$have.ids" "$have.unsorted"
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
    rm -f "$ls" "$have"
}

if [ -n "${MTB_BASE_TREE:-}" ] && [ -d "$MTB_BASE_TREE" ]; then
    echo "== linking the base build tree $MTB_BASE_TREE"
    cp -al "$MTB_BASE_TREE" "$tree"
    if git_sync; then
        exit 0
    fi
    echo "== too many files differ: the commit's whole tree instead"
    rm -rf "$tree"
fi
echo "== exporting ${MTB_GIT_COMMIT:0:12} of $MTB_GIT"
mkdir -p "$tree"
git -C "$MTB_GIT" archive "$MTB_GIT_COMMIT" | tar -x -C "$tree"
