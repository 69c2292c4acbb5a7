#!/usr/bin/env python3
"""contrib/harness-folders.py - the move of harness/ into folders by layer
(issue "The harness in layers"), as a script, so that work begun on the flat
harness/ can be rebased over it: run it in that branch's tree, then rebase.

    python3 contrib/harness-folders.py [--dry-run]

What it does, and nothing else (idempotent: a file already moved is skipped):
  1. `git mv harness/X -> harness/FOLDER/X` for every file of MOVES below;
  2. every `#include "X.h"` of the harness, loadgen/, common/, tests/unit/
     and tests/fuzz/ written with its folder ("core/record.h",
     "loadgen/hist.h", "common/version.h"; the Makefile's -Iharness -I.);
  3. every path `harness/X` in the project's text files written as
     `harness/FOLDER/X`, except in files whose bytes enter a cache key
     (services/, patches/, configs/kernel/, the kernel build scripts):
     changing them would rebuild every service and kernel for a comment.
The Makefile's source lists, lint and the docs' tables are edited by hand in
the same commit; this script only moves and renames.
"""
import os
import re
import subprocess
import sys

# folder -> files moved into harness/FOLDER/ (docs/ARCHITECTURE.md says what each holds)
FOLDERS = {
    "lib": "util.c util.h proc.c proc.h inifile.c inifile.h jsonx.h",
    "core": "record.c record.h workload.c workload.h workload_fields.h recipe.c recipe.h "
            "mode.c mode.h machine.c machine.h build.c build.h kernel.c kernel.h "
            "kernel_tree.c kernel_tree.h hostfacts.c hostfacts.h platform.c platform.h "
            "kernel-build.sh kernel-git-tree.sh",
    "run": "run.c run.h service.c service.h proof.c proof.h perf.c perf.h quiet.c quiet.h "
           "provenance.c provenance.h platform_host.c platform_emu.c",
    "agent": "agent.c agent.h transport_console.c transport_console.h transport_ssh.c "
             "transport_ssh.h platform_vm.c remote.c remote.h clients.c clients.h "
             "clients_pgbench.c guest-image.sh guest",
    "drivers": "driver.c driver.h driver_dbbench.c driver_external.c driver_mtload.c "
               "driver_pgbench.c driver_trigger.c driver_wrk.c",
    "plan": "plan.c plan.h plan_parse.c plantime.c plantime.h runlen.c runlen.h",
    "detect": "detect.c detect.h detect_report.c detect_sweep.c",
    "bisect": "bisect.c bisect.h bisect_search.c bisect_search.h",
    "report": "report.c report.h report_html.c report_md.c report_csv.c summary_text.c "
              "summary_text.h plot.c plot.h dashboard.c dashboard.h prom.c prom.h "
              "hlog_import.c hlog_import.h",
    "history": "history.c history.h history_db.h history_pg.c history_schema.c history_sqlite.c "
               "history_views.c history_views.h history_bisect.c history_bisect.h",
    "analysis": "stats.c stats.h stats_pairs.c seqstop.c seqstop.h summary.c summary.h changepoint.c changepoint.h "
                "pinpoint.c pinpoint.h lathist.c lathist.h",
    "cmd": "cli.c cli.h bench.c bench.h doctor.c doctor.h hosts.c hosts.h compare.c compare.h "
           "nightly.c nightly.h deps.sh",
}
MOVES = {f: d for d, files in FOLDERS.items() for f in files.split()}
# files whose bytes are hashed into a build, kernel or setup key: left as they are
KEYED = ("services/", "patches/", "configs/kernel/", "harness/core/kernel-build.sh",
         "harness/core/kernel-git-tree.sh")
TEXT_EXT = (".c", ".h", ".sh", ".t", ".md", ".py", ".txt", ".conf", ".yml", ".ini", ".lua", "Makefile", "run")


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def headers():
    """basename -> folder-qualified include, for every header an include may name"""
    h = {}
    for d in ("common", "loadgen"):
        for f in os.listdir(d):
            if f.endswith(".h"):
                h.setdefault(f, []).append(f"{d}/{f}")
    for f, d in MOVES.items():
        if f.endswith(".h"):
            h.setdefault(f, []).insert(0, f"{d}/{f}")
    return h


def qualify(path, hdrs):
    """write the includes of one C file with their folders"""
    src = open(path).read()
    own = os.path.dirname(path)

    def sub(m):
        name = m.group(1)
        if "/" in name:
            if name.startswith("../loadgen/"):
                return f'#include "loadgen/{name[len("../loadgen/"):]}"'
            return m.group(0)
        base = os.path.basename(name)
        cands = hdrs.get(base)
        if not cands:
            return m.group(0)   # tap.h, fuzz.h: the test's own
        # as the compiler found it: the including file's own folder first,
        # then (-Icommon -Iharness -Iloadgen) common, the harness, loadgen
        for c in cands:
            if c.startswith(own + "/"):
                return f'#include "{c}"'
        order = ("common/", "loadgen/") if own in ("loadgen", "common") else ("",)
        for pre in order:
            for c in cands:
                if c.startswith(pre):
                    return f'#include "{c}"'
        return f'#include "{cands[0]}"'

    out = re.sub(r'^#include "([^"]+)"', sub, src, flags=re.M)
    if out != src:
        open(path, "w").write(out)
        return True
    return False


def main():
    dry = "--dry-run" in sys.argv
    os.chdir(subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True,
                            text=True).stdout.strip())
    for f, d in sorted(MOVES.items()):
        src, dst = f"harness/{f}", f"harness/{d}/{f}"
        if os.path.exists(src):
            print(f"move {src} -> {dst}")
            if not dry:
                os.makedirs(f"harness/{d}", exist_ok=True)
                git("mv", src, dst)
    if dry:
        return
    hdrs = headers()
    cfiles = [f for f in git("ls-files", "harness", "loadgen", "common", "tests/unit", "tests/fuzz").split()
              if f.endswith((".c", ".h")) and not f.startswith(("harness/probe/", "harness/agent/guest/"))]
    n = sum(qualify(f, hdrs) for f in cfiles)
    print(f"includes written with their folders in {n} files")
    pat = re.compile(r"harness/(" + "|".join(re.escape(f) for f in sorted(MOVES, key=len, reverse=True)) +
                     r")(?![\w.-])")
    changed = 0
    for f in git("ls-files").split():
        if f.startswith(KEYED) or f.startswith("tests/fixtures/") or not f.endswith(TEXT_EXT):
            continue
        if f == "contrib/harness-folders.py" or not os.path.isfile(f):
            continue
        try:
            src = open(f).read()
        except UnicodeDecodeError:
            continue
        out = pat.sub(lambda m: f"harness/{MOVES[m.group(1)]}/{m.group(1)}", src)
        if out != src:
            open(f, "w").write(out)
            changed += 1
    print(f"paths harness/X rewritten in {changed} files")


if __name__ == "__main__":
    main()
