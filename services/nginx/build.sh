#!/bin/bash
# Build nginx for one variant and target. Env contract: see
# services/memcached/build.sh (MTB_SRC MTB_WORK MTB_OUT MTB_TARGET MTB_CC
# MTB_CFLAGS MTB_PATCHES MTB_HOST MTB_XSYSROOT MTB_JOBS MTB_TREE).
#
# Minimal module set: HTTP core, static files, index, access, limit_conn,
# limit_req, stub_status, ssl (https, libssl-dev:arm64) and proxy. No PCRE
# (no rewrite) and no zlib (no gzip). The install is relocatable: every path
# is relative to the prefix given at run time with -p, the configuration
# comes with -c and the error log goes to stderr (-e stderr overrides it too).
#
# The proxy module is in every variant: the bug catalogue's resolver bugs
# need proxy_pass to a name in a variable (services/nginx/bugs/), and one
# configure for all lets a variant start from another's object tree
# (MTB_TREE, recipe tree_from): the tree copied with its mtimes, the patches
# beyond the base's applied, and only what objs/Makefile says depends on
# them recompiled (the list in MTB_OUT/recompiled.txt). The measured
# workloads serve files and never proxy.
set -euo pipefail
cd "$MTB_WORK"
apply_patches() {
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        echo "applying $(basename "$p")"
        patch -p1 --no-backup-if-mismatch < "$p"
    done <<< "$MTB_PATCHES"
}
touch .before
if [ -n "${MTB_TREE:-}" ]; then
    echo "starting from the object tree $MTB_TREE"
    cp -a "$MTB_TREE"/. .
    cd nginx-*/
    sleep 1  # make compares mtimes: patched files must be strictly newer
    touch ../.before
    apply_patches
else
    tar xzf "$MTB_SRC"
    cd nginx-*/
    apply_patches
    cross=()
    if [ -n "$MTB_HOST" ]; then
        # configure compiles and runs its probes (sizeof etc.); the arm64 probes
        # run through binfmt_misc + qemu-aarch64 (make deps registers it)
        cross=(--crossbuild=Linux::aarch64)
    fi
    ./configure "${cross[@]}" --with-cc="$MTB_CC" \
        --with-cc-opt="-O2 -g $MTB_CFLAGS" \
        --prefix=./ --sbin-path=sbin/nginx --conf-path=conf/nginx.conf \
        --error-log-path=stderr --pid-path=logs/nginx.pid --lock-path=logs/nginx.lock \
        --http-log-path=logs/access.log --http-client-body-temp-path=tmp/client_body \
        --with-http_stub_status_module --with-http_ssl_module \
        --without-pcre --without-http_rewrite_module --without-http_gzip_module \
        --without-http_charset_module --without-http_ssi_module --without-http_userid_module \
        --without-http_auth_basic_module --without-http_mirror_module \
        --without-http_autoindex_module --without-http_geo_module --without-http_map_module \
        --without-http_split_clients_module --without-http_referer_module \
        --without-http_fastcgi_module --without-http_uwsgi_module \
        --without-http_scgi_module --without-http_grpc_module --without-http_memcached_module \
        --without-http_empty_gif_module --without-http_browser_module \
        --without-http_upstream_hash_module --without-http_upstream_ip_hash_module \
        --without-http_upstream_least_conn_module --without-http_upstream_random_module \
        --without-http_upstream_keepalive_module --without-http_upstream_zone_module \
        --without-http-cache \
        > configure.log 2>&1 || { tail -n 40 configure.log; cat objs/autoconf.err 2>/dev/null | tail -n 40; exit 1; }
fi
make -j"$MTB_JOBS"
mkdir -p "$MTB_OUT/sbin" "$MTB_OUT/conf"
install -m 755 objs/nginx "$MTB_OUT/sbin/nginx"
install -m 644 conf/mime.types "$MTB_OUT/conf/mime.types"
find . -name '*.o' -newer ../.before | sed 's|^\./||' | sort > "$MTB_OUT/recompiled.txt"
echo "recompiled $(wc -l < "$MTB_OUT/recompiled.txt") objects"
