#!/bin/bash
# Kernels from a git tree (KERNEL=git:PATH@REF) or a patch series
# (KERNEL=stock+PATCHDIR): bad input is a named error, exit non-zero, before
# anything is built, and nothing is left in the kernel cache (a cache of the
# test's own). A tree that passes the checks but whose config fails leaves
# nothing either. (~5 s; the builds that succeed are in tests/long/kernel-tree.t)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
export MTEBENCH_CACHE="$T_TMP/cache"
K="$T_TMP/k"
gitc() { git -C "$1" -c user.email=t@e.invalid -c user.name=t commit -q "${@:2}"; }
kb() { "$M" kernel build "$1" > "$T_TMP/out" 2>&1; }
expect() { # expect SPEC 'message' NAME
    kb "$1"; local rc=$?
    ok "$([ "$rc" != 0 ] && grep -qF -- "$2" "$T_TMP/out"; echo $?)" "$3: exit $rc, \"$2\"" || dump "$T_TMP/out"
}

mkdir -p "$K/notk" && git -C "$K/notk" init -q && gitc "$K/notk" --allow-empty -m empty
expect "git:$K/notk@HEAD" "not a Linux kernel tree" "a tree that is not a kernel"
expect "git:$K/notk@nosuchref" "no commit 'nosuchref'" "a ref that does not exist"
expect "git:$K/nosuchdir@HEAD" "no directory" "a directory that does not exist"
expect "git:$K/notk" "want git:PATH@REF" "no ref"
mkdir -p "$K/plain" && expect "git:$K/plain@HEAD" "is not a git work tree" "not a git work tree"

# a kernel-shaped tree without MTE, then dirty, then with MTE but no real build
T="$K/fake"; mkdir -p "$T/arch/arm64" && git -C "$T" init -q
printf 'VERSION = 6\nPATCHLEVEL = 12\n' > "$T/Makefile"
printf 'config ARM64\n\tbool\n' > "$T/arch/arm64/Kconfig"
git -C "$T" add -A && gitc "$T" -m "no MTE"
expect "git:$T@HEAD" "has no CONFIG_ARM64_MTE" "a kernel without CONFIG_ARM64_MTE: refused"
printf 'config ARM64\n\tbool\n\nconfig ARM64_MTE\n\tbool "MTE"\n' > "$T/arch/arm64/Kconfig"
expect "git:$T@HEAD" "uncommitted changes (a dirty tree)" "a dirty tree"
gitc "$T" -am "MTE"
if [ -f /usr/src/linux-source-6.12.tar.xz ] || [ -n "${KERNEL_SOURCE:-}" ]; then
    expect "git:$T@HEAD" "failed" "checks pass but the build (its config) fails: named"
else
    ok 0 "# SKIP no linux-source tarball (make deps)"
fi

# bisect's kernel axis checks the same before anything is built (exit 2)
gitc "$T" --allow-empty -m "second"
gitc "$K/notk" --allow-empty -m "second"
bis() { "$M" bisect --axis kernel --service memcached --mode sync --out "$T_TMP/bis" "$@" > "$T_TMP/out" 2>&1; }
bis --repo "$T" --good HEAD --bad HEAD~1
ok "$([ $? = 2 ] && grep -q 'not an ancestor of bad .*swapped' "$T_TMP/out"; echo $?)" "kernel axis: good and bad swapped" || dump "$T_TMP/out"
bis --repo "$K/notk" --good HEAD~1 --bad HEAD
ok "$([ $? = 2 ] && grep -q 'not a Linux kernel tree' "$T_TMP/out"; echo $?)" "kernel axis: a tree that is not a kernel" || dump "$T_TMP/out"
echo dirty >> "$T/Makefile"
bis --repo "$T" --good HEAD~1 --bad HEAD
ok "$([ $? = 2 ] && grep -q 'dirty tree' "$T_TMP/out"; echo $?)" "kernel axis: a dirty tree" || dump "$T_TMP/out"
git -C "$T" checkout -q Makefile
bis --repo "$T" --good nosuch --bad HEAD
ok "$([ $? = 2 ] && grep -q "no commit 'nosuch'" "$T_TMP/out"; echo $?)" "kernel axis: a ref that does not exist" || dump "$T_TMP/out"
ok "$([ ! -e "$T_TMP/bis" ]; echo $?)" "kernel axis: nothing written for bad input"

# patch series
expect "stock+$K/nosuch" "no patch directory" "a series directory that does not exist"
mkdir -p "$K/empty" && expect "stock+$K/empty" "no patches in" "an empty series"
mkdir -p "$K/s" && echo "0001-missing.patch" > "$K/s/series"
expect "stock+$K/s" "names 0001-missing.patch, which does not exist" "a series naming a missing patch"
expect "nosuch+$K/s" "'nosuch' is not a named kernel" "an unknown base kernel"

find "$MTEBENCH_CACHE" -mindepth 2 -maxdepth 2 > "$T_TMP/left"; left=$(grep -Evc "/kernels/(.lock|.*\.failed\.log)$" "$T_TMP/left")
is "$left" 0 "nothing half-built left in the kernel cache" || dump "$T_TMP/left"
# compare-kernels names a bad one before any run (the shared cache: memcached built by other tests)
MTEBENCH_CACHE= timeout -k 5 120 "$M" compare-kernels --service memcached --mode sync --platform vm --kernels "git:$K/notk@HEAD,stock" \
    > "$T_TMP/out" 2>&1
rc=$?
ok "$([ "$rc" != 0 ] && grep -qF "not a Linux kernel tree" "$T_TMP/out"; echo $?)" \
    "compare-kernels with a mix: the bad one named, exit $rc" || dump "$T_TMP/out"
done_testing
