#!/bin/sh
# mtebench deps: install everything the suite needs from Debian's archive.
# Idempotent: a second call only checks and prints "deps: ok".
# Run as root (make deps). Set MTEBENCH_DEPS_CHECK=1 to check without installing.
set -eu

HOSTPKGS="build-essential pkg-config gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
 binutils-aarch64-linux-gnu dpkg-dev autoconf automake libtool patch xz-utils \
 libjansson-dev libinih-dev libssl-dev libevent-dev libsqlite3-dev gnupg git \
 memcached libmemcached-tools wrk nginx-light gnuplot-nox chromium procps iproute2 jq curl file python3 openssh-server openssh-client ansible \
 rocksdb-tools postgresql-15 postgresql-client postgresql-client-15 libpq-dev linux-perf openssl \
 libc6:arm64 libc6-dev:arm64 libevent-2.1-7:arm64 libstdc++6:arm64 libssl-dev:arm64 \
 flex bison bc cpio libelf-dev kmod \
 libjansson-dev:arm64 libinih-dev:arm64 libsqlite3-dev:arm64 linux-source-6.1 \
 liburing-dev liburing-dev:arm64 clang zlib1g-dev zlib1g-dev:arm64 libclang-rt-16-dev:arm64 ccache \
 libglib2.0-dev"
# libglib2.0-dev: the counting plugin (libmtecount.so): QEMU's qemu-plugin.h includes glib.h
# ccache: the project's own compile steps (Makefile CCACHE; its directory is in the build cache)
# zlib1g-dev: HdrHistogram interval logs (.hlog) are zlib-compressed (native builds);
# zlib1g-dev:arm64: RocksDB's zlib bug builds (RocksDB #6014 reads compressed blocks);
# libclang-rt-16-dev:arm64: Scudo, the allocator of detect-sweep --allocator scudo
# (libclang_rt.scudo_standalone-aarch64.so, preloaded)
# TEST-ONLY packages (make test; nothing mtebench runs needs them): the reference
# readers the tests check mtebench's formats against (docs/FORMATS.md):
# HdrHistogram's own Java implementation and a JDK to compile the tests' small
# Java programs; promtool (prometheus) and node_exporter's textfile collector;
# a JSON schema validator for docs/schema/; gdb-multiarch, whose `memory-tag`
# commands read a core's tags (core-tags.t checks mtebench's reading against it)
TESTPKGS="libhdrhistogram-java default-jdk-headless prometheus prometheus-node-exporter python3-jsonschema gdb-multiarch"
# the daemons these two packages enable on install are not wanted: the tests
# start their own node_exporter on loopback; deps stops and disables them
TESTDAEMONS="prometheus prometheus-node-exporter"
# clang: libFuzzer (make fuzz, tests/fuzz/)
# libpq-dev: PostgreSQL histories (--history postgresql://...; the native build
# only); postgresql-15 and postgresql-client-15 also serve the history tests
# (a throwaway server started with initdb + pg_ctl, and psql)
# kernels for PLATFORM=vm are built from Debian's linux-source (6.12 from
# bookworm-backports is the default, 6.1 from bookworm is supported); the
# guest's userland is the project's own aarch64 builds plus arm64 libraries
# -dev packages that are not Multi-Arch: same are unpacked into a cross sysroot
XDEVPKGS="libevent-dev libevent-2.1-7 libevent-core-2.1-7 libevent-extra-2.1-7 libevent-pthreads-2.1-7 libevent-openssl-2.1-7 \
 libgflags-dev libgflags2.2"
XSYSROOT=/opt/mtebench/sysroot-arm64
# arm64 programs the vm guest needs besides the project's own builds: bash and
# busybox for the services' setup scripts. Unpacked into their own root, so
# that they never enter the service build keys (which hash XSYSROOT/.stamp)
GUESTPKGS="bash libtinfo6 busybox-static"
GUESTROOT=/opt/mtebench/guest-arm64
# QEMU >= 8 (bookworm has 7.2, which mis-tags memory under MTE): from
# bookworm-backports, pinned by name (BPOPINNED: these and the packages of the
# same source they depend on); linux-source-6.12 is in bookworm itself.
# qemu-user on arm64 hosts too: PLATFORM=emu checks tags in software there as
# well, and the tests that name --platform emu run the same on both.
BPOPKGS="qemu-user qemu-user-binfmt qemu-system-arm linux-source-6.12"
BPOPINNED="qemu-user qemu-user-binfmt qemu-system-arm qemu-system-common qemu-system-data"

