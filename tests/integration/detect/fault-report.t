#!/bin/bash
# Fault reports (docs/DETECTION.md, "Fault reports"): one planted bug per
# case of tests/shim/faultcases.c, run under qemu-aarch64 -cpu max with
# glibc's tagged malloc, libmtealloc.so (the allocation record) and
# libmtefault.so preloaded as detect's trials have them; `mtebench explain`
# must name the cause, the object's size and the offset each case planted,
# what the instruction did, and the functions of the fault's, the
# allocation's and the free's stacks (addr2line on the -g binary). Then what
# is left without the allocation record (the cause unknown, said so) and in
# async mode (no address: said so, the system call it was raised at named);
# a user's own run with --fault-report. The catalogue's catches explained
# are detect-memcached.t's and stacktag.t's.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
FC="$B/tests/aarch64/faultcases"
command -v qemu-aarch64 >/dev/null || skip_all "no qemu-aarch64"
[ -x "$FC" ] || skip_all "no $FC (make test builds it)"
pre="$B/aarch64/libmtealloc.so:$B/aarch64/libmtefault.so"

# run CASE TUNABLE PRELOAD: the case's fault file, its status in $T_TMP/CASE.rc
run_case() {
    local c=$1 tun=$2 pl=$3 f="$T_TMP/$1-$2.txt"
    rm -f "$f"
    GLIBC_TUNABLES=glibc.mem.tagging=$tun MTEBENCH_FAULT_FILE="$f" \
        timeout 60 qemu-aarch64 -cpu max -E LD_PRELOAD="$pl" "$FC" "$c" > "$T_TMP/$c.out" 2>&1
    echo $? > "$T_TMP/$c-$tun.rc"
}
explain() { "$M" explain --json "$1" > "$T_TMP/ex.json" 2> "$T_TMP/ex.err"; }
# the one report of the last explain
rep() { jq -c "[.[]][0].report | $1" "$T_TMP/ex.json"; }
fn_in() { jq -e --arg f "$2" "[.[]][0].report.$1 | map(.function) | index(\$f) != null" "$T_TMP/ex.json" >/dev/null; }

# CASE CAUSE SIZE RELATION DISTANCE ACCESS FAULT-FUNCTION
while IFS='|' read -r c cause size rel dist acc ffn; do
    run_case "$c" 3 "$pre"
    is "$(cat "$T_TMP/$c-3.rc")" 139 "$c: the planted bug faults (SIGSEGV) under tagging=3 with the preloads" ||
        dump "$T_TMP/$c.out"
    explain "$T_TMP/$c-3.txt"
    is "$?" 0 "$c: explain reads the fault file" || dump "$T_TMP/ex.err"
    is "$(rep '[.cause, .object.size, .object.relation, .object.distance, .object.kind]')" \
       "[\"$cause\",$size,\"$rel\",$dist,\"heap\"]" "$c: $cause, $rel a $size-byte heap object by $dist bytes"
    [ "$acc" != - ] && is "$(rep .access)" "\"$acc\"" "$c: the faulting instruction was a $acc"
    ok "$(fn_in stack "$ffn"; echo $?)" "$c: the fault's stack names $ffn" || rep .stack
    ok "$(fn_in alloc_stack make_object && fn_in alloc_stack main; echo $?)" "$c: the allocation's stack: make_object, main"
    ok "$(jq -e '[.[]][0] | (.report.pointer_tag != .report.memory_tag) and (.tags.tags | length == 33)' "$T_TMP/ex.json" >/dev/null; echo $?)" \
       "$c: the pointer's tag and the memory's differ; 33 granules' tags around"
done <<'EOF'
uaf|use after free|64|into|24|read|read_at
overflow|buffer overflow|64|past|8|write|write_at
underflow|buffer underflow|64|before|16|read|read_at
far|buffer overflow|64|past|72|write|write_at
double-free|double free|64|into|0|-|__libc_free
EOF

