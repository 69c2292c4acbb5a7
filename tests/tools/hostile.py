#!/usr/bin/env python3
"""hostile.py MODE PORT: a misbehaving server on 127.0.0.1:PORT, for testing
what mtload counts. Speaks enough of the memcached text protocol (or HTTP,
for the http-* modes) to be believed, then misbehaves:

  close-each     answers one request properly, then closes the connection
  garbage        answers every request with a line no protocol has
  partial        answers with half a response, then nothing
  huge-value     answers a get with "VALUE k 0 4294967295" and a few bytes
  no-read        accepts connections and never reads from them
  drop-half-sets answers STORED to every other set and nothing to the rest
  http-bogus-length   an HTTP 200 whose Content-Length is not a number
  http-huge-length    an HTTP 200 whose Content-Length is 2^64+1
Every connection is served by its own thread; the process runs until killed."""
import socket, sys, threading, time

mode, port = sys.argv[1], int(sys.argv[2])


def requests(f):
    """memcached requests from a file object: yields ('get'|'set', line)."""
    while True:
        line = f.readline()
        if not line:
            return
        words = line.split()
        if not words:
            continue
        if words[0] == b"set" and len(words) >= 5:
            f.read(int(words[4]) + 2)
            yield "set", line
        else:
            yield words[0].decode(errors="replace"), line


def answer(kind):
    return b"STORED\r\n" if kind == "set" else b"END\r\n"


def serve(c):
    try:
        if mode == "no-read":
            time.sleep(3600)
            return
        f = c.makefile("rb")
        if mode.startswith("http-"):
            while True:
                line = f.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    length = b"banana" if mode == "http-bogus-length" else b"18446744073709551617"
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: " + length + b"\r\n\r\nhello")
            return
        n = 0
        for kind, _ in requests(f):
            n += 1
            if mode == "close-each":
                c.sendall(answer(kind))
                c.shutdown(socket.SHUT_RDWR)
                c.close()
                return
            if mode == "garbage":
                c.sendall(b"HELLO THERE 42\r\n")
            elif mode == "partial":
                c.sendall(b"VALUE k 0 10\r\nabc")
            elif mode == "huge-value":
                c.sendall(b"VALUE k 0 4294967295\r\nabcdef")
            elif mode == "drop-half-sets":
                if n % 2:
                    c.sendall(answer(kind))
                else:
                    time.sleep(3600)
    except OSError:
        pass


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(128)
if mode == "no-read":  # small buffers fill at once
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
