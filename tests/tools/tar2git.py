#!/usr/bin/env python3
"""tar2git.py TARBALL: a git fast-import stream on stdout holding the tarball's
files as one commit of refs/heads/main (the first path component stripped, as
tar --strip-components=1; fixed author and dates, so the same tarball gives the
same commit id). Regular files (100644, or 100755 when executable) and symlinks
(120000); directories, hard links and devices are not files git keeps.
Used by tests that need a kernel git tree of Debian's linux-source:
    tar2git.py SRC.tar.xz | git -C REPO -c pack.compression=1 fast-import --quiet
"""
import sys
import tarfile

def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tar2git.py TARBALL")
    out = sys.stdout.buffer
    msg = b"linux-source as one commit (tests/tools/tar2git.py)\n"
    ident = b"mtebench test <test@mtebench.invalid> 0 +0000\n"
    out.write(b"commit refs/heads/main\nauthor " + ident + b"committer " + ident)
    out.write(b"data %d\n%s" % (len(msg), msg))
    n = 0
    with tarfile.open(sys.argv[1], mode="r|*") as tar:
        for m in tar:
            parts = m.name.split("/", 1)
            if len(parts) < 2 or not parts[1]:
                continue
            path = parts[1].encode()
            if b"\n" in path or path.startswith(b'"'):
                sys.exit("tar2git: a path git fast-import cannot take unquoted: %r" % path)
            if m.issym():
                data = m.linkname.encode()
                mode = b"120000"
            elif m.isreg():
                data = tar.extractfile(m).read()
                mode = b"100755" if m.mode & 0o111 else b"100644"
            elif m.islnk():
                sys.exit("tar2git: hard link %s: not handled" % m.name)
            else:
                continue
            out.write(b"M %s inline %s\ndata %d\n" % (mode, path, len(data)))
            out.write(data)
            out.write(b"\n")
            n += 1
    out.write(b"\n")
    sys.stderr.write("tar2git: %d files\n" % n)

if __name__ == "__main__":
    main()
