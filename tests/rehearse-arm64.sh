#!/bin/bash
# tests/rehearse-arm64.sh (make rehearse-arm64) - rehearse what a user of an
# arm64 server does, on any machine: a Debian 12 arm64 root made with
# debootstrap (cached under $CACHE, made once), run through qemu-aarch64 with
# binfmt_misc (the F flag: the interpreter is opened at registration, so it
# works inside the chroot), where `uname -m` is aarch64 and HWCAP2 shows
# MTE/MTE3 (qemu's -cpu max). The current commit is cloned fresh into a copy of
# that root; inside it runs `make deps`, `make bench SERVICE=memcached
# MODE=sync DURATION=5s` and a subset of the suite, and prints what passed,
# with timings. Not part of make test: tens of minutes, all of it emulated.
#
# What it cannot show (only real MTE hardware can): perf PMU events, KVM
# (-accel kvm -cpu host), asymm (qemu-user has no kernel preferred mode),
# `mt` in /proc/PID/smaps (qemu-user's smaps are the host's), and timings.
# qemu-user also makes up a process's own /proc/self/stat (pgrp 0) and answers
# set_mempolicy with ENOSYS; /dev/kvm there is the x86 host's.
#
# Root only. Options through the environment:
#   REHEARSE_TESTS  the suite subset (paths relative to the project)
#   REHEARSE_KEEP=1 keep the work root after the run
#   REHEARSE_BASE   start from this root instead of the cached debootstrap one
#                   (e.g. a work root kept by REHEARSE_KEEP: its deps and
#                   service builds are reused, the commit is cloned afresh)
#   REHEARSE_BENCH_ARGS  added to each `make bench` (e.g. MAX_TIME=2m: the
#                   default REPS=auto may take its whole 15 min per bench)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${REHEARSE_CACHE:-/var/cache/mtebench/rehearse-arm64}
WORK=${REHEARSE_WORK:-/var/tmp/mtebench-rehearse-arm64}
MIRROR=http://deb.debian.org/debian
TESTS=${REHEARSE_TESTS:-"$(echo build/tests/test_{util,workload,recipe,proof,platform,summary,machine,kernel,compare,proc}) build/tests/test_mode tests/integration/suite/lib.t tests/integration/cmd/harness-cli.t tests/integration/run/proof-emu.t tests/integration/run/proof-host.t tests/integration/cmd/deps.t tests/integration/run/arm64-paths.t"}

say() { printf '[rehearse %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { say "FAILED: $*"; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
[ "$(uname -m)" != aarch64 ] || say "note: this host is aarch64 already; the rehearsal still runs in a chroot"

# --- binfmt_misc with the F flag --------------------------------------------
if [ "$(uname -m)" != aarch64 ]; then
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    if ! grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
        die "qemu-aarch64 is not registered with binfmt_misc with the F flag (make deps registers it from qemu-user-binfmt 10)"
    fi
fi
command -v debootstrap >/dev/null || { say "installing debootstrap"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null || die "apt-get install debootstrap"; }

# --- the base root, made once -------------------------------------------------
T0=$(date +%s)
steps=()   # "name|seconds|result"
step() { # step NAME CMD...: run, time, record
    local name=$1 s e rc; shift
    say "start: $name"
    s=$(date +%s)
    "$@"; rc=$?
    e=$(date +%s)
    steps+=("$name|$((e - s))|$([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)")")
    say "end: $name: $([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)") in $((e - s)) s"
    return $rc
}
# REHEARSE_BASE: another root to start from (e.g. a copy taken after a
# previous rehearsal's make deps), used as it is
base=${REHEARSE_BASE:-$CACHE/base}
if [ -n "${REHEARSE_BASE:-}" ]; then
    [ -d "$base/usr" ] || die "REHEARSE_BASE=$base is not a root"
    say "base root given: $base"
elif [ ! -f "$base/.complete" ]; then
    mkdir -p "$CACHE"
    rm -rf "$base.tmp"
    step "debootstrap bookworm arm64 (once, cached in $base)" \
        debootstrap --arch=arm64 --variant=minbase --include=make,git,ca-certificates,file bookworm "$base.tmp" "$MIRROR" ||
        die "debootstrap (see above)"
    # the same suites as a Debian 12 server: updates and security
    rm -f "$base.tmp/etc/apt/sources.list"
    cat > "$base.tmp/etc/apt/sources.list.d/debian.sources" <<EOS
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
    touch "$base.tmp/.complete"
    mv "$base.tmp" "$base"
else
    say "base root cached: $base ($(du -sh "$base" | cut -f1))"
fi

# --- a fresh copy with the current commit ------------------------------------
commit=$(git -C "$ROOT" rev-parse HEAD) || die "not a git checkout: $ROOT"
[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] || say "note: uncommitted changes are not rehearsed (commit $commit)"
R=$WORK/root
mounted=()
umount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null; done
    mounted=()
}
finish() {
    umount_all
    [ -n "${REHEARSE_KEEP:-}" ] || rm -rf "$WORK"
}
trap finish EXIT
trap 'exit 130' INT TERM
umount -l "$R"/{dev/pts,dev,proc,sys,tmp} 2>/dev/null   # a previous run killed hard
rm -rf "$WORK"
mkdir -p "$WORK"
step "copy the base root" cp -a "$base" "$R" || die "copy"
cp /etc/resolv.conf "$R/etc/resolv.conf"
mkdir -p "$R/src"
# a root kept after an earlier rehearsal (REHEARSE_BASE) holds that run's
# clone and build: the commit is always cloned fresh
if [ -e "$R/src/mtebench" ]; then
    say "removing the base root's earlier clone /src/mtebench"
    rm -rf "$R/src/mtebench"
