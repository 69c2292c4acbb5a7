#!/bin/bash
# The libFuzzer targets of tests/fuzz/ (plan, machine profile and recipe
# parsers, the record loader, mtload's memcached and HTTP response parsers,
# the pgbench/db_bench/wrk adapters, HdrHistogram logs and histograms, a fault
# file's lines and the report made of them) each run
# for a few seconds from their
# seed corpora, under ASan, UBSan and LSan: no crash, no sanitizer report,
# no leak (a plan refused by mtb_die once leaked all it had read).
# `make fuzz` runs them longer (FUZZ_SECONDS, default 600). ~15 s once built
# (the first build of the sanitized objects takes a few minutes).
. "$(dirname "$0")/../../lib.sh"
command -v clang >/dev/null || skip_all "clang is not installed (make deps)"
cd "$ROOT" || exit 1
make --no-print-directory -j"$(nproc)" fuzz-build > "$T_TMP/build.log" 2>&1
ok $? "the fuzz targets build" || { dump "$T_TMP/build.log"; done_testing; }
for t in build/fuzz/fuzz_*; do
    n=$(basename "$t")
    [ -x "$t" ] || continue
    mkdir -p "$T_TMP/new-$n"   # what it finds goes here, not into the seed corpus
    ASAN_OPTIONS=detect_leaks=1 timeout 60 "$t" -max_total_time="${FUZZ_SHORT:-1}" -max_len=65536 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$T_TMP/$n-" "$T_TMP/new-$n" "tests/fuzz/corpus/$n" > "$T_TMP/$n.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T_TMP/$n.log")
    # a crash, leak or timeout (-timeout=10) leaves an artifact; a slow unit
    # (over 10 s of wall time) is only shown: the machine's VM was once frozen
    # for a snapshot mid-unit (the kernel: "crng reseeded due to virtual
    # machine fork"), and the input took 0.06 s when run again
    found=$(ls "$T_TMP/$n-"* 2>/dev/null | grep -v -- '-slow-unit-')
    ls "$T_TMP/$n-slow-unit-"* >/dev/null 2>&1 && diag "$n: a slow unit: $(grep -m1 'Slowest unit' "$T_TMP/$n.log")"
    # and it ran: a target that executed no input (it died at start, or
    # found no corpus) proves nothing
    ok "$( [ $rc = 0 ] && [ -z "$found" ] && [ "${runs:-0}" -gt 0 ] &&
           ! grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$T_TMP/$n.log"; echo $?)" \
       "$n: ${runs:-0} inputs, no crash or sanitizer report" || dump "$T_TMP/$n.log" 30
done
# run by hand without -artifact_prefix (as the two crash-* once committed in
# the root were), what a target finds goes next to it, not into the current
# directory: an RSS limit of 1 MB makes it write an oom- artifact at once
t=build/fuzz/fuzz_record
if [ -x "$t" ]; then
    mkdir -p "$T_TMP/bin" "$T_TMP/cwd" "$T_TMP/new"
    cp "$t" "$T_TMP/bin/"
    (cd "$T_TMP/cwd" && ASAN_OPTIONS=detect_leaks=1 timeout 60 "$T_TMP/bin/fuzz_record" -rss_limit_mb=1 -max_total_time=20 \
        "$T_TMP/new" "$ROOT/tests/fuzz/corpus/fuzz_record" > "$T_TMP/oom.log" 2>&1)
    ok "$(ls "$T_TMP/bin/fuzz_record-oom-"* >/dev/null 2>&1 && [ -z "$(ls -A "$T_TMP/cwd")" ]; echo $?)" \
       "without -artifact_prefix, a finding goes next to the binary, not into the current directory" ||
        { ls -la "$T_TMP/cwd" "$T_TMP/bin"; dump "$T_TMP/oom.log" 10; }
fi
done_testing
