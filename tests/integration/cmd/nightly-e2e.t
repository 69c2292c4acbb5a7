#!/bin/bash
# The nightly end to end on a real memcached under emu: three short nights,
# then a fourth with a real slowdown (the whole night capped by a cgroup CPU
# quota of 25% of one CPU). The history must hold every night, the dashboard
# every series, and the exit status must report the regression in the fourth
# night and none before it. Six runs a night: 18 before the slowdown and 6
# after it, and even 6 against one night's 6 give a Mann-Whitney p of 0.002,
# so the significance threshold here is 0.01 (the default, 0.001, needs
# more runs).
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
unset MTEBENCH_QUIET_SAMPLE   # the quiet check as users get it (0.5 s sample; tests/lib.sh shortens it)

# a cgroup with a CPU quota: v2 (cpu.max) or v1 (cpu.cfs_quota_us)
CG=""
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    CG=/sys/fs/cgroup/mtebench-test-$$
    mkdir "$CG" 2>/dev/null && echo "25000 100000" > "$CG/cpu.max" 2>/dev/null || CG=""
fi
if [ -z "$CG" ] && [ -w /sys/fs/cgroup/cpu ]; then
    CG=/sys/fs/cgroup/cpu/mtebench-test-$$
    mkdir "$CG" 2>/dev/null && echo 100000 > "$CG/cpu.cfs_period_us" && echo 25000 > "$CG/cpu.cfs_quota_us" || CG=""
fi
[ -n "$CG" ] || skip_all "no writable cgroup with a CPU controller (v2 cpu.max or v1 cpu.cfs_quota_us)"
trap 'cleanup; rmdir "$CG" 2>/dev/null' EXIT
diag "slowdown: $CG, quota 25% of one CPU"

# the baseline alone (modes = off): 6 runs of 0.5 s per night: a change
# judged against one night alone (a big drift just before it bounds its
# window) can reach p 0.002 with 6 and 6 runs, not below 0.029 with 4 and 4
# (CI on 41d2a67: night 3 +40%, night 4 -84% not reported)
cat > "$T_TMP/e2e.conf" <<'EOC'
[plan]
name = e2e
reps = 6
duration = 0.5s
warmup = 0

[mc]
service = memcached
mix = 1:10
modes = off
EOC
H="$T_TMP/history.sqlite"; D="$T_TMP/dash"
night() { # night N [wrapper...]
    local n=$1; shift
    # the night-to-night drift of emulated timings on a busy 2-core machine
    # passes 2% (the default) and was seen at 18% while a build ran beside
    # it; the deliberate slowdown (a quarter of one CPU) is 70-86%, so only a
    # change of 30% or more counts here
    "$@" "$M" nightly --plan "$T_TMP/e2e.conf" --platform emu --history "$H" --out "$D" --min-change 0.50 --threshold 0.01 \
        --results "$T_TMP/night$n" > "$T_TMP/n$n.out" 2> "$T_TMP/n$n.err"
}
# each night's runs: throughput and the hypervisor's share of their CPUs
# (steal: a night whose runs lost ten points more than the typical night's
# is busy, kept out; CI on a97a1f6 once saw a night at half the throughput
# of the night before, its steal not recorded then)
nights_diag() { sqlite3 "$H" "SELECT 'night ' || night || ': ops/s ' || group_concat(printf('%.0f', ops_per_sec), ' ')
    || '; steal ' || group_concat(printf('%.2f', steal), ' ') FROM runs GROUP BY night" | sed 's/^/# /'; }
for n in 1 2 3; do
    night $n
    is "$?" 0 "night $n: no regression (exit 0)" || { dump "$T_TMP/n$n.out"; dump "$T_TMP/n$n.err" 20; nights_diag; }
done
capped() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }
night 4 capped
is "$?" 3 "night 4 (CPU-capped): regression reported (exit 3)" || { dump "$T_TMP/n4.out"; dump "$T_TMP/n4.err" 20; nights_diag; }
ok "$(grep -q '^# mtebench nightly: REGRESSION' "$T_TMP/n4.out"; echo $?)" "digest says REGRESSION"

is "$(sqlite3 "$H" 'SELECT count(*) FROM nights')" 4 "history holds 4 nights"
is "$(sqlite3 "$H" "SELECT count(*) FROM runs WHERE status = 'ok'")" 24 "and 24 runs"
is "$(sqlite3 "$H" "SELECT count(*) FROM runs WHERE steal BETWEEN 0 AND 1")" 24 \
    "each run's steal (the hypervisor's share of its CPUs, from its record) is in the history"
ok "$(jq_e '[.nights[] | select(.steal >= 0 and .steal <= 1)] | length == 4' "$D/analysis.json" >/dev/null; echo $?)" \
    "analysis.json: each night's steal"
A="$D/analysis.json"
ok "$(jq_e '[.series[].metric] | sort == ["p99","throughput"]' "$A" >/dev/null; echo $?)" "series: throughput and p99 of the configuration"
ok "$(jq_e '[.new[] | select(.metric == "throughput" and .x == 4 and .change <= -0.5)] | length == 1' "$A" >/dev/null; echo $?)" \
    "new throughput regression at night 4, at least 50% down" ||
    jq -c '.new[], .nights[], .series[] | {metric, x, y, change, p_mwu, p_split, id, quiet, busy_why} | with_entries(select(.value != null))' "$A" | sed 's/^/# /'
jq -r '.new[] | "# \(.metric): \(.change*100|round)% [\(.ci_lo*100|round)%, \(.ci_hi*100|round)%], p(MWU) \(.p_mwu), p(t) \(.p_split)"' "$A"
# emulated timings drift from night to night, so a small change point before
# night 4 may be found; none of them may be a regression
# (throughput: the p99 of four 1 s emulated runs a night once moved +80% at
# night 2 on an idle machine, fd1dce6; the p99 series is shown, not judged)
ok "$(jq_e '[.series[] | select(.metric == "throughput") | .changes[] | select(.x < 4 and .kind == "regression")] | length == 0' "$A" >/dev/null; echo $?)" \
    "no throughput regression before night 4" || jq -c '.series[] | .changes[] | {x, kind, change}' "$A" | sed 's/^/# /'
html="$D/index.html"
is "$(grep -c '<section class="series"' "$html")" 2 "dashboard: one section per series"
is "$(grep -c '<svg' "$html")" 2 "dashboard: one trend plot per series"
ok "$(grep -q 'id="open"' "$html" && grep -A3 'id="open"' "$html" | grep -q 'regression'; echo $?)" "dashboard: open regression listed"
ok "$(grep -q 'href="nights/night4/index.html"' "$html"; echo $?)" "dashboard links to the night's run report"
ok "$( [ -f "$D/nights/night4/index.html" ]; echo $?)" "run report of night 4 written"
ok "$(! grep -q '<script' "$html"; echo $?)" "dashboard is self-contained (no scripts)"
is "$(wc -l < "$D/digest.md")" "$(wc -l < "$D/digest.md" | awk '$1 <= 30 {print $1}')" "digest is e-mail sized (<= 30 lines)"
done_testing
