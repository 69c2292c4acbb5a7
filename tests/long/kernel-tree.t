#!/bin/bash
# Kernels from a patch series and from a git tree, built incrementally from the
# stock kernel's tree and booted under PLATFORM=vm (make test-long: builds stock
# first when the cache lacks it, ~10 min; then each of these in about a minute
# or two; the git tree is a --shared clone, sparse, of the source's repository
# that tests/tools/linux-git-fixture.sh makes once into the cache).
#   KERNEL=stock+DIR       DIR/series names tests/patches/kernel-planted-send-delay.patch
#                          (10 ms of mdelay on every socket send: a wall-clock spin,
#                          which bounds the delayed kernel's throughput whatever the load)
#   KERNEL=git:REPO@REF    REPO: Debian's linux-source as one commit, the same patch as
#                          the next; REF = HEAD (one file differs from stock's tree)
# Each: built (incremental), booted, a memcached run in the guest with the
# kernel's identity in the record. Then compare-kernels over stock and the git
# kernel, and `bisect --axis kernel` over four commits of the tree, the delay in
# the third (each revision a kernel build and 5-10 booted runs: long).
. "$(dirname "$0")/../lib.sh"
M="$B/mtebench"
R="$T_TMP/results"
PATCH="$ROOT/tests/patches/kernel-planted-send-delay.patch"
src=${KERNEL_SOURCE:-6.12}
[ -f "/usr/src/linux-source-$src.tar.xz" ] || skip_all "no /usr/src/linux-source-$src.tar.xz (make deps)"
t0=$(date +%s)
nice -n 5 "$M" kernel build stock > "$T_TMP/stock.out" 2>&1
is "$?" 0 "the stock kernel is there ($(( $(date +%s) - t0 )) s)" || dump "$T_TMP/stock.out"

vmrun() { # vmrun KERNEL NAME
    "$M" run --service memcached --variant tagged --mode sync --platform vm --kernel "$1" \
        --duration 2 --warmup 0 --results "$R/$2" > "$T_TMP/$2.out" 2>&1
}

# ---- a patch series on stock
S="$T_TMP/series"; mkdir -p "$S"; cp "$PATCH" "$S/delay.patch"
printf '# quilt series\ndelay.patch -p1\n' > "$S/series"
t0=$(date +%s)
nice -n 5 "$M" kernel build "stock+$S" > "$T_TMP/kb1.out" 2>&1
rc=$?; t1=$(date +%s)
is "$rc" 0 "stock+DIR builds ($((t1 - t0)) s)" || dump "$T_TMP/kb1.out"
ok "$(grep -q 'incrementally from stock' "$T_TMP/kb1.out"; echo $?)" "incrementally from stock's tree"
diag "stock+series build: $((t1 - t0)) s"
t0=$(date +%s); vmrun "stock+$S" series; rc=$?; t1=$(date +%s)
is "$rc" 0 "stock+DIR boots and runs memcached in the guest ($((t1 - t0)) s)" || dump "$T_TMP/series.out"
rec=$(ls "$R"/series/*/record.json 2>/dev/null | head -1)
ok "$(jq_e '.status == "ok" and (.kernel.uname_r | endswith("-mtb-stock-series")) and .kernel.identity_ok == true and
            (.kernel.patches | map(.file) | any(endswith("delay.patch")))' "$rec" >/dev/null; echo $?)" \
    "record: the series kernel's uname -r and its patch"

# ---- a git tree: the source as one commit (checked out: the top files and net/), the patch as the next
G="$T_TMP/linux"
t0=$(date +%s)
FIX=$("$ROOT/tests/tools/linux-git-fixture.sh" "$src" 2> "$T_TMP/fixture.err")
is "$?" 0 "a git repository of the source ($(( $(date +%s) - t0 )) s)" || dump "$T_TMP/fixture.err"
git clone -q --shared --sparse "$FIX" "$G" && git -C "$G" sparse-checkout add net
patch -d "$G" -p1 -s < "$PATCH" && git -C "$G" -c user.email=t@e.invalid -c user.name=t commit -qam "planted send delay"
diag "git tree of the source made in $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
nice -n 5 "$M" kernel build "git:$G@HEAD" > "$T_TMP/kb2.out" 2>&1
rc=$?; t1=$(date +%s)
is "$rc" 0 "git:REPO@HEAD builds ($((t1 - t0)) s)" || dump "$T_TMP/kb2.out"
log="$(dirname "$(awk '$1 == "kernel" { print $6 }' "$T_TMP/kb2.out")")/build.log"
ok "$(grep -q '^== 1 files of .* differ from the base tree' "$log"; echo $?)" "one file written over stock's tree" || dump "$log"
diag "git build: $((t1 - t0)) s"
t0=$(date +%s); vmrun "git:$G@HEAD" git; rc=$?; t1=$(date +%s)
is "$rc" 0 "git:REPO@HEAD boots and runs memcached ($((t1 - t0)) s)" || dump "$T_TMP/git.out"
rec=$(ls "$R"/git/*/record.json 2>/dev/null | head -1)
ok "$(jq_e --arg c "$(git -C "$G" rev-parse HEAD)" '.status == "ok" and .kernel.git.commit == $c and
            (.kernel.uname_r | endswith("-mtb-stock-git"))' "$rec" >/dev/null; echo $?)" "record: the commit and uname -r"

