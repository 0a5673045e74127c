#!/usr/bin/env python3
"""`ttd record -- NAME` finds NAME in PATH as a shell does (before, it opened
./NAME and said "cannot open program"); `--env NAME=VALUE` replaces an
inherited NAME (before, it was appended and getenv() found the inherited
value); a setting without '=' is an error; the process-group and
socket-name calls bash and Python make are answered, not listed as
unsupported (before, "syscall 52 (unknown)" for bash's getpeername).
Usage: record_program_lookup.py TTD"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd = sys.argv[1]
for tool in ("printenv", "bash", "python3"):
    if not shutil.which(tool, path="/usr/bin:/bin"):
        print(f"no {tool}: skipped")
        sys.exit(77)

# Debian's directories: a PATH with shims (pyenv's python3 is a shell
# script) would find them first.
env = {"PATH": "/usr/bin:/bin", "HOME": "/inherited", "LC_ALL": "C"}


def record(work, *args):
    out = os.path.join(work, "t.ucir")
    if os.path.exists(out):
        os.remove(out)
    return subprocess.run([ttd, "record", "-o", out, *args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300, env=env, cwd=work)


with tempfile.TemporaryDirectory() as work:
    p = record(work, "--env", "HOME=/from-env", "--", "printenv", "HOME")
    check(p.returncode == 0 and p.stdout == "/from-env\n", "printenv is found in PATH and --env replaces HOME",
          p.stdout + p.stderr)

    p = record(work, "--", "ttd-no-such-program-anywhere")
    check(p.returncode == 1 and "ttd-no-such-program-anywhere: not found in PATH" in p.stderr,
          "a name in no PATH directory is an error naming it", p.stderr)
    check(not os.path.exists(os.path.join(work, "t.ucir")), "and leaves no trace", "")

    with open(os.path.join(work, "local-tool"), "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(os.path.join(work, "local-tool"), 0o755)
    p = record(work, "--", "local-tool")
    check(p.returncode == 1 and "give it as ./local-tool" in p.stderr,
          "a file in the current directory that PATH does not search is pointed out", p.stderr)

    # A #! script, found in PATH, runs its interpreter with the script's
    # path and the arguments, as execve runs it.
    bindir = os.path.join(work, "bin")
    os.mkdir(bindir)
    with open(os.path.join(bindir, "greet"), "w") as f:
        f.write("#!/bin/sh -e\necho \"hello $1 from $0\"\n")
    os.chmod(os.path.join(bindir, "greet"), 0o755)
    saved = env["PATH"]
    env["PATH"] = bindir + ":" + saved
    p = record(work, "--", "greet", "world")
    env["PATH"] = saved
    check(p.returncode == 0 and p.stdout == f"hello world from {bindir}/greet\n",
          "a #! script in PATH runs its interpreter", p.stdout + p.stderr[-300:])

    p = record(work, "--env", "HOME", "--", "printenv", "HOME")
    check(p.returncode == 1 and "expected NAME=VALUE, got 'HOME'" in p.stderr, "--env without '=' is an error",
          p.stderr)

    # By default the pid is the recorder's, and the host answers for its
    # group and session as natively: those of the process that ran it.
    same_as_parent = ("import os; p = os.getppid(); print(os.getpgrp() == os.getpgid(p), os.getsid(0) == os.getsid(p),"
                      " os.getpgid(0) == os.getpgrp())")
    p = record(work, "--", "python3", "-S", "-c", same_as_parent)
    check(p.returncode == 0 and p.stdout == "True True True\n",
          "the recorded process is in its parent's process group and session", p.stdout + p.stderr)
    # With a fixed pid it leads its own.
    p = record(work, "--pid", "4242", "--", "python3", "-S", "-c",
               "import os; print(os.getpid(), os.getpgrp() == os.getpid(), os.getpgid(0) == os.getpid(),"
               " os.getsid(0) == os.getpid(), os.getppid())")
    check(p.returncode == 0 and p.stdout == "4242 True True True 1\n",
          "with --pid the recorded process has that pid and leads its process group and session",
          p.stdout + p.stderr)
    check("unsupported" not in p.stderr, "python3's process-group calls are answered", p.stderr)

    p = record(work, "--", "bash", "-c", "echo $((6 * 7))")
    check(p.returncode == 0 and p.stdout == "42\n", "bash -c runs", p.stdout + p.stderr)
    check("unsupported" not in p.stderr, "with no unsupported call (getpeername, getpgrp)", p.stderr)
finish()
