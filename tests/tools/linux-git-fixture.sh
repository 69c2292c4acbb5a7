#!/bin/bash
# linux-git-fixture.sh [SOURCE]: the path of a bare git repository holding Debian's
# /usr/src/linux-source-SOURCE.tar.xz (default 6.12) as one commit (branch main;
# tests/tools/tar2git.py: fixed author and dates, so the commit id is the tarball's).
# Made once per tarball, under a lock, into the cache
# ($MTEBENCH_CACHE/test-fixtures/linux-SOURCE-<sha12>.git, ~330 MB; about 50 s of CPU
# to make), and reused: tests clone it with --shared and a sparse checkout, so a
# kernel git tree costs them seconds (tests/integration/core/kernel-git.t, tests/long/kernel-tree.t).
set -euo pipefail
src=${1:-6.12}
tb=/usr/src/linux-source-$src.tar.xz
[ -f "$tb" ] || { echo "linux-git-fixture: no $tb (make deps)" >&2; exit 1; }
dir=${MTEBENCH_CACHE:-/var/cache/mtebench}/test-fixtures
mkdir -p "$dir"
sha=$(sha256sum "$tb" | cut -c1-12)
repo="$dir/linux-$src-$sha.git"
exec 9> "$dir/.lock"
flock 9
if [ ! -f "$repo/mtb-complete" ]; then
    tmp="$repo.tmp.$$"
    rm -rf "$repo" "$repo".tmp.*   # a half-made one left by a killed run (we hold the lock)
    git init -q --bare -b main "$tmp"
    python3 "$(dirname "$0")/tar2git.py" "$tb" |
        git -C "$tmp" -c pack.compression=1 fast-import --quiet --depth=0 >&2
    git -C "$tmp" rev-parse --verify -q main^{commit} > /dev/null
    touch "$tmp/mtb-complete"
    mv "$tmp" "$repo"
fi
echo "$repo"