arch=$(dpkg --print-architecture)
need_update=0
missing=""

note() { echo "deps: $*"; }

# --- apt sources: deb-src and bookworm-backports -------------------------
# bookworm-backports is added only where no other source names it (apt warns
# "configured multiple times" otherwise); only QEMU is taken from it, pinned
# by name in $PREFS, so that nothing else on the machine is upgraded from it
SRCLIST=/etc/apt/sources.list.d/mtebench.sources
PREFS=/etc/apt/preferences.d/mtebench-backports
want_src='# written by mtebench (harness/cmd/deps.sh)
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
'
# shellcheck disable=SC2046
if ! grep -qs '^[^#]*bookworm-backports' /etc/apt/sources.list \
        $(ls /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -vx "$SRCLIST"); then
    want_src="$want_src
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"
fi
if [ "$(cat "$SRCLIST" 2>/dev/null)" != "$(printf '%s' "$want_src")" ]; then
    [ -n "${MTEBENCH_DEPS_CHECK:-}" ] && { note "$SRCLIST missing or out of date"; exit 1; }
    printf '%s' "$want_src" > "$SRCLIST"
    note "wrote $SRCLIST (deb-src$(echo "$want_src" | grep -q backports && echo ', bookworm-backports'))"
    need_update=1
fi
want_prefs="# written by mtebench (harness/cmd/deps.sh): QEMU 10 from bookworm-backports, nothing else
Package: $BPOPINNED
Pin: release n=bookworm-backports
Pin-Priority: 500"
if [ "$(cat "$PREFS" 2>/dev/null)" != "$want_prefs" ]; then
    [ -n "${MTEBENCH_DEPS_CHECK:-}" ] && { note "$PREFS missing or out of date"; exit 1; }
    printf '%s\n' "$want_prefs" > "$PREFS"
    note "wrote $PREFS (pins: $BPOPINNED)"
fi

# --- arm64 multiarch (current libc6:arm64 for the emu sysroot) -----------
if [ "$arch" != arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    [ -n "${MTEBENCH_DEPS_CHECK:-}" ] && { note "arm64 architecture not added"; exit 1; }
    dpkg --add-architecture arm64
    note "added dpkg architecture arm64"
    need_update=1
fi

if [ "$arch" = arm64 ]; then
    # native arm64: no cross toolchain, no multiarch suffixes
    HOSTPKGS=$(echo "$HOSTPKGS" | tr ' ' '\n' | sed -e 's/:arm64$//' \
        -e '/aarch64-linux-gnu/d' | sort -u | tr '\n' ' ')
    # qemu-user-binfmt registers other architectures only; aarch64 runs natively
    BPOPKGS="qemu-user qemu-system-arm linux-source-6.12"
fi

# every installed package, read once (a dpkg-query per package took 5 s of
# make deps with everything installed): " NAME:ARCH ", and " NAME " too for
# the native architecture and arch all, as dpkg-query -W NAME would find it
INSTALLED=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Architecture}\n' 2>/dev/null |
    awk -v n="$arch" '$1 == "ii" { print $2 ":" $3; if ($3 == n || $3 == "all") print $2 }' | tr '\n' ' ') "
installed() { case "$INSTALLED" in *" $1 "*) return 0 ;; esac; return 1; }