# one whole report as text, as a user sees it
"$M" explain "$T_TMP/uaf-3.txt" > "$T_TMP/uaf.txt" 2>&1
ok "$(grep -q '^Cause: \[MTE\]: use after free, 24 bytes into a 64-byte heap object at 0x' "$T_TMP/uaf.txt" &&
      grep -q '^freed by thread [0-9]*:' "$T_TMP/uaf.txt" && grep -Eq '#0 0x[0-9a-f]+ drop_object \(faultcases.c:[0-9]+\)' "$T_TMP/uaf.txt"; echo $?)" \
   "uaf as text: the cause line, the free's stack with its source line" || dump "$T_TMP/uaf.txt"
explain "$T_TMP/double-free-3.txt"
ok "$(fn_in free_stack drop_object && fn_in second_free_stack drop_object; echo $?)" "double free: both frees' stacks"

# no allocation record: the fault, the tags and the stack, the cause unknown
run_case uaf 3 "$B/aarch64/libmtefault.so"
explain "$T_TMP/uaf-3.txt"
is "$(rep '[.cause, .allocation_record]')" '["unknown (no allocation record)",false]' \
   "without libmtealloc.so: the cause is not guessed"
ok "$(fn_in stack read_at; echo $?)" "... the fault's stack still named"

# async (tagging=1): SEGV_MTEAERR carries no address
run_case overflow 1 "$pre"
is "$(cat "$T_TMP/overflow-1.rc")" 139 "async: the overflow faults, later"
explain "$T_TMP/overflow-1.txt"
is "$(rep .cause)" '"unknown: asynchronous, the address is not known"' "async: the address is not known, and the report says so"
ok "$(jq -e '[.[]][0] | .si_code == 8 and (.report.stack | length) > 0' "$T_TMP/ex.json" >/dev/null; echo $?)" \
   "async: si_code 8; the stack where it was raised"

# a user's own run: `run --fault-report` on a service that dies of a tag
# check fault (memcached's test-only planted use after free of a slab
# chunk, objtag's chunk told to libmtealloc), then `explain DIR`
MTEBENCH_PLANT=uaf "$M" run --service memcached --variant objtag-plant --mode sync --platform emu --duration 3 \
    --warmup 0 --fault-report --results "$T_TMP/own" > "$T_TMP/own.out" 2>&1
is "$?" 3 "run --fault-report: the planted use after free is a fault (exit 3)" || dump "$T_TMP/own.out"
d="$T_TMP/own/001-objtag-plant-sync"
ok "$(jq_e '.fault_report == true and .fault.report.cause == "use after free" and .fault.report.object.kind == "service"
      and (.fault.report.free_stack | map(.function) | index("do_slabs_free") != null)' "$d/record.json" >/dev/null; echo $?)" \
   "its record: the use after free of a slab chunk, the free's stack through do_slabs_free" ||
    "$M" explain "$d" | sed 's/^/#   /'
"$M" explain "$d" > "$T_TMP/own.txt" 2>&1
ok "$(grep -q '^Cause: \[MTE\]: use after free, [0-9]* bytes into a [0-9]*-byte object of the service.s own allocator' "$T_TMP/own.txt"; echo $?)" \
   "explain DIR prints it" || dump "$T_TMP/own.txt"
"$M" bench --service memcached --mode sync --fault-report > /dev/null 2> "$T_TMP/e"
is "$?" 2 "--fault-report on bench: refused (exit 2), a timed run never carries the record"

# bad input
"$M" explain "$T_TMP/nosuch" > /dev/null 2> "$T_TMP/e"
is "$?" 2 "explain of a missing path: exit 2"
echo "nothing here" > "$T_TMP/empty.txt"
"$M" explain "$T_TMP/empty.txt" > /dev/null 2> "$T_TMP/e"
is "$?" 1 "explain of a file with no fault: exit 1"
ok "$(grep -q 'no MTEBENCH-FAULT line' "$T_TMP/e"; echo $?)" "... saying why"
done_testing
