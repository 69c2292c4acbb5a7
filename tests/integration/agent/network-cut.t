#!/bin/bash
# The network cut under a server-host run (tests/hosts.sh: h1 the server
# host; its link cut at the bridge, as a cable pulled, for 14 s: longer than
# the controller's deadline for a silent host, --ssh-alive 6 s here (15 s by
# default) plus a keepalive interval and 3 s of slack = 11 s):
# 1. `bench` (2 runs of 3 s, memcached under emu on h1): the link is cut 2 s
#    into run 1's measurement on h1: the far run then has about 1 s of load,
#    memcached's stop and its record left, well within --ssh-alive (cut
#    earlier, a loaded machine may not finish that in time, and the far
#    watchdog rightly stops it; cut once mtload had ended, the far run could
#    be over before the cut took hold, and the controller failed later,
#    fetching the results: the cold suite's network-cut.t on b1f7c2e, once
#    memcached stopped at once).
#    The controller names the lost connection within its deadline (measured
#    from the cut), run 2, tried while the link is down, fails naming h1,
#    and run 1, which finished on h1 meanwhile, waits there; nothing of ours
#    is left on h1 or here. With the link back, `--resume` brings run 1's
#    record back from h1 (said in hosts.recovered; its far output removed
#    there) and redoes run 2: both records ok.
# 2. `bench` of 20 s runs: the link is cut as run 1 starts measuring. The
#    far watchdog, hearing nothing from the controller for --ssh-alive,
#    stops it: memcached, mtload and the far mtebench are gone from h1
#    within --ssh-alive plus the watchdog's 5 s grace (measured), its log
#    says why, and the controller named the failure within its deadline too.
# About 55 s warm (two benches, two cuts of 14 s).
. "$(dirname "$0")/../../lib.sh"
. "$ROOT/tests/hosts.sh"
M="$B/mtebench"
[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"
[ -x /usr/sbin/sshd ] || skip_all "no sshd (openssh-server; make deps)"
command -v qemu-aarch64 >/dev/null || skip_all "no qemu-aarch64 (make deps)"

out=$("$M" bench --service memcached --mode sync --server-host h1 --ssh-alive 1 --dry-run 2>&1); st=$?
ok "$( [ $st = 2 ] && grep -q -- "--ssh-alive '1': a duration from 3 s to 1 h" <<< "$out"; echo $?)" "--ssh-alive 1: refused, saying what it takes"
ALIVE=6                       # --ssh-alive: keepalives every 2 s, 3 unanswered; the far heartbeat's limit
DEADLINE=$((ALIVE + ALIVE / 3 + 3))   # ssh gives up after CountMax + 1 intervals at worst; 3 s of slack for a loaded machine
hosts_prebuild memcached plain tagged; ok $? "memcached's emu builds (plain tagged) made here, outside the namespaces" || done_testing
hosts_up 1; ok $? "host h1 up" || done_testing
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
# ours on h1: the far mtebench, its watchdog, memcached (under qemu), mtload (sshd's own processes aside)
ours() { hosts_ps h1 | grep -v sshd | grep -E 'mtebench|memcached|mtload|qemu|mtb-agent|sleep|cat' ; }
gone() { local i; for i in $(seq "${1:-50}"); do [ -z "$(ours)" ] && return 0; sleep 0.1; done; return 1; }
# our ssh processes here (the controller): none once its mtebench has ended
ssh_here() { pgrep -f -- "-F $HOSTS_DIR/ssh_config" | tr '\n' ' '; }
# measure: wait until the far mtload of run dir $1 measures (not its preload); return at once if $2 (pid) ended
measuring() {
    local i
    for i in $(seq 1200); do
        [ -d "$1" ] && hosts_exec h1 pgrep -f 'build/mtload .*--duration' > /dev/null && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}
# the error record of run dir $1, once written; $2: the time of the cut; prints seconds since it
named_after() {
    local i
    for i in $(seq 600); do
        [ -f "$1/record.json" ] && { since "$2"; return 0; }
        sleep 0.05
    done
    echo never
}
SSH=(--ssh-config "$HOSTS_DIR/ssh_config" --ssh-alive "$ALIVE")
R="$T_TMP/r"
t0=$(now)

# ---- 1: cut while run 1 measures; --resume brings back what h1 finished -------------------
hosts_ctl "$M" bench --service memcached --mode sync --platform emu --server-host h1 --duration 3 --warmup 0 \
    --reps 1 --conns 4 "${SSH[@]}" --results "$R" > "$T_TMP/b1.out" 2>&1 &
bp=$!
R2="$R/001-memcached-default-plain-off-rep1"
measuring "$R2" $bp && sleep 2; ok $? "run 1 measures on h1 (2 s of its 3 s)" || { dump "$T_TMP/b1.out"; done_testing; }
t_cut=$(now)
hosts_link h1 down
el=$(named_after "$R2" "$t_cut")
ok "$(echo "$el != \"never\" && $el <= $DEADLINE" | sed 's/"never"/0/' | bc -l 2>/dev/null | grep -q 1; echo $?)" \
    "the controller names the failure ${el} s after the cut (deadline ${DEADLINE} s: --ssh-alive $ALIVE + a keepalive interval + 3)"
err2=$(jq -r .error "$R2/record.json")
ok "$(grep -q '^server host h1: ssh h1: the connection was lost during mtebench run (no answer for 6 s' <<< "$err2"; echo $?)" \
    "... naming h1 and why: $err2"