for p in $HOSTPKGS; do installed "$p" || missing="$missing $p"; done
test_missing=""
for p in $TESTPKGS; do installed "$p" || test_missing="$test_missing $p"; done
bpo_missing=""
for p in $BPOPKGS; do
    if ! installed "$p"; then bpo_missing="$bpo_missing $p"
    else
        # QEMU must be >= 8 (7.2 mis-tags memory under MTE)
        case $p in qemu-*)
            v=$(dpkg-query -W -f='${Version}' "$p")
            if dpkg --compare-versions "$v" lt 1:8.0; then bpo_missing="$bpo_missing $p"; fi;;
        esac
    fi
done

if [ -n "$missing$bpo_missing$test_missing" ]; then
    [ -n "${MTEBENCH_DEPS_CHECK:-}" ] && { note "missing:$missing$bpo_missing${test_missing:+ (for the tests only:$test_missing)}"; exit 1; }
    [ -z "$missing$bpo_missing" ] || note "installing:$missing$bpo_missing"
    [ -z "$test_missing" ] || note "installing for the tests only (HdrHistogram's Java reader and a JDK, promtool, node_exporter, a JSON schema validator):$test_missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q || apt-get update -q
    # shellcheck disable=SC2086
    [ -z "$missing" ] || apt-get install -y -q --no-install-recommends $missing
    # shellcheck disable=SC2086
    [ -z "$bpo_missing" ] || apt-get install -y -q --no-install-recommends $bpo_missing
    # shellcheck disable=SC2086
    [ -z "$test_missing" ] || apt-get install -y -q --no-install-recommends $test_missing
    if [ -n "$test_missing" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
        for d in $TESTDAEMONS; do
            systemctl disable --now "$d" >/dev/null 2>&1 && note "stopped and disabled the $d service its package started (the tests run their own)"
        done
    fi
elif [ "$need_update" = 1 ]; then
    apt-get update -q
fi

# --- QEMU's plugin header, for the counting plugin (libmtecount.so) ---------
# Debian packages no qemu-plugin.h; the installed QEMU's own source has it
# (include/qemu/qemu-plugin.h of the orig tarball). Fetched once per QEMU
# version into the build cache, CACHE/qemu/VERSION/ (what the Makefile looks
# for): the tarball's address and SHA-256 from apt's deb-src lines (written
# above), the tarball checked against that sum, only the header kept, with
# `source` saying where it came from. Without it the plugin is not built
# (make says why); the rest of mtebench does not need it.
qemu_header() {
    local qv up hdir line url file sum tmp
    qv=$(dpkg-query -W -f='${Version}' qemu-system-arm 2>/dev/null) || return 0
    up=$(echo "$qv" | sed -e 's/^[0-9]*://' -e 's/[+~-].*//')
    hdir=${MTEBENCH_CACHE:-/var/cache/mtebench}/qemu/$up
    [ -s "$hdir/qemu-plugin.h" ] && return 0
    [ -n "${MTEBENCH_DEPS_CHECK:-}" ] && { note "no qemu-plugin.h of QEMU $up in $hdir"; exit 1; }
    line=$(apt-get source --print-uris -q "qemu=$qv" 2>/dev/null | grep "_$up[^ ]*\.orig\.tar\." | head -n 1)
    url=$(echo "$line" | awk '{print $1}' | tr -d "'")
    file=$(echo "$line" | awk '{print $2}')
    sum=$(echo "$line" | awk '{print $4}' | sed -n 's/^SHA256://p')
    if [ -z "$url" ] || [ -z "$sum" ]; then
        note "warning: no source package of qemu $qv in apt's deb-src lines: the counting plugin (libmtecount.so) will not build"
        return 0
    fi
    tmp=$(mktemp -d)
    if ! curl -fsSL --connect-timeout 10 --retry 2 --retry-delay 1 -o "$tmp/$file" "$url" || ! echo "$sum  $tmp/$file" | sha256sum -c --quiet >/dev/null 2>&1 ||
        ! tar -xJf "$tmp/$file" --wildcards -O '*/include/qemu/qemu-plugin.h' > "$tmp/qemu-plugin.h" ||
        ! grep -q '^#define QEMU_PLUGIN_VERSION' "$tmp/qemu-plugin.h"; then
        rm -rf "$tmp"
        note "warning: could not fetch qemu-plugin.h from $url (SHA-256 $sum): the counting plugin (libmtecount.so) will not build"
        return 0
    fi
    mkdir -p "$hdir"
    printf 'qemu=%s\ntarball=%s\nsha256=%s\nurl=%s\n' "$qv" "$file" "$sum" "$url" > "$hdir/source"
    mv "$tmp/qemu-plugin.h" "$hdir/qemu-plugin.h"
    rm -rf "$tmp"
    note "fetched qemu-plugin.h of QEMU $up (from $file, SHA-256 checked) into $hdir"
}
qemu_header

# --- binfmt_misc: run arm64 ELF files through qemu-aarch64 ---------------
if [ "$arch" != arm64 ]; then
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        if [ -w /proc/sys/fs/binfmt_misc/register ] && [ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]; then
            cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register
            note "registered qemu-aarch64 with binfmt_misc"
        else
            note "warning: cannot register qemu-aarch64 with binfmt_misc (cross configure may fail)"
        fi
    fi
fi

# unpack_arm64 ROOT "PKGS": unpack the arm64 packages into ROOT, one stamp
# per package and version under ROOT/.pkgs, ROOT/.stamp listing them all
unpack_arm64() {
    local root=$1 pkgs=$2 cands todo want p d tmp all
    mkdir -p "$root/.pkgs"
    # apt's candidates change only with its lists: when every package has its
    # stamp and the lists are older than the last pass, there is nothing to
    # ask (apt-cache policy takes over a second)
    if [ -f "$root/.stamp" ] && [ "$root/.stamp" -nt /var/lib/apt/lists ]; then
        all=1
        for p in $pkgs; do [ -s "$root/.pkgs/$p" ] || all=0; done
        [ "$all" = 1 ] && return 0
    fi
    # one apt-cache call for all of them
    # shellcheck disable=SC2046
    cands=$(apt-cache policy $(for p in $pkgs; do echo "$p:arm64"; done) 2>/dev/null |
        awk '/^[^ ].*:$/{pkg=$1; sub(/:arm64:$/,"",pkg); sub(/:$/,"",pkg)} /Candidate:/{print pkg"="$2}')
    todo=""
    for p in $pkgs; do
        want=$(echo "$cands" | sed -n "s/^$p=//p")
        [ "$(cat "$root/.pkgs/$p" 2>/dev/null)" = "$want" ] || todo="$todo $p"
    done
    if [ -n "$todo" ]; then
        [ -n "${MTEBENCH_DEPS_CHECK:-}" ] && { note "$root lacks:$todo"; exit 1; }
        tmp=$(mktemp -d); chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
        (cd "$tmp" && for p in $todo; do apt-get download -q "$p:arm64"; done)
        for p in $todo; do
            for d in "$tmp/${p}_"*.deb; do dpkg -x "$d" "$root"; done
            echo "$cands" | sed -n "s/^$p=//p" > "$root/.pkgs/$p"
        done
        rm -rf "$tmp"
        note "unpacked arm64 packages into $root:$todo"
    fi
    (cd "$root/.pkgs" && for f in *; do echo "$f=$(cat "$f")"; done) > "$root/.stamp.new"
    mv "$root/.stamp.new" "$root/.stamp"
}
# --- cross sysroot for arm64 -dev packages that cannot be co-installed --------
# Additive: each package is unpacked once per version (a stamp per package
# under .pkgs/); nothing is removed, so callers with different package lists
# never undo each other. .stamp (all packages and versions) goes into build keys.
# (a native arm64 host installs the -dev packages themselves)
if [ "$arch" != arm64 ]; then
    unpack_arm64 "$XSYSROOT" "$XDEVPKGS"
fi
# the vm guest's bash and busybox, on every host (an arm64 host need not have
# busybox installed, and its bash is not copied into the guest)
unpack_arm64 "$GUESTROOT" "$GUESTPKGS"

# --- unprivileged user for services that refuse root (PostgreSQL, ...) ---
id mtebench >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin mtebench 2>/dev/null || true

note "ok"
