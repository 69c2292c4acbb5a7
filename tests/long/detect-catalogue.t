#!/bin/bash
# Every service's whole bug catalogue (services/*/bugs/, docs/DETECTION.md)
# in every configuration (plain, tagged, objtag x off, sync, async; a
# synthetic plant in the variants it has builds for) under
# emu, 3 trials each: every trial reaches its bug, and each bug's manifest
# holds: the variants in caught_by catch it by a tag check (sync and async)
# in every trial, those in missed_by never do. Then every bug's fixed-build
# control (`detect --controls`; make test runs three per service). Kept out of `make test` for its
# time (one trial per cell, 2026-12-04: memcached 63 trials in 270 s, nginx
# 72 in 148 s, PostgreSQL's tagged and objtag 66 in 233 s, RocksDB 30; three
# trials triple it; cold: PostgreSQL's plain object tree, ~35 min, and
# RocksDB's zlib tree for #6014, ~6 min).
# MTB_DETECT_SERVICES="memcached nginx" runs those services only.
. "$(dirname "$0")/../lib.sh"
for svc in ${MTB_DETECT_SERVICES:-memcached nginx postgresql rocksdb}; do
    R="$T_TMP/$svc"
    t0=$(date +%s)
    "$B/mtebench" detect --service "$svc" --platform emu --trials 3 --results "$R" > "$T_TMP/$svc.out" 2>&1
    is "$?" 0 "$svc: every trial reached its bug" || dump "$T_TMP/$svc.out"
    echo "# $svc catalogue: $(( $(date +%s) - t0 )) s"
    for bug in $(jq -r '.bugs | keys[]' "$R/detect.json"); do
        for v in $(jq -r --arg b "$bug" '.bugs[$b].caught_by' "$R/detect.json" | tr ',' ' '); do
            ok "$(jq_e --arg b "$bug" --arg v "$v" '[.cells[] | select(.bug==$b and .variant==$v and .mode!="off")
                | .caught_mte == .valid and .valid > 0] | all' "$R/detect.json" >/dev/null; echo $?)" \
               "$svc $bug: $v catches it in every trial (sync, async)"
        done
        for v in $(jq -r --arg b "$bug" '.bugs[$b].missed_by' "$R/detect.json" | tr ',' ' '); do
            ok "$(jq_e --arg b "$bug" --arg v "$v" '[.cells[] | select(.bug==$b and .variant==$v) | .caught_mte == 0] | all' \
                "$R/detect.json" >/dev/null; echo $?)" "$svc $bug: no tag check of $v catches it"
        done
    done
    # every bug's fixed-build control (make test runs three per service): the fix refuses the trigger,
    # none of the bug's code runs, the service answers as control_expect says (PostgreSQL: tagged's bug
    # build, as detect-postgresql.t; a plant has no control)
    var=""; [ "$svc" = postgresql ] && var="--variants tagged"
    "$B/mtebench" detect --controls --service "$svc" $var --platform emu --results "$R-ctl" > "$T_TMP/$svc-ctl.out" 2>&1
    is "$?" 0 "$svc: every bug's control passes (exit 0)" || dump "$T_TMP/$svc-ctl.out"
    ok "$(jq_e '[.[] | .outcome] | length > 0 and all(. == "refused" or . == "no_control")' "$R-ctl/controls.json" >/dev/null; echo $?)" \
       "$svc: each control refused, as control_expect says ($(jq -r '[.[] | .bug + ":" + .outcome] | join(" ")' "$R-ctl/controls.json" 2>/dev/null))"
done
done_testing
