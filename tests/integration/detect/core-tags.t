#!/bin/bash
# Core dumps with tags (docs/DETECTION.md, "Cores"): a detect trial on vm,
# memcached's CVE-2016-8704 under objtag/sync (a linear overflow into the
# next slab chunk, whose tag objtag keeps different: caught every time).
# The guest's /init points core_pattern at /tmp/cores, the trial's guest run
# (run --core) raises the service's RLIMIT_CORE after the proof, and the real
# kernel writes memcached's core with a PT_AARCH64_MEMTAG_MTE segment per
# PROT_MTE mapping; the run slims it (the tags and notes whole, the memory
# near the fault and the stack) and hands it back as `core`. Checked:
#  - the record's core: tag segments, the memory tag at the fault's address,
#    smaller than the kernel's;
#  - `explain` of the core alone: the fault from the core's own siginfo
#    (libmtefault lets a synchronous fault happen again under the default
#    action, so the core says SEGV_MTESERR and the address, not SI_TKILL),
#    and the 33 granules' tags around it exactly as the fault handler read
#    them with LDG in the dying process;
#  - gdb's reading of the same core (gdb-multiarch, `memory-tag
#    print-allocation-tag`) gives the same tags, granule by granule;
#  - `explain` of the trial's directory sets the core beside the fault file:
#    the kernel's tag agrees with the handler's.
# And the trial's report names memcached's functions: the guest's
# /mtb/builds/memcached/objtag-bugs is the build's cache directory here.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
command -v gdb-multiarch > /dev/null || skip_all "no gdb-multiarch (make deps)"
R="$T_TMP/d"
"$M" detect --service memcached --platform vm --bugs CVE-2016-8704 --variants objtag --modes sync --trials 1 \
    --results "$R" > "$T_TMP/out" 2>&1
is "$?" 0 "detect on vm: the trial reached its bug (exit 0)" || dump "$T_TMP/out"
T="$R/CVE-2016-8704/objtag-sync-001"
ok "$(jq_e '.outcome == "caught_sync"' "$T/detect.json" > /dev/null; echo $?)" "objtag/sync: caught synchronously" ||
    jq -c '{outcome, error}' "$T/detect.json" | sed 's/^/# /'
ok "$(jq_e '[.fault.report.stack[] | select(.module == "memcached") | .source // empty] | length > 0' "$T/detect.json" > /dev/null; echo $?)" \
   "the guest's frames symbolised here, on this machine's copy of the build the guest ran ($(jq -r '[.fault.report.stack[] | select(.module == "memcached") | .function // "??"] | join(" < ")' "$T/detect.json"))"
rec=$(ls "$T"/guest/*/record.json 2> /dev/null | head -1)
core=$(dirname "${rec:-/none}")/core
ok "$(jq_e '.core.file == "core" and .core.tag_segments > 0 and (.core.memory_tag | type) == "number"
      and .core.bytes < .core.kernel_bytes' "$rec" > /dev/null && [ -s "$core" ]; echo $?)" \
   "the guest run kept the core: $(jq -c '.core | {tag_segments, bytes, kernel_bytes, memory_tag}' "$rec" 2> /dev/null)" ||
    { jq -c .core "$rec"; dump "$T/guest/agent.log"; }

# the core alone
"$M" explain --json "$core" > "$T_TMP/core.json" 2> "$T_TMP/core.err"
is "$?" 0 "explain CORE (exit 0)" || dump "$T_TMP/core.err"
C=$(jq -c --arg k "$core" '.[$k]' "$T_TMP/core.json")
F=$(jq -c '.fault' "$T/detect.json")
ok "$(jq_e '.core.siginfo and .signal == 11 and .si_code == 9 and .tag_check and (.report.cause | length) > 0' <<< "$C" > /dev/null; echo $?)" \
   "the core's own siginfo: SIGSEGV, SEGV_MTESERR, a report ($(jq -r '.report.headline' <<< "$C"))"
caddr=$(jq -r '.addr' <<< "$C"); faddr=$(jq -r '.addr' <<< "$F")
is "$(( caddr & 0x00ffffffffffffff ))" "$(( faddr & 0x00ffffffffffffff ))" "the core's fault address is the handler's ($faddr)"
ctags=$(jq -r '.tags.tags' <<< "$C"); ftags=$(jq -r '.tags.tags' <<< "$F")
ok "$([ ${#ctags} = 33 ] && [ "$ctags" = "$ftags" ]; echo $?)" \
   "the 33 granules' tags from the core's tag segment are those LDG read in the dying process ($ctags)" ||
    diag "core $ctags, handler $ftags"

# gdb reads the same tags from the same core
base=$(jq -r '.tags.base' <<< "$C")
args=()
for i in $(seq 0 32); do args+=(-ex "memory-tag print-allocation-tag $(printf '0x%x' $(( base + 16 * i )))"); done
gdb-multiarch -nx -batch -ex "set architecture aarch64" -ex "core-file $core" "${args[@]}" > "$T_TMP/gdb.out" 2>&1
g=$(grep -oE '^\$[0-9]+ = 0x[0-9a-f]+' "$T_TMP/gdb.out" | sed 's/.*0x//' | tr -d '\n')
w=$(tr -d '-' <<< "$ctags")
ok "$([ ${#w} -gt 16 ] && [ "$g" = "$w" ]; echo $?)" "gdb's memory-tag print-allocation-tag gives the same ${#w} tags" ||
    { diag "gdb '$g', mtebench '$w'"; dump "$T_TMP/gdb.out" 20; }

# the trial's directory: its fault file with the core beside it
"$M" explain --json "$T" > "$T_TMP/dir.json" 2> "$T_TMP/dir.err"
ok "$(jq_e '.[] | .core.agrees and .core.tag_segments > 0' "$T_TMP/dir.json" > /dev/null; echo $?)" \
   "explain of the trial: the kernel's tag at the address agrees with the handler's" || dump "$T_TMP/dir.err"
"$M" explain "$T" > "$T_TMP/dir.txt" 2>&1
ok "$(grep -q '^core: .*: [0-9]* tag segments\? (PT_AARCH64_MEMTAG_MTE); the memory tag at the address 0x[0-9a-f] (as the fault handler.s)' "$T_TMP/dir.txt"; echo $?)" \
   "explain's text names the core and its agreement" || dump "$T_TMP/dir.txt"

# what is not a core
"$M" explain "$B/aarch64/mtebench" > "$T_TMP/notcore" 2>&1
ok "$([ $? = 1 ] && grep -q 'not an AArch64 core file' "$T_TMP/notcore"; echo $?)" "an ELF file that is not a core: named, exit 1" ||
    dump "$T_TMP/notcore"
head -c 100 "$core" > "$T_TMP/short"
"$M" explain "$T_TMP/short" > "$T_TMP/short.out" 2>&1
ok "$([ $? = 1 ] && grep -q 'truncated\|too short' "$T_TMP/short.out"; echo $?)" "a truncated core: named, exit 1" || dump "$T_TMP/short.out"
done_testing
