#!/usr/bin/env python3
"""User and group ids under `ttd record` are the host's, and the calls that
set them act: make's posix_spawn child (POSIX_SPAWN_RESETIDS: setresuid and
setresgid to the ids it has) exited 127, "Error 127", when they were
-ENOSYS; getresuid's saved id and getgroups are the host's too.
Usage: record_credentials.py TTD"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd = sys.argv[1]
python3, make = "/usr/bin/python3", shutil.which("make", path="/usr/bin:/bin")
if not os.path.exists(python3) or not make:
    print("no /usr/bin/python3 or make: skipped")
    sys.exit(77)
env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def record(work, *args):
    out = os.path.join(work, "t.ucir")
    return subprocess.run([ttd, "record", "-o", out, "--", *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=300, env=env, cwd=work)


ids = ("import os; r = os.getresuid(), os.getresgid(), sorted(os.getgroups());"
       " os.setresuid(-1, os.geteuid(), -1); os.setresgid(-1, os.getegid(), -1); os.setgid(os.getgid());"
       " print(r)")
with tempfile.TemporaryDirectory() as work:
    native = subprocess.run([python3, "-S", "-c", ids], capture_output=True, text=True, env=env)
    p = record(work, python3, "-S", "-c", ids)
    check(p.returncode == 0 and p.stdout == native.stdout and native.stdout,
          "getresuid, getresgid, getgroups read as natively, and setting one's own ids succeeds",
          f"native {native.stdout!r} {native.stderr!r}, recorded {p.stdout!r} {p.stderr[-300:]!r}")
    check("unsupported" not in p.stderr, "no credential call is unsupported", p.stderr)

    with open(os.path.join(work, "Makefile"), "w") as f:
        f.write("all:\n\t/bin/echo made by a spawned child\n")
    p = record(work, make, "-s")
    check(p.returncode == 0 and p.stdout == "made by a spawned child\n",
          "make runs a recipe through posix_spawn", p.stdout + p.stderr[-300:])
    check("Error 127" not in p.stderr and "program exited with status 0" in p.stderr, "and make exits 0",
          p.stderr[-300:])
finish()
