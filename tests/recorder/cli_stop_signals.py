#!/usr/bin/env python3
"""A recording stopped from outside is not lost (issue 16): SIGINT (what
Ctrl-C sends) and SIGTERM to `ttd record` go to the program, as rr forwards
them. The program dies of the signal as natively (or its handler runs),
the trace is complete (`ttd info` reads it, no "cut short" warning), and
`ttd record` ends as the native program does. Before, the signal killed
the recorder mid-write and the trace did not read back.
Each case runs the program natively and recorded, waits for its "start"
line, sends the signal to that process only (not its group: Python's
subprocess, as `timeout -s INT` does) and compares.
Usage: cli_stop_signals.py TTD PROGRAM (tests/recorder/programs/stop_signals.c)"""
import glob
import os
import signal
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd, prog = sys.argv[1], sys.argv[2]


def stop(cmd, sig, stdin_data=None, after_line=None, ignore=(), resend_after=20, times=1):
    """Starts cmd, waits for "start", sends sig; with stdin_data, writes it
    once `after_line` was printed. Returns (returncode, stdout, stderr)."""
    def preexec():
        for s in ignore:
            signal.signal(s, signal.SIG_IGN)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=preexec)
    # A lost signal must fail the case, not hang it: the readline loops
    # below have no timeout of their own.
    watchdog = threading.Timer(180, p.kill)
    watchdog.start()
    out = b""
    while not out.endswith(b"start\n"):
        line = p.stdout.readline()
        if not line:
            break
        out += line
    for _ in range(times):
        p.send_signal(sig)
    if stdin_data is not None:
        while after_line and after_line not in out:
            line = p.stdout.readline()
            if not line:
                break
            out += line
        p.stdin.write(stdin_data)
        p.stdin.flush()
    try:
        rest, err = p.communicate(timeout=resend_after)
    except subprocess.TimeoutExpired:
        # A signal that came in the instant before a host read began waits
        # for the next one (docs/recording.md, "Stopping a recording").
        p.send_signal(sig)
        rest, err = p.communicate(timeout=120)
    watchdog.cancel()
    return p.returncode, out + rest, err.decode(errors="replace")


def info(trace):
    return subprocess.run([ttd, "info", trace], capture_output=True, text=True, timeout=300)


def readable(trace, what):
    i = info(trace)
    check(i.returncode == 0 and "cut short" not in i.stdout, what + ": the trace reads back whole",
          i.stdout + i.stderr)


with tempfile.TemporaryDirectory() as work:
    cases = [
        ("spin", signal.SIGINT, {}),
        ("spin", signal.SIGTERM, {}),
        ("spin", signal.SIGINT, {"times": 2}),  # a second Ctrl-C while the first ends the program
        ("handler", signal.SIGINT, {}),
        ("restart", signal.SIGINT, {"stdin_data": b"hi\n", "after_line": b"handler: SIGINT\n"}),
        ("read-stdin", signal.SIGTERM, {}),
        ("thread-read", signal.SIGTERM, {}),
        # Every thread waits for a signal: the recording waits for it too,
        # as the process does natively (it used to end at once, "blocked").
        ("suspend", signal.SIGTERM, {}),
        ("pause", signal.SIGTERM, {}),
        ("sigwait", signal.SIGUSR1, {}),
        # Every thread waits on a futex, and a SIGTERM handler is what ends
        # the wait: the recording waits for the signal (it used to end at
        # once, "blocked", exit 3).
        ("semaphore", signal.SIGTERM, {}),
    ]
    for mode, sig, kw in cases:
        name = f"{mode} + {signal.Signals(sig).name}"
        native = stop([prog, mode], sig, **kw)
        if kw.get("times", 1) > 1:
            name += f" x{kw['times']}"
        trace = os.path.join(work, f"{mode}-{int(sig)}-{kw.get('times', 1)}.ucir")
        rec = stop([ttd, "record", "-o", trace, "--", prog, mode], sig, **kw)
        check(rec[0] == native[0], f"{name}: ttd record ends as the program does natively ({native[0]})",
              f"{rec[0]}; {rec[2]}")
        check(rec[1] == native[1], f"{name}: the recorded output is the native one", f"{rec[1]!r} vs {native[1]!r}")
        if native[0] < 0:
            check(f"program killed by signal {-native[0]}" in rec[2], f"{name}: the summary says the signal killed it",
                  rec[2])
        readable(trace, name)

    # Ignored when `ttd record` starts (nohup, `&` in a script): ignored by
    # the program too, natively and recorded; SIGTERM then ends both.
    def ignored_then_term(cmd):
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        p.stdout.readline()
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        alive = p.poll() is None
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=120)
        return alive, p.returncode
    trace = os.path.join(work, "ignored.ucir")
    native = ignored_then_term([prog, "spin"])
    rec = ignored_then_term([ttd, "record", "-o", trace, "--", prog, "spin"])
    check(native == (True, -15) and rec == native, "SIGINT ignored at the start stays ignored; SIGTERM ends it",
          f"native {native}, recorded {rec}")
    readable(trace, "inherited SIG_IGN")

    # --follow-fork: the parent's kill(child, SIGTERM) reaches the child's
    # recorder, which ends the child's trace complete and dies of it.
    native = subprocess.run([prog, "kill-child"], capture_output=True, timeout=120)
    trace = os.path.join(work, "fork.ucir")
    rec = subprocess.run([ttd, "record", "--follow-fork", "-o", trace, "--", prog, "kill-child"],
                         capture_output=True, timeout=300)
    check(rec.stdout == native.stdout and rec.returncode == native.returncode, "--follow-fork: the parent sees its child killed by 15",
          f"{rec.stdout!r} vs {native.stdout!r}; {rec.stderr!r}")
    children = [t for t in glob.glob(os.path.join(work, "fork.*.ucir"))]
    check(len(children) == 1, "--follow-fork: one child trace", children)
    for c in children:
        readable(c, "--follow-fork: the killed child's trace")
    readable(trace, "--follow-fork: the parent's trace")
finish()
