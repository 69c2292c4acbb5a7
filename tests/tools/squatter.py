#!/usr/bin/env python3
"""squatter.py PORT COUNTFILE [silent]: wait until a program is started with
`-p PORT` in its arguments (a service told to use the port), take PORT on
127.0.0.1 before that program binds it (polling every 2 ms, for at most
60 s), answer memcached's `version` like a memcached would (silent: answer
nothing, so the service's failed bind ends it before any readiness check is
answered), and count every other request line in COUNTFILE. A test's
stand-in for another program that grabs a port the moment the harness lets
go of it."""
import os, socket, sys, threading, time

port, countfile = int(sys.argv[1]), sys.argv[2]
silent = len(sys.argv) > 3 and sys.argv[3] == "silent"
want = b"\0-p\0%d\0" % port
end = time.time() + 60


def started():
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    if want in f.read():
                        return True
            except OSError:
                pass
    return False


while not started():
    if time.time() > end:
        sys.exit(1)
    time.sleep(0.002)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
while True:
    try:
        s.bind(("127.0.0.1", port))
        break
    except OSError:
        if time.time() > end:
            sys.exit(1)
        time.sleep(0.002)
s.listen(64)
count = 0
lock = threading.Lock()


def serve(c):
    global count
    f = c.makefile("rb")
    for line in f:
        if line.strip() == b"version":
            if not silent:
                c.sendall(b"VERSION 1.6.18\r\n")
        else:
            with lock:
                count += 1
                open(countfile, "w").write("%d\n" % count)
            c.sendall(b"END\r\n")


open(countfile, "w").write("0\n")
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
