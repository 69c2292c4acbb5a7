#!/bin/bash
# KERNEL=git:PATH@REF built and booted, cheaply: a git work tree of Debian's
# linux-source (tests/tools/linux-git-fixture.sh: the tarball as one commit, made
# once into the cache; cloned here with --shared and a sparse checkout of init/)
# plus one commit that prints a marker at boot (init/main.c). `kernel build` starts
# from the stock kernel's build tree (hard links, then one copy), writes the one
# file that differs, and make recompiles it and relinks vmlinux; the kernel is
# cached by the commit's tree id, so a warm run builds nothing. Then the kernel
# boots under PLATFORM=vm: the marker on its console, its identity in the record,
# a short memcached run. (The long version, with a slowdown bisected:
# tests/long/kernel-tree.t.)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
src=${KERNEL_SOURCE:-6.12}
[ -f "/usr/src/linux-source-$src.tar.xz" ] || skip_all "no /usr/src/linux-source-$src.tar.xz (make deps)"
MARK="mtebench: this kernel is a git tree's commit (kernel-git.t)"
gitc() { GIT_AUTHOR_DATE='@1 +0000' GIT_COMMITTER_DATE='@1 +0000' \
    git -C "$G" -c user.email=t@mtebench.invalid -c user.name=t commit -q "$@"; }

t0=$(date +%s)
"$M" kernel build stock > "$T_TMP/stock.out" 2>&1
is "$?" 0 "the stock kernel, whose tree the git kernel starts from ($(( $(date +%s) - t0 )) s)" || dump "$T_TMP/stock.out"
t0=$(date +%s)
FIX=$("$ROOT/tests/tools/linux-git-fixture.sh" "$src" 2> "$T_TMP/fixture.err")
is "$?" 0 "a git repository of linux-source-$src ($(( $(date +%s) - t0 )) s)" || dump "$T_TMP/fixture.err"

# the work tree: the source's commit and one more (fixed dates: the same commit each run)
G="$T_TMP/linux"
git clone -q --shared --sparse "$FIX" "$G" && git -C "$G" sparse-checkout add init
awk -v m="$MARK" 'index($0, "pr_info(\"Run %s as init process") { print "\tpr_warn(\"" m "\\n\");" } { print }' \
    "$G/init/main.c" > "$T_TMP/main.c" && cp "$T_TMP/main.c" "$G/init/main.c"
ok "$(grep -qF "pr_warn(\"$MARK\\n\");" "$G/init/main.c"; echo $?)" "the marker written into init/main.c"
gitc -am "init: print a marker at boot (kernel-git.t)"
is "$(git -C "$G" rev-list --count HEAD)" 2 "a work tree: the source's commit and the marker's"
HEAD=$(git -C "$G" rev-parse HEAD)

t0=$(date +%s)
"$M" kernel build "git:$G@HEAD" > "$T_TMP/kb.out" 2>&1
rc=$?; kb=$(( $(date +%s) - t0 ))
is "$rc" 0 "git:TREE@HEAD builds or is found ($kb s: $(awk '$1 == "kernel" { print $5 }' "$T_TMP/kb.out"))" || dump "$T_TMP/kb.out"
kdir=$(dirname "$(awk '$1 == "kernel" { print $6 }' "$T_TMP/kb.out")")
sdir=$(dirname "$(awk '$1 == "kernel" { print $6 }' "$T_TMP/stock.out")")
# the build's log (kept from the build that made it): one file over stock's tree, make rebuilt little
ok "$(grep -q '^== 1 files of .* differ from the base tree' "$kdir/build.log" && grep -qx '   init/main.c' "$kdir/build.log"; echo $?)" \
    "one file of the commit differs from stock's tree: init/main.c" || dump "$kdir/build.log"
cc=$(grep -cE '^  (CC|AS) ' "$kdir/build.log")
ok "$(grep -q '^  CC      init/main.o' "$kdir/build.log" && [ "$cc" -lt 40 ]; echo $?)" \
    "incremental: init/main.o recompiled, $cc objects in all (a whole build: ~1000)" || dump "$kdir/build.log"
ok "$(jq_e --arg c "$HEAD" '.git.commit == $c and .incremental_from != null and (.uname_r | endswith("-mtb-stock-git"))' \
    "$kdir/build.json" > /dev/null; echo $?)" "build.json: the commit, built from stock's tree, uname -r"
ok "$(grep -qF "$MARK" "$kdir/Image" && ! grep -qF "$MARK" "$sdir/Image"; echo $?)" "the marker is in this Image, not in stock's"
ok "$([ ! -e "$kdir/tree" ] && [ -d "$sdir/tree" ]; echo $?)" "the git kernel keeps no build tree (stock's stays)"
# another commit of the same tree (the message alone differs): the same kernel, found in the cache
git -C "$G" branch -q same HEAD && git -C "$G" checkout -q same && gitc --amend -m "the same tree, another commit"
SAME=$(git -C "$G" rev-parse HEAD)
"$M" kernel info "git:$G@same" > "$T_TMP/same.json" 2> "$T_TMP/same.err"
ok "$([ "$SAME" != "$HEAD" ] && jq_e --arg c "$SAME" --arg b "$(jq -r .build_hash "$kdir/build.json")" \
    '.cached == true and .git.commit == $c and .build_hash == $b' "$T_TMP/same.json" > /dev/null &&
    ! grep -q 'building kernel' "$T_TMP/same.err"; echo $?)" \
    "a commit of the same tree: cached (the key is the content), the record names that commit" || dump "$T_TMP/same.err"
git -C "$G" checkout -q main

t0=$(date +%s)
"$M" run --service memcached --variant tagged --mode sync --platform vm --kernel "git:$G@HEAD" \
    --duration 2 --warmup 0 --results "$R" > "$T_TMP/run.out" 2>&1
rc=$?
d="$R/001-tagged-sync"
is "$rc" 0 "it boots and runs memcached in the guest ($(( $(date +%s) - t0 )) s)" || { dump "$T_TMP/run.out"; dump "$d/console.log"; }
ok "$(grep -qF "$MARK" "$d/console.log"; echo $?)" "the guest's console shows the commit's marker at boot" || dump "$d/console.log"
rec="$d/record.json"
ok "$(jq_e --arg c "$HEAD" '.status == "ok" and .kernel.git.commit == $c and .kernel.identity_ok == true and
        (.kernel.uname_r | endswith("-mtb-stock-git")) and .proof.ok == true' "$rec" > /dev/null; echo $?)" \
    "record: ok, the commit, uname -r checked in the guest, mode proved" || dump "$rec"
ok "$(jq_e '.summary.ops_per_sec > 0 and .load.totals.requests > 0' "$rec" > /dev/null; echo $?)" "load figures"
diag "kernel build $kb s ($(awk '$1 == "kernel" { print $5 }' "$T_TMP/kb.out")), boot $(jq .platform.boot_seconds "$rec") s, $(jq .summary.ops_per_sec "$rec") ops/s"
done_testing