fi
step "clone commit ${commit:0:12}" bash -c "git clone -q --no-hardlinks '$ROOT' '$R/src/mtebench' && git -C '$R/src/mtebench' checkout -q '$commit'" ||
    die "clone"
for m in proc sys dev dev/pts tmp; do
    case $m in
        proc) mount -t proc proc "$R/proc" ;;
        sys) mount -t sysfs sys "$R/sys" ;;
        tmp) mount -t tmpfs -o size=2g tmpfs "$R/tmp" ;;
        *) mount --bind "/$m" "$R/$m" ;;
    esac && mounted+=("$R/$m")
done
inside() { chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    bash -c "cd /src/mtebench && $*"; }

say "inside: $(inside 'uname -m; grep -m1 -o "Features.*" /proc/cpuinfo | tr " " "\n" | grep -x "mte\|mte3" | tr "\n" " "')"
step "make deps" inside 'make deps'
# a bench's records (the newest results/*-memcached-MODE): every run on
# platform host, ok, its mode proved; prints what only hardware makes true
# (smaps_mt is the x86 host's smaps under qemu-user, perf has no arm64 PMU)
bench_records() {
    inside "d=\$(ls -d results/*-memcached-$1 | tail -n 1) && ls \$d/*/record.json >/dev/null &&
        for r in \$d/*/record.json; do
            jq -r '\"    \(input_filename | split(\"/\")[-2]): platform \(.platform.name), status \(.status), proof \(.proof.ok) (\(.proof.method)), smaps_mt \(.proof.smaps_mt), perf \(.perf | if . == null then \"null\" else (.note // .reason // \"counted\") end), warnings \(.warnings // [] | join(\"; \"))\"' \$r || exit 1
            jq -e '.platform.name == \"host\" and .status == \"ok\" and .proof.ok == true' \$r >/dev/null || { echo \"    not host/ok/proved: \$r\"; exit 1; }
        done"
}
for mode in sync async; do
    step "make bench SERVICE=memcached MODE=$mode DURATION=5s${REHEARSE_BENCH_ARGS:+ $REHEARSE_BENCH_ARGS}" \
        inside "make bench SERVICE=memcached MODE=$mode DURATION=5s ${REHEARSE_BENCH_ARGS:-}"
    step "  its records: platform host, ok, mode proved" bench_records $mode
done
# perf on platform host: one short tagged run with MACHINE=local's perf
# events (make bench's default MACHINE=auto counts none); prints what perf
# counted: under qemu-user perf_event_open reaches the x86 kernel, so the
# hardware events are not counted there; on MTE hardware they are (and the
# PMU's MTE events perf list shows: here none, each named missing)
host_perf() { # local's numa_node = 0 is refused there (set_mempolicy: ENOSYS under qemu-user)
    inside 'sed "s/^numa_node.*/numa_node = none/" configs/machines/local.conf > /tmp/rehearse-local.conf &&
        ./build/mtebench run --service memcached --variant tagged --mode sync --platform host --machine /tmp/rehearse-local.conf --duration 2 --warmup 0 \
            --results /tmp/rehearse-perf > /tmp/rehearse-perf.out 2>&1 || { tail -n 5 /tmp/rehearse-perf.out; exit 1; }
        r=$(ls /tmp/rehearse-perf/*/record.json) &&
        jq -r "\"    perf: \(.perf.status), events \(.perf.events | tojson), unsupported \(.perf.unsupported // [] | unique | join(\",\")), note \(.perf.note // \"-\"), MTE events \(.perf.mte.events // \"-\"), missing \(.perf.mte.missing // [] | join(\",\"))\"" $r &&
        jq -e ".status == \"ok\" and .proof.ok and (.perf | type) == \"object\"" $r >/dev/null'
}
step "perf on host (one 2 s tagged run, MACHINE=local's perf events, memory unbound)" host_perf
# qemu-user has MTE3 but no kernel preferred mode (the host's sysfs has no
# mte_tcf_preferred): asymm must be refused before the baseline run
asymm_refused() {
    local out rc
    out=$(inside 'timeout 300 make bench SERVICE=memcached MODE=asymm DURATION=5s 2>&1'); rc=$?
    printf '%s\n' "$out" | tail -n 3 | sed 's/^/    /'
    [ "$rc" != 0 ] && grep -q 'mte_tcf_preferred' <<< "$out" && ! grep -q '^memcached .* ops/s' <<< "$out"
}
step "make bench MODE=asymm refused before any run" asymm_refused
step "build the tests" inside 'make -s all build/tests/aarch64/libmtbplant.so $(ls tests/unit/test_*.c | sed "s|tests/unit/|build/tests/|; s|\.c$||")'
step "suite subset: $TESTS" inside "bash tests/run.sh $TESTS"
inside './build/mtebench doctor' | sed 's/^/    doctor: /'

say "summary (commit ${commit:0:12}, total $(( $(date +%s) - T0 )) s, all emulated: not hardware timing)"
fail=0
for s in "${steps[@]}"; do
    IFS='|' read -r n t r <<< "$s"
    printf '  %-70s %6s s  %s\n' "$n" "$t" "$r"
    [ "$r" = ok ] || fail=1
done
exit $fail
