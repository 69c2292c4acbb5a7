#!/bin/bash
# Run by tests/run.sh after a full suite (not scheduled in a lane): the
# checkout is as the suite found it. tests/run.sh saved `git status
# --porcelain --ignored` before the first test (MTB_CHECKOUT_BEFORE); every
# file a test makes belongs under its temporary directory ($T_TMP; reports
# under MTEBENCH_REPORTS, which tests/lib.sh points there), and build/ is
# the build's. tests/durations.txt, which the full run rewrites with the
# times it measured, is left out of both.
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
[ -n "${MTB_CHECKOUT_BEFORE:-}" ] || skip_all "run by tests/run.sh after a full suite"
checkout_state > "$T_TMP/after"
diff "$MTB_CHECKOUT_BEFORE" "$T_TMP/after" > "$T_TMP/diff"
ok $? "git status --porcelain --ignored is as before the suite" || dump "$T_TMP/diff"
done_testing
