#!/usr/bin/env python3
"""`ttd serve` prints the lldb command that exists on this machine: with only
`lldb-16` and `lldb-14` on PATH it must say `lldb-16 ... -o 'gdb-remote ...'`,
and with a plain `lldb` it must say `lldb`; each time with the hint to turn
lldb's memory cache off for memory known only in part.
Usage: serve_banner.py TTD TRACE"""
import os
import subprocess
import sys
import tempfile

ttd, trace = sys.argv[1], sys.argv[2]


def banner(names):
    with tempfile.TemporaryDirectory() as bin_dir:
        for n in names:
            p = os.path.join(bin_dir, n)
            with open(p, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(p, 0o755)
        env = dict(os.environ, PATH=bin_dir)
        proc = subprocess.Popen([ttd, "serve", trace, "--listen", "127.0.0.1:0"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            lines = []
            for line in proc.stdout:
                if line.startswith("Reverse:"):
                    break
                lines.append(line)
            found = [l.strip() for l in lines if "lldb:" in l]
            if not found:
                raise SystemExit("no lldb line in: " + "".join(lines))
            return found[0], "disable-memory-cache true" in "".join(lines)
        finally:
            proc.kill()
            proc.wait()


got, hint = banner(["lldb-14", "lldb-16", "lldb-server-16"])
assert got.startswith("lldb: lldb-16 ") and "gdb-remote 127.0.0.1:" in got, got
assert hint, "no memory-cache hint for lldb-16"
got, hint = banner(["lldb-16", "lldb"])
assert got.startswith("lldb: lldb ") or got.startswith("lldb: lldb -o"), got
assert hint, "no memory-cache hint for a plain lldb"
got, hint = banner(["lldb-16", "lldb-22"])
assert got.startswith("lldb: lldb-22 "), got
assert hint, "no memory-cache hint for lldb-22"
print("1 passed, 0 failed")
