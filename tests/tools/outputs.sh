#!/bin/bash
# tests/tools/outputs.sh ROOT OUT: what a change of structure must leave as it
# was (issue "The harness in layers"): `mtebench help` and every command's
# help, `mtebench report` over the record fixtures (6a9d852, 286d1ca) and
# `MTB_TEST_PLAN=1 bash tests/run.sh`, from ROOT's build/ into OUT, with the
# version stamp, times and OUT itself blanked. Compare two checkouts with
#   tests/tools/outputs.sh OLD /tmp/a; tests/tools/outputs.sh NEW /tmp/b; diff -r /tmp/a /tmp/b
set -u
root=$1 out=$2; rm -rf "$out"; mkdir -p "$out"
cd "$root"
build/mtebench help > "$out/help.txt" 2>&1
for c in $(build/mtebench help 2>&1 | awk '/^  [a-z]/{print $1}'); do build/mtebench help $c > "$out/help-$c.txt" 2>&1; done
build/mtebench report --out "$out/r" --name a tests/fixtures/records-6a9d852 > "$out/report-a.txt" 2>&1
build/mtebench report --out "$out/r" --name b tests/fixtures/records-286d1ca-hosts/h1 tests/fixtures/records-286d1ca-hosts/h2 > "$out/report-b.txt" 2>&1
MTB_TEST_PLAN=1 bash tests/run.sh > "$out/plan.txt" 2>&1
sed -i -E "s|$out|OUT|g; s/\"report_version\": \"[^\"]*\"/\"report_version\": \"X\"/" $(grep -rl . "$out")
sed -i -E 's/mtebench [0-9a-f]{7}[-a-z0-9]*//g; s/version [0-9a-f]{7}[-a-z0-9]*/version X/g; s/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:]{8}( UTC)?//g' $(grep -rl . "$out")
