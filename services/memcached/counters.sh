#!/bin/bash
# memcached's own counters for cross-checks: cmd_get, cmd_set, get_hits, ...;
# its CPU time as whole microseconds (rusage_user_us, rusage_system_us: the
# service time per command a queueing model needs, capacity-md1.t)
exec 3<>"/dev/tcp/127.0.0.1/$1"
printf 'stats\r\nquit\r\n' >&3
tr -d "\r" <&3 | awk '$1 == "STAT" && $2 ~ /^(cmd_get|cmd_set|get_hits|get_misses|total_connections|curr_items|objtag_ops|objtag_granules)$/ { print $2, $3 }
    $1 == "STAT" && $2 ~ /^rusage_(user|system)$/ { split($3, t, /[.:]/); printf "%s_us %d\n", $2, t[1] * 1000000 + t[2] }'