far2=$(jq -r '.hosts.far_out // ""' "$R2/record.json")
ok "$( [ -n "$far2" ]; echo $?)" "... and where its output stays on h1 ($far2)"
while [ "$(since "$t_cut" | cut -d. -f1)" -lt 14 ]; do sleep 0.2; done
# run 1 finished on h1 while the link was down; nothing of ours runs there any more
ok "$(hosts_exec h1 test -s "$far2/001-plain-off/record.json"; echo $?)" "run 1 finished on h1 during the cut (its record there)"
is "$(ours)" "" "nothing of ours left running on h1 after its watchdog's time (--ssh-alive + 5 s)"
hosts_link h1 up
wait $bp; st=$?
diag "part 1 up to the link back: $(since "$t0") s"
is "$st" 1 "bench ends with failures (exit 1)" || dump "$T_TMP/b1.out"
is "$(ssh_here)" "" "no ssh of ours left on the controller"
for r in "$R"/002-*/record.json; do
    s=$(jq -r .status "$r"); e=$(jq -r '.error // ""' "$r")
    # tried with the link down: fails naming h1
    ok "$( [ "$s" = error ] && grep -q '^server host h1: ssh h1: ' <<< "$e"; echo $?)" "run 2, tried during the cut: $s ${e:0:90}"
done

hosts_ctl "$M" bench --service memcached --mode sync --platform emu --server-host h1 --duration 3 --warmup 0 \
    --reps 1 --conns 4 "${SSH[@]}" --resume "$R" > "$T_TMP/b2.out" 2>&1
is "$?" 0 "--resume with the link back: exit 0" || dump "$T_TMP/b2.out"
diag "part 1 with --resume: $(since "$t0") s"
is "$(jq -r .status "$R"/00[12]-*/record.json | sort | uniq -c | awk '{print $2 "=" $1}')" "ok=2" "both records ok"
ok "$(grep -q 'run 1/2: brought back from server host h1, where it finished after the connection was lost' "$T_TMP/b2.out"; echo $?)" \
    "--resume says run 1 was brought back" || dump "$T_TMP/b2.out"
ok "$(ls -d "$R"/.attempts/002-* > /dev/null 2>&1; echo $?)" "... and run 2 was redone (its failed attempt moved aside)"
jq_e --arg far "$far2" '.hosts.recovered.far_out == $far and (.hosts.recovered.earlier_error | startswith("server host h1: ssh h1: the connection was lost"))
    and .hosts.server.hostname == "h1" and .summary.ops_per_sec > 0 and (.hosts | has("far_out") | not)' "$R2/record.json" > /dev/null
ok $? "run 1's record is h1's, brought back (hosts.recovered), not run again"
started2=$(date -d "$(jq -r .started "$R2/record.json")" +%s)
ok "$( [ "$started2" -le "${t_cut%.*}" ]; echo $?)" "... it started before the cut"
[ -f "$R2/server/001-plain-off/service.log" ]; ok $? "... with the far run's files (service.log)"
is "$(hosts_exec h1 sh -c 'ls /root/.mtebench-agent/out/ 2>/dev/null' | tr '\n' ' ')" "" "its output removed from h1"
gone; ok $? "nothing of ours left on h1" || ours | sed 's/^/#   /'

# ---- 2: cut as a 20 s run starts measuring: the far watchdog stops it -----------------------
R="$T_TMP/r2"
hosts_ctl "$M" bench --service memcached --mode sync --platform emu --server-host h1 --duration 20 --warmup 0 \
    --reps 1 --conns 4 "${SSH[@]}" --results "$R" > "$T_TMP/b3.out" 2>&1 &
bp=$!
R1="$R/001-memcached-default-plain-off-rep1"
measuring "$R1" $bp; ok $? "a 20 s run measures on h1" || { dump "$T_TMP/b3.out"; done_testing; }
t_cut=$(now)
hosts_link h1 down
t_gone=never
for i in $(seq 400); do
    [ -z "$(ours)" ] && { t_gone=$(since "$t_cut"); break; }
    sleep 0.05
done
ok "$(echo "$t_gone" | grep -q '^[0-9.]*$' && [ "$(echo "$t_gone <= $ALIVE + 5 + 2" | bc)" = 1 ]; echo $?)" \
    "the far watchdog stopped memcached, mtload and mtebench on h1 ${t_gone} s after the cut (limit $((ALIVE + 7)) s: --ssh-alive + 5 s grace + 2)"
ok "$(hosts_exec h1 sh -c 'cat /root/.mtebench-agent/out/*.log' | grep -q "mtebench agent: nothing heard from the controller for $ALIVE s: stopping it"; echo $?)" \
    "its log says why" || hosts_exec h1 sh -c 'ls -la /root/.mtebench-agent/out/; tail -3 /root/.mtebench-agent/out/*.log' 2>&1 | sed 's/^/#   /'
el=$(named_after "$R1" "$t_cut")
ok "$(echo "$el" | grep -q '^[0-9.]*$' && [ "$(echo "$el <= $DEADLINE" | bc)" = 1 ]; echo $?)" \
    "the controller named the failure ${el} s after the cut (deadline ${DEADLINE} s)"
wait $bp            # run 2 is tried with the link still down, and fails at once: bench ends
is "$?" 1 "bench ends with the failure (exit 1)"
# the link stays down until no ssh of ours is left here, at most 14 s from the cut (as long as in part 1)
while [ -n "$(ssh_here)" ] && [ "$(since "$t_cut" | cut -d. -f1)" -lt 14 ]; do sleep 0.2; done
hosts_link h1 up
is "$(ssh_here)" "" "no ssh of ours left on the controller"
gone; ok $? "nothing of ours left on h1" || ours | sed 's/^/#   /'
diag "parts 1 and 2: $(since "$t0") s"
done_testing
