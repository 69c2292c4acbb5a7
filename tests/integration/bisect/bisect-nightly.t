#!/bin/bash
# The nightly proposes the bisection: a regression between nights made by two
# mtebench revisions carries the exact `mtebench bisect` command between them
# in analysis.json and digest.md; `nightly --bisect` runs it unattended (here
# with revisions this checkout does not hold: the bisection's named error in
# its log, reported as failed, the nightly's own exit status unchanged).
# Synthetic records, ingested (~3 s).
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
W="$T_TMP/proj"
git init -q "$W" && git -C "$W" -c user.email=t@e.invalid -c user.name=t commit -q --allow-empty -m one &&
    git -C "$W" -c user.email=t@e.invalid -c user.name=t commit -q --allow-empty -m two || exit 1
v1=$(git -C "$W" rev-parse --short=12 HEAD~1); v2=$(git -C "$W" rev-parse --short=12 HEAD)
mk() { # mk NIGHT DAY FACTOR VERSION
    for rep in 1 2 3 4 5 6; do
        d="$T_TMP/n$1/00$rep-tagged-async"; mkdir -p "$d"
        jq -n --argjson rep $rep --argjson f "$3" --arg day "$2" --arg v "$4" '{schema:"mtebench-run/1", status:"ok",
          started:"2026-01-\($day)T01:0\($rep):00Z", mtebench_version:$v, config:{service:"memcached",
          variant:"tagged", mode:"async", platform:"emu", kernel:"host", plan:"ingest", rep:$rep,
          workload:{name:"default", mix:"1:10", conns:16, duration_s:1}}, build:{key:"b1"},
          kernel:{uname_r:"6.1", uname_v:"#1"}, machine:{name:"auto"},
          summary:{ops_per_sec:(10000 * $f + 137 * ($rep % 3)), p50_us:50, p99_us:(200 / $f), p999_us:400}}' > "$d/record.json"
    done
}
mk 1 01 1 "$v1"; mk 2 02 1 "$v1"; mk 3 03 1 "$v1"; mk 4 04 1 "$v1"; mk 5 05 0.7 "$v2-dirty"
"$M" nightly --history "$T_TMP/h.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n1" "$T_TMP/n2" "$T_TMP/n3" "$T_TMP/n4" > "$T_TMP/o1" 2>&1
is "$?" 0 "four steady nights" || dump "$T_TMP/o1"
"$M" nightly --history "$T_TMP/h.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n5" > "$T_TMP/o2" 2>&1
is "$?" 3 "a 30% slower night from another revision: exit 3" || dump "$T_TMP/o2"
want="mtebench bisect --good $v1 --bad $v2 --service memcached --variant tagged --mode async --platform emu --workload default --conns 16 --duration 1s --mix 1:10 --metric ops_per_sec"
is "$(jq -r '.new[] | select(.metric == "throughput") | .bisect' "$T_TMP/d/analysis.json")" "$want" \
    "the regression carries the bisect command between the revisions before and after (-dirty dropped)"
ok "$(grep -qF -- "find the commit: \`$want\`" "$T_TMP/d/digest.md"; echo $?)" "and the digest shows it" || dump "$T_TMP/d/digest.md"
is "$(jq -r '.new[] | select(.metric == "p99") | .bisect' "$T_TMP/d/analysis.json")" "${want/ops_per_sec/p99_us}" "p99: --metric p99_us"

# --bisect runs it; here the nights' revisions come from a throw-away repository
# this checkout does not hold: the bisection's named error, in its log
rm -rf "$T_TMP/d"
"$M" nightly --history "$T_TMP/h2.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n1" "$T_TMP/n2" "$T_TMP/n3" "$T_TMP/n4" > /dev/null 2>&1
"$M" nightly --history "$T_TMP/h2.sqlite" --out "$T_TMP/d" --ingest "$T_TMP/n5" --bisect \
    --bisect-budget 10m > "$T_TMP/o3" 2>&1
is "$?" 3 "--bisect: the nightly's exit status is still the regression's" || dump "$T_TMP/o3"
ok "$(grep -q '^nightly: bisecting .*memcached' "$T_TMP/o3" && grep -q '^nightly: bisect 1: failed' "$T_TMP/o3"; echo $?)" \
    "each proposed bisection run, its outcome said" || dump "$T_TMP/o3"
ok "$(grep -q "no commit '$v1'" "$T_TMP/d/bisect-1.log"; echo $?)" \
    "the bisection's own error in its log" || dump "$T_TMP/d/bisect-1.log"
done_testing
