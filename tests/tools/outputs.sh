#!/bin/bash
# tests/tools/outputs.sh MTEBENCH OUT: what mtebench writes from the suite's
# fixtures, which a change of structure must leave as it was (issue "A typed
# core": every report, plan, detect and nightly output byte-identical):
#   - `report` over the record fixtures (6a9d852; 286d1ca's two hosts), with
#     --detect over the detect fixture: its stdout and every file it writes;
#   - `detect --matrix` of the detect fixture: text, Markdown and HTML;
#   - `nightly --ingest` of the 6a9d852 records: its stdout and dashboard;
#   - `plan --dry-run` of each plan in configs/ and `bench --dry-run` of each
#     service (platform emu), the time estimate blanked (it learns start-ups);
#   - `detect --catalogue` of each service.
# (explain's reports are not here: they name the frames of the builds in
# the cache, which a cold suite has not built yet.)
# Run from the checkout whose fixtures are read (paths stay relative); the
# version stamp, times and OUT itself are blanked. tests/fixtures/outputs/
# holds what the version named in its README wrote; outputs.t compares.
# After an intended change of an output: tests/tools/outputs.sh build/mtebench
# tests/fixtures/outputs, and say why in the commit.
set -u
M=$(realpath "$1") out=$2
cd "$(dirname "$0")/../.." || exit 2
export MTEBENCH_ROOT=$PWD # the recipes, catalogues and plans of this checkout, whichever build runs
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
[ -f "$out/README" ] && cp "$out/README" "$tmp/README" # a fixture's README stays
rm -rf "$out" && mkdir -p "$out" || exit 2
[ -f "$tmp/README" ] && mv "$tmp/README" "$out/README"
out=$(realpath "$out")
run() { # NAME COMMAND...: stdout and stderr into OUT/NAME.txt, the exit status last
    local name=$1; shift
    "$@" > "$out/$name.txt" 2>&1
    echo "exit $?" >> "$out/$name.txt"
}
FX=tests/fixtures
run report-a "$M" report --out "$out/report" --name a --detect "$FX/detect-memcached" "$FX/records-6a9d852"
run report-b "$M" report --out "$out/report" --name b "$FX/records-286d1ca-hosts/h1" "$FX/records-286d1ca-hosts/h2"
for f in text md html; do # the detect fixture's matrix, as detect prints it and as its detect.md and detect.html
    run "detect-matrix-$f" "$M" detect --matrix "$FX/detect-memcached" --format "$f"
done
run nightly "$M" nightly --ingest "$FX/records-6a9d852" --history "$tmp/h.sqlite" --out "$out/dash"
for c in configs/*.conf; do
    run "plan-$(basename "$c" .conf)" "$M" plan "$c" --dry-run --platform emu
done
for s in services/*/recipe.ini; do
    s=$(basename "$(dirname "$s")")
    run "bench-$s" "$M" bench --service "$s" --mode sync --platform emu --dry-run
    run "catalogue-$s" "$M" detect --service "$s" --catalogue
done
# what differs from run to run and from checkout to checkout, blanked
files=$(grep -rl --exclude=README . "$out")
sed -i -E "s|$out|OUT|g; s|$tmp|TMP|g; s|$PWD/|ROOT/|g" $files
sed -i -E 's/"report_version": "[^"]*"/"report_version": "X"/; s/"version": "[0-9a-f]{7}[-a-z0-9]*"/"version": "X"/; s/mtebench [0-9a-f]{7}[-a-z0-9]*//g; s/version [0-9a-f]{7}[-a-z0-9]*/version X/g' $files
sed -i -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:]{8}(\.[0-9]+)?(Z| UTC)?/TIME/g; s/^time: about .*/time: (blanked)/' $files