# ---- compare-kernels with a mix: the delay shows
t0=$(date +%s)
"$M" compare-kernels --service memcached --mode sync --platform vm --kernels "stock,git:$G@HEAD" --reps 3 \
    --duration 3 --results "$R/cmp" > "$T_TMP/cmp.out" 2>&1
rc=$?; t1=$(date +%s)
is "$rc" 0 "compare-kernels stock,git:... ($((t1 - t0)) s)" || dump "$T_TMP/cmp.out"
K="$R/cmp/kernels.json"
ok "$(jq_e '[.rows[] | select(.runs == 3)] | length == 2' "$K" > /dev/null; echo $?)" \
    "both kernels' rows have their 3 runs (the git kernel's rows are named as its records name it)" || dump "$K"
ratio=$(jq -r '.rows[] | select(.kernel != "stock") | .vs_reference.median // "none"' "$K")
ok "$(awk -v r="$ratio" 'BEGIN { exit !(r + 0 > 0 && r + 0 < 1) }'; echo $?)" "the delay shows: throughput vs stock $ratio"

# ---- bisect --axis kernel: four commits after the pristine one, the delay at the third
for n in 1 2; do echo "note $n" >> "$G/mtebench-notes.txt"; git -C "$G" add -f mtebench-notes.txt
    git -C "$G" -c user.email=t@e.invalid -c user.name=t commit -qm "notes $n"; done
git -C "$G" checkout -q -b bisect HEAD~3      # pristine
for n in 1 2; do echo "note $n" >> "$G/mtebench-notes.txt"; git -C "$G" add -f mtebench-notes.txt
    git -C "$G" -c user.email=t@e.invalid -c user.name=t commit -qm "notes $n"; done
patch -d "$G" -p1 -s < "$PATCH" && git -C "$G" -c user.email=t@e.invalid -c user.name=t commit -qam "planted send delay"
echo "note 3" >> "$G/mtebench-notes.txt"
git -C "$G" -c user.email=t@e.invalid -c user.name=t commit -qam "notes 3"
t0=$(date +%s)
"$M" bisect --axis kernel --repo "$G" --good "$(git -C "$G" rev-parse bisect~4)" --bad bisect \
    --service memcached --variant tagged --mode sync --duration 2s --warmup 0 \
    --reps 5 --add-reps 5 --max-reps 10 --refresh 1 --min-change 30% --out "$T_TMP/kbis" \
    --history "$T_TMP/history.sqlite" > "$T_TMP/kbis.out" 2>&1
rc=$?; t1=$(date +%s)
is "$rc" 0 "kernel bisection names a culprit ($((t1 - t0)) s)" || dump "$T_TMP/kbis.out" 60
is "$(jq -r '.culprits[0].sha' "$T_TMP/kbis/bisect.json")" "$(git -C "$G" rev-parse bisect~1)" "the planted commit"
ok "$(jq_e '.revisions_tested <= 4' "$T_TMP/kbis/bisect.json" >/dev/null; echo $?)" "tested <= log2(4) + 2 revisions"
is "$(sqlite3 "$T_TMP/history.sqlite" "SELECT axis || ' ' || outcome || ' ' || count(s.id) FROM bisections b
    JOIN bisect_steps s ON s.bisection = b.id GROUP BY b.id")" "kernel found $(jq '.steps | length' "$T_TMP/kbis/bisect.json")" \
    "the bisection and each of its steps in the history"
diag "kernel bisection: $((t1 - t0)) s, $(jq -r '"\(.builds) builds (\(.new_builds) new), \(.runs) runs"' "$T_TMP/kbis/bisect.json")"
done_testing
