#!/bin/bash
# Runs every test under prove: C unit tests (build/tests/test_*) and the
# integration tests (tests/integration/*.t). Ends with prove's summary line.
set -u
cd "$(dirname "$0")/.."
tests=( build/tests/test_* tests/integration/*.t )
exec prove --exec '' --timer "${@:-${tests[@]}}"
