#!/bin/bash
# A full or read-only results volume: the error names the reason (ENOSPC,
# EROFS) and the file, nothing is listed that was not written, the exit
# status is 1, and what was written stays intact. (Once "cannot write
# record.json" without a reason, summary.json listed though not written,
# exit 0.) Needs root (mount). ~40 s.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
[ "$(id -u)" = 0 ] || skip_all "needs root to mount a tmpfs"
V="$T_TMP/vol"
mkdir -p "$V"
mount -t tmpfs -o size=1m tmpfs "$V" || skip_all "cannot mount a tmpfs"
trap 'umount -l "$V" 2>/dev/null; cleanup' EXIT
# fill the volume once the first run's record is written: the second run's
# record and the summary find no room
setsid "$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 2 --warmup 0 \
    --results "$V/r" > "$T_TMP/out" 2> "$T_TMP/err" &
pid=$!
note_pgid "$pid"
for _ in $(seq 1 600); do
    [ -f "$V/r/001-memcached-default-plain-off-rep1/record.json" ] && [ -f "$V/r/002-memcached-default-tagged-sync-rep1/preload.json" ] && break
    sleep 0.1
done
cp "$V/r/001-memcached-default-plain-off-rep1/record.json" "$T_TMP/first.json"
dd if=/dev/zero of="$V/filler" bs=4k 2>/dev/null
wait "$pid"; rc=$?
is "$rc" 1 "full volume: exit status 1" || dump "$T_TMP/err"
ok "$(grep -q "cannot write $V/r/002-memcached-default-tagged-sync-rep1/record.json: No space left on device (ENOSPC)" "$T_TMP/err"; echo $?)" \
   "the record that found no room is named with ENOSPC" || dump "$T_TMP/err" 12
ok "$(grep -q "cannot write $V/r/summary.json: No space left on device (ENOSPC)" "$T_TMP/err"; echo $?)" "so is the summary"
ok "$(! grep -q "^summary: $V/r/summary.json" "$T_TMP/out"; echo $?)" "the summary is not listed as written"
ok "$(! [ -e "$V/r/summary.json" ]; echo $?)" "and not there"
ok "$(cmp -s "$T_TMP/first.json" "$V/r/001-memcached-default-plain-off-rep1/record.json"; echo $?)" "the first record is intact"
ok "$(! ls "$V"/r/*/*.tmp.* >/dev/null 2>&1; echo $?)" "no half-written files"

# read-only: refused before anything runs, naming EROFS and the file
rm -f "$V/filler"
mount -o remount,ro "$V"
"$M" bench --service memcached --mode sync --platform emu --reps 1 --duration 1 --warmup 0 \
    --results "$V/r" > "$T_TMP/out2" 2> "$T_TMP/err2"
is "$?" 1 "read-only volume: exit status 1"
ok "$(grep -q "cannot write $V/r/.mtebench-running: Read-only file system (EROFS)" "$T_TMP/err2"; echo $?)" "names the file and EROFS" || dump "$T_TMP/err2"
ok "$(cmp -s "$T_TMP/first.json" "$V/r/001-memcached-default-plain-off-rep1/record.json"; echo $?)" "the first record still intact"
done_testing
