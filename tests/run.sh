#!/bin/bash
# Runs every test under prove: C unit tests (build/tests/test_*) and the
# integration tests (tests/integration/*.t). Ends with prove's summary line.
#
# With no arguments (make test) the suite runs in two lanes side by side
# (prove -j2, each lane in order): the tests that mostly wait (hostile and
# hung servers, the SSH test hosts, command-line checks) beside the ones that
# compute (QEMU, the services, builds). The waiting lane uses a fraction of a
# CPU, so the computing lane keeps its timings; tests in different lanes share
# nothing but the build cache, whose builds are locked. With arguments, the
# named tests run one after another, as before. MTB_TEST_LANES=1 runs the
# whole suite in one lane.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] && exec prove --exec '' --timer "$@"
tests=( build/tests/test_* tests/integration/*.t )
[ "${MTB_TEST_LANES:-2}" = 1 ] && exec prove --exec '' --timer "${tests[@]}"
# the waiting lane: wall time several times its CPU time in a suite run
waiting=(00-lib 18-recipe-keys 22-mtload-cli 31-report-bad-input 33-records-6a9d852 52-nightly-cli
         53-nightly-runner 70-ssh-transport 71-client-hosts 72-server-host 73-ansible-fleet
         81-hung-service 83-port-squatter 84-mtload-hostile 87-input-checks)
glob="tests/integration/{$(IFS=,; echo "${waiting[*]}")}.t"
exec prove --exec '' --timer -j2 --rules="seq=$glob" --rules='seq=**' "${tests[@]}"
