#!/usr/bin/env python3
"""`ttd record` gives the program the wall-clock time of the recording (its
clocks then advance 1 ns per step), so `date` and `ls -l` print what they
print natively; `--epoch SECONDS` fixes the start for traces that are
identical byte for byte between recordings. Before, every recording read
2023-11-14 and `ls -l` showed files modified since as in the future.
Usage: record_clock.py TTD"""
import filecmp
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd = sys.argv[1]
date = "/bin/date"
if not os.path.exists(date):
    print("no /bin/date: skipped")
    sys.exit(77)


def record(out, *args):
    return subprocess.run([ttd, "record", "-q", "-o", out, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=600, env={"LC_ALL": "C", "TZ": "UTC"})


with tempfile.TemporaryDirectory() as work:
    before = int(time.time())
    p = record(os.path.join(work, "now.ucir"), "--", date, "+%s")
    after = int(time.time())
    check(p.returncode == 0, "date records", p.stderr)
    seconds = int(p.stdout.strip() or "0")
    check(before <= seconds <= after + 5, "by default the program reads the recording's time",
          f"{seconds} not in [{before}, {after + 5}]")

    p = record(os.path.join(work, "zero.ucir"), "--epoch", "0", "--", date, "+%F %T")
    check(p.stdout == "1970-01-01 00:00:00\n", "--epoch 0 starts the clock at 1970", p.stdout + p.stderr)

    a, b = os.path.join(work, "a.ucir"), os.path.join(work, "b.ucir")
    # The pid is the recorder's own unless --pid fixes it (the main
    # thread's tid is in the trace: set_tid_address returns it).
    pa = record(a, "--epoch", "1700000000", "--pid", "4242", "--", date, "+%s")
    pb = record(b, "--epoch", "1700000000", "--pid", "4242", "--", date, "+%s")
    check(pa.stdout == "1700000000\n" and pb.stdout == pa.stdout, "--epoch sets the start", pa.stdout + pb.stdout)
    check(filecmp.cmp(a, b, shallow=False), "two recordings with one --epoch and --pid are the same bytes", "")
    p = record(os.path.join(work, "pid0.ucir"), "--pid", "0", "--", date)
    check(p.returncode != 0 and "--pid" in p.stderr, "--pid 0 is an error naming it", p.stderr)

    # A file written just before the recording starts is not in the
    # program's future: the clock starts at the recording's time to the
    # nanosecond (it started at the whole second: make warned "modification
    # time 0.62 s in the future"). That bug showed on almost every run, so
    # one recording tells: each python3 recording takes a minute on a slow
    # machine (0.35 M steps/s on the development VM in session 25).
    python3 = "/usr/bin/python3"
    if os.path.exists(python3):
        fresh = os.path.join(work, "fresh")
        with open(fresh, "w") as f:
            f.write("x")
        p = record(os.path.join(work, "fresh.ucir"), "--", python3, "-S", "-c",
                   "import os, sys, time; print(os.stat(sys.argv[1]).st_mtime_ns <= time.time_ns())", fresh)
        check(p.stdout == "True\n", "a file modified just before the recording is not in the program's future",
              p.stdout + p.stderr)

        # A sleep moves the clock on (it took no time at all: time.sleep(0.5)
        # measured 5 us, and a loop sleeping until a deadline spun); a timer
        # that falls due during it ends it with EINTR if its signal runs a
        # handler (Python then sleeps the rest), not if it is ignored.
        sleeper = ("import signal, time\n"
                   "t = time.monotonic(); w = time.time(); time.sleep(0.5)\n"
                   "print('0.5 s passed', time.monotonic() - t >= 0.5, time.time() - w >= 0.5)\n"
                   "signal.signal(signal.SIGALRM, lambda *a: print('alarm'))\n"
                   "signal.alarm(1); t = time.monotonic(); time.sleep(3)\n"
                   "print('slept', round(time.monotonic() - t, 1))\n"
                   "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                   "signal.alarm(1); t = time.monotonic(); time.sleep(2)\n"
                   "print('ignored alarm: slept', round(time.monotonic() - t, 1))\n")
        # What Linux prints on an idle machine; a loaded one prints longer
        # sleeps natively (session 26: "slept 3.5" for the 2 s sleep), so
        # the native run is shown, not compared.
        expected = "0.5 s passed True True\nalarm\nslept 3.0\nignored alarm: slept 2.0\n"
        native = subprocess.run([python3, "-S", "-c", sleeper], capture_output=True, text=True, timeout=60)
        p = record(os.path.join(work, "sleep.ucir"), "--", python3, "-S", "-c", sleeper)
        check(p.stdout == expected, "sleeps move the clock, and an alarm interrupts one as natively",
              p.stdout + p.stderr + " / native: " + native.stdout)

    p = record(os.path.join(work, "bad.ucir"), "--epoch", "soon", "--", date)
    check(p.returncode != 0 and "--epoch" in p.stderr, "a bad --epoch is an error naming it", p.stderr)
finish()
