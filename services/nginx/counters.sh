#!/bin/bash
# nginx's own counters for cross-checks: "requests N" from stub_status.
exec 3<>"/dev/tcp/127.0.0.1/$1"
printf 'GET /nginx_status HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
# "Active connections: 1 \n server accepts handled requests\n 4 4 9 \n..."
# the objtag variant adds "objtag active ops granules\n 1 N M \n" (the worker's tag operations)
awk 'f==1 { print "accepts " $1; print "handled " $2; print "requests " $3; f=0 }
     g==1 { print "objtag_ops " $2; print "objtag_granules " $3; exit }
     /accepts handled requests/ { f=1 } /^objtag active ops granules/ { g=1 }' <&3
