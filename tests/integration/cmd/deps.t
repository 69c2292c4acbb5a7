#!/bin/bash
# make deps as it left this machine: bookworm-backports named once, only QEMU
# pinned from it, QEMU >= 8, the vm guest's arm64 bash and busybox unpacked;
# doctor says vm is not usable when the guest image cannot be made. (~7 s idle:
# the deps.sh check and two doctor calls)
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"

out=$(MTEBENCH_DEPS_CHECK=1 sh "$ROOT/harness/cmd/deps.sh" 2>&1)
is "$out" "deps: ok" "deps.sh check finds nothing missing"

# every apt source file that names bookworm-backports (not commented out)
n=$(grep -ls '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
        /etc/apt/sources.list.d/*.sources 2>/dev/null | wc -l)
is "$n" 1 "bookworm-backports is configured in exactly one apt source"

# what apt pins: the QEMU packages, nothing else
pinned=$(apt-cache policy 2>/dev/null | sed -n '/^Pinned packages:/,$p' | sed -n 's/^ *\([a-z0-9.+-]*\) -> .*/\1/p' | sort -u | tr '\n' ' ')
is "$pinned" "qemu-system-arm qemu-system-common qemu-system-data qemu-user qemu-user-binfmt " \
    "only QEMU is pinned from bookworm-backports"
for p in qemu-user qemu-system-arm; do
    v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)
    ok "$( [ -n "$v" ] && dpkg --compare-versions "$v" ge 1:8.0; echo $?)" "$p installed and >= 8.0 ($v)"
done
ok "$(command -v qemu-aarch64 >/dev/null; echo $?)" "qemu-aarch64 on PATH (PLATFORM=emu, on every architecture)"

for p in bash busybox; do
    f=/opt/mtebench/guest-arm64/bin/$p
    ok "$(file -L "$f" 2>/dev/null | grep -q 'ARM aarch64'; echo $?)" "guest root has an arm64 $p ($(file -bL "$f" 2>/dev/null | cut -c1-40))"
done

# the counting plugin's header: the installed QEMU's own, its tarball's SHA-256
# checked against apt's (docs/COUNTING.md); and make builds the plugin from it
qv=$(qemu-system-aarch64 --version | sed -n '1s/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p')
h=${MTEBENCH_CACHE:-/var/cache/mtebench}/qemu/$qv
ok "$(grep -q '^#define QEMU_PLUGIN_VERSION' "$h/qemu-plugin.h" && grep -q "^qemu=[0-9]*:$qv[+~-]" "$h/source" &&
    grep -q '^sha256=[0-9a-f]\{64\}$' "$h/source"; echo $?)" "make deps fetched qemu-plugin.h of QEMU $qv ($(tr '\n' ' ' < "$h/source" 2>/dev/null | cut -c1-60))"
ok "$(nm -D "$B/native/libmtecount.so" 2>/dev/null | grep -q ' T qemu_plugin_install$'; echo $?)" "make built the counting plugin ($B/native/libmtecount.so)"

# doctor: vm usable here; not usable, with the reason, without the guest root
j=$("$M" doctor --json)
is "$(jq -r '.platforms[] | select(.name=="vm") | .usable' <<< "$j")" true "doctor: vm usable with the guest root"
j=$(MTEBENCH_GUESTROOT="$T_TMP/none" "$M" doctor --json)
is "$(jq -r '.platforms[] | select(.name=="vm") | .usable' <<< "$j")" false "doctor: vm NOT usable without the guest root (arm64 busybox; bash too off arm64)"
why=$(jq -r '.platforms[] | select(.name=="vm") | .why' <<< "$j")
ok "$( [[ "$why" == *"no arm64 "*"make deps"* ]]; echo $?)" "doctor says why ($why)"
done_testing
