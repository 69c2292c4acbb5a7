"""memcached_churn.py PORT SECONDS: make a memcached move slab pages.

Sets values of growing sizes (40 B to 700 KB, the last chunked), so that
slab_automove and explicit `slabs reassign` move pages between classes while
items are live; runs the LRU crawler (`crawl all`, `metadump all`) between
phases. Prints one line per phase and the server's counters at the end as
"name value" lines. Used by tests/integration/services/memcached-objtag-behaves.t.
"""
import socket, sys, time
port = int(sys.argv[1]); limit = float(sys.argv[2])
s = socket.create_connection(('127.0.0.1', port)); s.settimeout(30)
f = s.makefile('rwb')
def cmd(c):
    f.write(c); f.flush(); return f.readline()
def stats(arg=b''):
    f.write(b'stats ' + arg + b'\r\n'); f.flush(); d = {}
    while True:
        l = f.readline().split()
        if l[0] == b'END': return d
        d[l[1].decode()] = l[2].decode()
t0 = time.time()
sizes = [40, 100, 300, 900, 3000, 9000, 30000, 700000]
n = 0
for phase, size in enumerate(sizes * 2):
    if time.time() - t0 > limit: break
    v = b'v' * size
    cnt = max(4, 1_000_000 // size)
    for i in range(cnt):
        f.write(b'set p%d:%d 0 0 %d noreply\r\n%s\r\n' % (phase % len(sizes), i, size, v)); n += 1
    f.flush()
    f.write(b'get p%d:0\r\n' % (phase % len(sizes))); f.flush()
    while not f.readline().startswith(b'END'):
        pass
    # move a page by hand from the fullest class as well
    sl = stats(b'slabs')
    pages = {int(k.split(':')[0]): int(v) for k, v in sl.items() if k.endswith(':total_pages')}
    src = max(pages, key=pages.get)
    dst = max(pages) if src != max(pages) else min(pages)
    r = cmd(b'slabs reassign %d %d\r\n' % (src, dst)).strip().decode()
    print('phase %d size %d: %d sets, reassign %d->%d: %s' % (phase, size, cnt, src, dst, r))
    cmd(b'lru_crawler crawl all\r\n')
    if phase % 3 == 0:
        f.write(b'lru_crawler metadump all\r\n'); f.flush()
        while True:
            l = f.readline()
            if l.startswith(b'END') or l.startswith(b'BUSY') or l.startswith(b'ERROR'): break
time.sleep(2)
st = stats()
for k in ('objtag_active', 'objtag_ops', 'objtag_granules', 'slabs_moved', 'slab_reassign_rescues', 'slab_reassign_chunk_rescues',
          'slab_reassign_evictions_nomem', 'lru_crawler_starts', 'crawler_reclaimed', 'crawler_items_checked', 'evictions', 'curr_items'):
    print(k, st.get(k, 'missing'))
print('sets', n, 'seconds %.1f' % (time.time() - t0))
