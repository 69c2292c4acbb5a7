#!/bin/bash
# PostgreSQL run setup, called by the harness before the server starts, as
# the service's user (PostgreSQL refuses root), with MTB_RUNDIR MTB_BUILD
# MTB_WRAP (how to run the build's programs on the platform) and the run's
# mode, so that initdb runs tagged too: in MTB_WRAP under emu (qemu-aarch64 -E
# GLIBC_TUNABLES=..., the guest's environment alone), in GLIBC_TUNABLES on host
# and vm.
# Makes the data directory $MTB_RUNDIR/data with trust authentication.
# What it makes must not depend on the platform (a vm guest reuses a copy
# made under emu, harness/service.c): the time zone is GMT, which PostgreSQL
# knows without a zoneinfo directory (the guest has none; initdb would
# otherwise write the host's zone, e.g. Etc/UTC, which the guest refuses).
set -euo pipefail
export TZ=GMT
# shellcheck disable=SC2086
$MTB_WRAP "$MTB_BUILD/bin/initdb" -D "$MTB_RUNDIR/data" -U postgres -A trust -E UTF8 \
    --locale=C --no-sync --no-instructions
