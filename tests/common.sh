# tests/common.sh - helpers shared by the integration tests (via tests/lib.sh),
# the benchmarks (tests/bench/*.sh) and tests/run.sh. No output, no traps.
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3   # skip slow shims

# what git sees of the checkout (run in it), ignored files included, but
# tests/durations.txt, which a full run rewrites by design: tests/run.sh takes
# it before the suite, tests/checkout.t after
checkout_state() { git status --porcelain --ignored 2>/dev/null | grep -v ' tests/durations.txt$' | sort; }

# a free TCP port on 127.0.0.1 (bind to port 0 and read back what the kernel chose)
free_port() { "$PY" -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

# native_nginx_conf DIR PORT [EXTRA]: a one-worker nginx under DIR serving
# DIR/html on 127.0.0.1:PORT with stub_status at /nginx_status; EXTRA lines go
# into the server block. Writes DIR/nginx.conf; run `nginx -p DIR -c DIR/nginx.conf`.
native_nginx_conf() {
    local ng=$1 port=$2 extra=${3:-}
    mkdir -p "$ng/html" "$ng/tmp" "$ng/logs"
    cat >"$ng/nginx.conf" <<NGX
daemon off;
master_process off;
worker_processes 1;
pid $ng/nginx.pid;
error_log $ng/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $ng/tmp/body;
    proxy_temp_path $ng/tmp/proxy;
    fastcgi_temp_path $ng/tmp/fastcgi;
    uwsgi_temp_path $ng/tmp/uwsgi;
    scgi_temp_path $ng/tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $ng/html;
        location = /nginx_status { stub_status; }
        $extra
    }
}
NGX
}
