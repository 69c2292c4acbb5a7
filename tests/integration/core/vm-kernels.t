#!/bin/bash
# Named kernels for PLATFORM=vm: stock and tcma1 build (from the cache when
# warm; a cold build takes minutes) from Debian's linux-source, carry their
# identity (uname -r, build hash, config hash, patches), and bad names are
# refused with the accepted ones.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"

out=$("$M" kernel build nosuch 2>&1); rc=$?
is "$rc" 1 "unknown kernel name fails"
ok "$(grep -q "unknown kernel 'nosuch' (accepted: stock, tcma1" <<< "$out"; echo $?)" "error lists the accepted kernels"
out=$("$M" run --service memcached --platform emu --kernel stock 2>&1); rc=$?
is "$rc" 2 "a named kernel outside PLATFORM=vm is refused"
ok "$(grep -q 'named kernels need PLATFORM=vm' <<< "$out"; echo $?)" "and says why"
out=$("$M" run --service memcached --platform vm --kernel nosuch 2>&1); rc=$?
is "$rc" 2 "PLATFORM=vm with an unknown kernel is refused"
out=$(KERNEL_SOURCE=5.10 "$M" kernel build stock 2>&1)
ok "$(grep -q "invalid KERNEL_SOURCE '5.10' (accepted: 6.12, 6.1)" <<< "$out"; echo $?)" "unknown kernel source refused"

# build (or find) both; stock first so that tcma1 can start from its tree
t0=$(date +%s)
"$M" kernel build stock tcma1 > "$T_TMP/build.out" 2> "$T_TMP/build.err"
is "$?" 0 "kernel build stock tcma1" || dump "$T_TMP/build.err"
diag "kernel build took $(( $(date +%s) - t0 )) s: $(tr '\n' ';' < "$T_TMP/build.out")"
for k in stock tcma1; do
    "$M" kernel info "$k" > "$T_TMP/$k.json" 2>/dev/null
    jqk() { ok "$(jq_e "$1" "$T_TMP/$k.json" >/dev/null; echo $?)" "$k: $2"; }
    jqk '.cached == true' "second call comes from the cache"
    jqk '.build_hash | test("^[0-9a-f]{64}$")' "build hash"
    jqk '.config_hash | test("^[0-9a-f]{64}$")' "config hash"
    jqk ".uname_r | endswith(\"-mtb-$k\")" "uname -r names the kernel"
    jqk '.source == "6.12" and (.source_sha256 | test("^[0-9a-f]{64}$"))' "source version and tarball hash"
    dir=$(dirname "$(awk -v k="$k" '$2==k{print $6}' "$T_TMP/build.out")")
    ok "$(grep -qx 'CONFIG_ARM64_MTE=y' "$dir/config" && ! grep -q '^CONFIG_KASAN_HW_TAGS=y' "$dir/config"; echo $?)" "$k: MTE on, KASAN_HW_TAGS off"
    ok "$( [ -s "$dir/Image" ]; echo $?)" "$k: Image"
done
jq_e '.patches | length == 0' "$T_TMP/stock.json" > /dev/null; ok $? "stock has no patches"
jq_e '.patches | length == 1 and (.[0].file | test("tcma1")) and (.[0].sha256 | length == 64)' "$T_TMP/tcma1.json" > /dev/null
ok $? "tcma1 carries the TCMA1 patch with its hash"
ok "$( [ "$(jq -r .build_hash "$T_TMP/stock.json")" != "$(jq -r .build_hash "$T_TMP/tcma1.json")" ]; echo $?)" "different build hashes"
tdir=$(dirname "$(awk '$2=="tcma1"{print $6}' "$T_TMP/build.out")")
ok "$(grep -A3 '^#ifdef CONFIG_ARM64_MTE' "$tdir/tree/arch/arm64/mm/proc.S" | grep -q 'TCR_MTE_FLAGS TCR_TCMA1 | TCR_TBI1 | TCR_TBID1' || grep -q '^#define TCR_MTE_FLAGS TCR_TCMA1 | TCR_TBI1 | TCR_TBID1' "$tdir/tree/arch/arm64/mm/proc.S"; echo $?)" "tcma1's proc.S sets TCMA1 under CONFIG_ARM64_MTE"
sdir=$(dirname "$(awk '$2=="stock"{print $6}' "$T_TMP/build.out")")
ok "$(grep -q '^#ifdef CONFIG_KASAN_HW_TAGS' "$sdir/tree/arch/arm64/mm/proc.S"; echo $?)" "stock's proc.S is unpatched"
# the patch applies to 6.1 too (dry run against the 6.1 source)
if [ -f /usr/src/linux-source-6.1.tar.xz ]; then
    tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$T_TMP" --wildcards '*/arch/arm64/mm/proc.S'
    ok "$(patch -d "$T_TMP"/linux-source-6.1 -p1 --dry-run < "$ROOT"/patches/kernel/tcma1/*.patch >/dev/null; echo $?)" "the TCMA1 patch applies to linux-source-6.1"
fi
done_testing
