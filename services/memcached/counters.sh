#!/bin/bash
# memcached's own counters for cross-checks: cmd_get, cmd_set, get_hits, ...
exec 3<>"/dev/tcp/127.0.0.1/$1"
printf 'stats\r\nquit\r\n' >&3
tr -d "\r" <&3 | awk '$1 == "STAT" && $2 ~ /^(cmd_get|cmd_set|get_hits|get_misses|total_connections|curr_items|objtag_ops|objtag_granules)$/ { print $2, $3 }'
