#!/bin/bash
# Per-object tagging (variant objtag) catches what glibc-only tagging cannot:
# a planted overflow from one slab item into its neighbour and a planted read
# of a freed item (test-only patch, MTEBENCH_PLANT=overflow|uaf on the 1000th
# get). Under objtag sync each is a tag-check fault (SIGSEGV, SEGV_MTESERR) at
# the neighbour's / the freed item's address, as the plant logged it; under
# tagged sync the same plants run to the end uncaught.
. "$(dirname "$0")/../../lib.sh"
objtag_plants memcached 2 \
    '^mtbplant: overflow from item .* into its neighbour at \(0x[0-9a-f]*\)$' \
    '^mtbplant: use after free of item \(0x[0-9a-f]*\)$' "the freed item's address" \
    '.load.totals.gets > 1000' "past the 1000th get"
done_testing
