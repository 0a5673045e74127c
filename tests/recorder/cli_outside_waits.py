#!/usr/bin/env python3
"""Waits on descriptors another process makes ready (issue 16;
docs/recording.md, "Clocks" and "Threads"): programs/outside_waits.c polls
the host's stdin and a FIFO opened by path that this script writes to
late, and reads stdin in one thread while others run; what it prints
under `ttd record` must be what it prints natively. Before: poll/select/
epoll said stdin was always ready, refused a FIFO with -ENOSYS, and a
thread's read of stdin blocked every thread (the worker's result never
came, so this script never wrote the line the reader waited for). And a
thread writing to a full stdout pipe lets the others run (before, it
blocked them all).
Usage: cli_outside_waits.py TTD PROGRAM"""
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd, prog = sys.argv[1], sys.argv[2]
ENV = {"LC_ALL": "C"}
LATE = 0.8  # s after the program says "waiting": after its three 100 ms waits


def run(argv, feed):
    """Runs argv with stdin a pipe; `feed(proc)` writes to it (in a thread,
    which may read stdout first); returns (stdout, stderr, status). A run
    that hangs is killed after 60 s."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    t = threading.Thread(target=feed, args=(p,))
    t.start()
    t.join(timeout=60)
    if t.is_alive():
        p.kill()
        t.join()
    if not p.stdin.closed:
        p.stdin.close()
    p.stdin = None  # (communicate() would flush it)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return out.decode(), err.decode(), p.returncode


def late_line(text):
    def feed(p):
        late_line.first = p.stdout.readline().decode()  # "waiting": the program is at its first poll
        time.sleep(LATE)
        try:
            p.stdin.write(text.encode())
            p.stdin.close()
        except BrokenPipeError:
            pass
    return feed


def after_worker(p):
    """Writes the reader's line only once the worker's result is out."""
    after_worker.first = p.stdout.readline().decode()
    try:
        p.stdin.write(b"input\n")
        p.stdin.close()
    except BrokenPipeError:
        pass


def recorded(trace, *args):
    return [ttd, "record", "-q", "-o", trace, "--", prog, *args]


with tempfile.TemporaryDirectory() as work:
    trace = os.path.join(work, "t.ucir")

    native = run([prog, "poll_stdin"], late_line("hello\n"))
    native = (late_line.first + native[0],) + native[1:]
    rec = run(recorded(trace, "poll_stdin"), late_line("hello\n"))
    rec = (late_line.first + rec[0],) + rec[1:]
    check(native[0].startswith("waiting\npoll, 100 ms: 0\nselect, 100 ms: 0\nepoll_ctl: 0\nepoll_wait, 100 ms: 0\n"),
          "natively nothing is ready on stdin for 100 ms", native)
    check(rec[0] == native[0] and rec[2] == 0, "poll, select and epoll of the host's stdin wait as natively",
          rec[0] + rec[1] + " / native: " + native[0])

    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)

    def fifo_writer(p):
        late_line.first = p.stdout.readline().decode()
        time.sleep(LATE)
        # Non-blocking: ENXIO while nobody has it open for reading (a
        # blocking open would wait forever for a program that failed).
        deadline = time.time() + 30
        while True:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if time.time() > deadline:
                    return
                time.sleep(0.05)
        os.write(fd, b"fifo data\n")
        os.close(fd)

    native = run([prog, "poll_fifo", fifo], fifo_writer)
    native = (late_line.first + native[0],) + native[1:]
    rec = run(recorded(trace, "poll_fifo", fifo), fifo_writer)
    rec = (late_line.first + rec[0],) + rec[1:]
    check(native[0].endswith("line: fifo data\n"), "natively the FIFO's line comes", native)
    check(rec[0] == native[0] and rec[2] == 0, "poll, select and epoll of a FIFO opened by path wait as natively",
          rec[0] + rec[1] + " / native: " + native[0])

    for mode in ("read_thread", "readv_thread"):
        native = run([prog, mode], after_worker)
        native_out = after_worker.first + native[0]
        rec = run(recorded(trace, mode), after_worker)
        rec_out = after_worker.first + rec[0]
        check(native_out == "worker: 5000050000\nreader: input\n", f"{mode}: natively the worker's result comes first",
              native)
        check(rec_out == native_out and rec[2] == 0,
              f"{mode}: a thread blocked reading stdin lets the others run, as natively",
              rec_out + rec[1] + " / native: " + native_out)

    def stdout_full(argv):
        """Reads stderr's line before any of stdout: natively it comes while
        the writer thread waits on the full pipe. Returns (line, stdout
        bytes, status); a line that never comes is given up after 60 s."""
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        got = []
        t = threading.Thread(target=lambda: got.append(p.stderr.readline().decode()))
        t.start()
        t.join(timeout=60)
        line = got[0] if got else ""
        out = p.stdout.read()  # lets the writer go on
        p.wait(timeout=120)
        t.join()
        return line, len(out), p.returncode

    native = stdout_full([prog, "stdout_full"])
    check(native == ("main done: 5000050000\n", 1 << 20, 0), "stdout_full: natively main goes on", native)
    rec = stdout_full(recorded(trace, "stdout_full"))
    check(rec == native, "stdout_full: a thread blocked writing to a full stdout pipe lets the others run", rec)
finish()
