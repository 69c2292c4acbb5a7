#!/bin/bash
# nginx run setup, called by the harness before the server starts (as the
# service's user), with MTB_RUNDIR MTB_PORT MTB_BUILD MTB_THREADS and the
# workload's parameters as MTB_P_<key>. Writes:
#   $MTB_RUNDIR/nginx.conf   from services/nginx/nginx.conf (or nginx-https.conf;
#                            nginx-detect.conf for mtebench detect's trigger driver)
#   $MTB_RUNDIR/www/...      the files the workload's paths name: /f<bytes>.bin
#   $MTB_RUNDIR/{cert,key}.pem a throwaway self-signed certificate (https = yes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
conf=nginx.conf
# mtebench detect: the resolver and proxied location of the bug catalogue
[ "${MTB_P_driver:-}" = trigger ] && conf=nginx-detect.conf
if [ "${MTB_P_https:-no}" = yes ]; then
    conf=nginx-https.conf
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
        -keyout "$MTB_RUNDIR/key.pem" -out "$MTB_RUNDIR/cert.pem" 2>/dev/null
fi
mkdir -p "$MTB_RUNDIR/www" "$MTB_RUNDIR/tmp"
sed -e "s|{listen}|${MTB_LISTEN:-127.0.0.1}|g" -e "s|{port}|$MTB_PORT|g" -e "s|{dnsport}|$((MTB_PORT + 1))|g" -e "s|{threads}|$MTB_THREADS|g" -e "s|{rundir}|$MTB_RUNDIR|g" \
    -e "s|{build}|$MTB_BUILD|g" "$here/$conf" > "$MTB_RUNDIR/nginx.conf"
# paths look like /f1024.bin:3,/f65536.bin:1 (weights after the colon)
IFS=, read -ra paths <<< "${MTB_P_paths:-/f1024.bin}"
for p in "${paths[@]}"; do
    p=${p%%:*}
    size=${p#/f}; size=${size%.bin}
    [[ $size =~ ^[0-9]+$ ]] || { echo "setup: path $p is not /f<bytes>.bin" >&2; exit 2; }
    head -c "$size" /dev/urandom > "$MTB_RUNDIR/www/f$size.bin"
done
echo "nginx setup: $conf, files: ${MTB_P_paths:-/f1024.bin}"
