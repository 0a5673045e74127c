"""The shared loop of the cli_shell_*.py tests: each shell line runs
natively with `bash -c`, then under `ttd record -- /bin/bash -c`; a line
whose native output is not the expected one is skipped (this host
differs), the others must give the native stdout and exit status and no
unsupported call. Exits 77 (skip) when no line could be compared."""
import os
import subprocess
import sys
import tempfile

ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}


def compare_with_native(ttd, cases, prepare=None):
    with tempfile.TemporaryDirectory() as work:
        if prepare:
            prepare(work)
        ran = 0
        for cmd, expected in cases:
            native = subprocess.run(["/bin/bash", "-c", cmd], capture_output=True, env=ENV, cwd=work, timeout=60)
            if native.stdout != expected:
                print(f"skip (native run differs here): {cmd!r}: {native.stdout!r}")
                continue
            trace = os.path.join(work, "t.ucir")
            rec = subprocess.run([ttd, "record", "-q", "-o", trace, "--", "/bin/bash", "-c", cmd],
                                 capture_output=True, env=ENV, cwd=work, timeout=300)
            assert rec.returncode == native.returncode, (cmd, rec.returncode, rec.stderr)
            assert rec.stdout == native.stdout, (cmd, rec.stdout, native.stdout, rec.stderr)
            assert b"unsupported" not in rec.stderr, (cmd, rec.stderr)
            ran += 1
    if ran == 0:
        print("skip: no case prints here what it prints on Debian")
        sys.exit(77)
    print(f"ok: {ran} of {len(cases)} shell commands print and exit as natively")
