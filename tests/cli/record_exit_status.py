#!/usr/bin/env python3
"""`ttd record` exits with the recorded program's status, as rr record does,
so scripts and test harnesses wrapped in it see what the program said:
its exit code, 128 + N when a signal ended it or it faulted, 0 when
--max-steps stopped it. A recording that failed exits 1 with a message and
leaves no trace, which is how a caller tells it from a program's exit 1.
Each case is compared with the native run. Before, every complete trace
exited 0 and a fault exited 3. The trace's end record says the same
(`ttd info`: "ended:"), and a trace cut exactly at a chunk boundary, which
used to read as complete, reads as cut short.
Usage: record_exit_status.py TTD"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd = sys.argv[1]
sh = "/bin/sh"
if not os.path.exists(sh):
    print("no /bin/sh: skipped")
    sys.exit(77)
env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def native(*cmd):
    return subprocess.run(list(cmd), stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60).returncode


def record(trace, *args):
    return subprocess.run([ttd, "record", "-q", "-o", trace, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, env=env, timeout=300)


def info(trace):
    p = subprocess.run([ttd, "info", "--json", trace], capture_output=True, text=True, timeout=300)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr}


def negative_to_shell(code):  # subprocess gives -N for a native death by signal N
    return 128 - code if code < 0 else code


with tempfile.TemporaryDirectory() as work:
    cases = [
        ("exit 0", [sh, "-c", "exit 0"], "program exited with status 0"),
        ("exit 7", [sh, "-c", "exit 7"], "program exited with status 7"),
        ("exit 300 (the low byte)", [sh, "-c", "exit 300"], "program exited with status 44"),
        ("false", ["/bin/false"], "program exited with status 1"),
        ("killed by SIGABRT", [sh, "-c", "kill -ABRT $$"], "program killed by signal 6"),
        ("killed by SIGTERM", [sh, "-c", "kill -TERM $$"], "program killed by signal 15"),
    ]
    python3 = "/usr/bin/python3"
    if os.path.exists(python3):
        cases.append(("a fault (SIGSEGV reading address 0)", [python3, "-S", "-c", "import ctypes; ctypes.string_at(0)"],
                      None))
    for i, (what, cmd, ending) in enumerate(cases):
        trace = os.path.join(work, "t%d.ucir" % i)
        want = negative_to_shell(native(*cmd))
        p = record(trace, "--", *cmd)
        check(p.returncode == want, what + ": exit status %d as natively" % want,
              "ttd record exited %d: %s" % (p.returncode, p.stderr))
        check(os.path.exists(trace), what + ": the trace is written", p.stderr)
        if ending:
            got = info(trace).get("ended")
            check(got == ending, what + ": ttd info says how it ended", got)

    trace = os.path.join(work, "max.ucir")
    p = record(trace, "--max-steps", "1000", "--", sh, "-c", "exit 7")
    check(p.returncode == 0 and os.path.exists(trace), "--max-steps stopped it: 0, trace written",
          "%d: %s" % (p.returncode, p.stderr))
    check(info(trace).get("ended", "").startswith("stopped at the --max-steps limit"), "ttd info says --max-steps",
          info(trace))

    # Cut exactly where the end record starts (a kill -9 between the last
    # data chunk and the end): not complete.
    whole = os.path.join(work, "t1.ucir")
    data = open(whole, "rb").read()
    record_len = len("program exited with status 7") + 4
    cut = os.path.join(work, "cut.ucir")
    with open(cut, "wb") as f:
        f.write(data[:-record_len])
    got = info(cut)
    check(got.get("cut_short_at") == len(data) - record_len and "ended" not in got,
          "a trace cut at a chunk boundary reads as cut short", got)

    trace = os.path.join(work, "missing.ucir")
    p = record(trace, "--", os.path.join(work, "no-such-program"))
    check(p.returncode == 1 and "no-such-program" in p.stderr and not os.path.exists(trace),
          "a recording that fails: 1, a message naming the program, no trace", "%d: %s" % (p.returncode, p.stderr))
finish()
