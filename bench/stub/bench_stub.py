#!/usr/bin/env python3
"""Benchmarks of `ttd serve` (issue 3), run by scripts/bench-stub.sh:

  round-trips   N stepi + reverse-stepi pairs through real gdb, timed inside
                gdb (python time.perf_counter around the loop), in the middle
                of a big trace
  reverse       reverse-continue from the end of a trace to a breakpoint at
                `main` (hit once, near the start), timed at the stub: the
                round trip of the `bc` packet from a raw RSP client on
                127.0.0.1 (no debugger work included)
  record-full   the same program under gdb's own `record full` against ttd:
                reverse-continue across the whole loop, timed inside gdb
                both ways

Every process started here is killed and reaped before exiting."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsp_client import RspClient  # noqa: E402

REPEATS = 3  # reverse-continues per size in (c); the median is reported


class Server:
    """`ttd serve` on a free 127.0.0.1 port."""

    def __init__(self, ttd, trace):
        self.proc = subprocess.Popen([ttd, "serve", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.port = None
        for line in self.proc.stdout:  # the index is built (or checked) before this line
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.stop()
            raise RuntimeError("ttd serve did not start: " + self.proc.stderr.read())
        # keep draining so the server never blocks on a full pipe
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def run_gdb(script_lines, timeout=3600):
    """gdb -batch on a command file; returns its output. Own process group,
    killed whole on timeout."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write("\n".join(["set pagination off", "set confirm off"] + script_lines) + "\n")
        path = f.name
    proc = subprocess.Popen(["gdb", "-batch", "-nx", "-x", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
    finally:
        os.unlink(path)
    return out


def timed(label, command):
    """gdb commands that time `command` and print `label <seconds>`."""
    return ["python import time; _t0 = time.perf_counter()", command,
            f'python print("{label} %.4f" % (time.perf_counter() - _t0))']


def figure(output, label):
    m = re.search(rf"^{label} ([0-9.]+)$", output, re.M)
    if not m:
        raise RuntimeError(f"no '{label}' figure in gdb output:\n{output[-3000:]}")
    return float(m.group(1))


def symbol(exe, name):
    out = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    m = re.search(rf"^([0-9a-f]+) [Tt] {re.escape(name)}$", out, re.M)
    if not m:
        raise RuntimeError(f"{exe} has no symbol {name}")
    return int(m.group(1), 16)


def step_count(ttd, trace):
    info = subprocess.run([ttd, "info", "--json", trace], capture_output=True, text=True, check=True).stdout
    return json.loads(info)["eid_range"][1]


# --- (a) stepi / reverse-stepi round trips through gdb -------------------

def bench_round_trips(ttd, trace, exe, n):
    server = Server(ttd, trace)
    try:
        middle = step_count(ttd, trace) // 2
        loop = ["set $i = 0", f"while $i < {n}", "stepi", "reverse-stepi", "set $i = $i + 1", "end"]
        # wall time and gdb's own CPU time, inside gdb; the server's CPU time
        # from /proc, read by gdb's python at the same two points
        cpu = f"sum(int(x) for x in open('/proc/{server.proc.pid}/stat').read().rsplit(')', 1)[1].split()[11:13])"
        script = [f"file {exe}", f"target remote {server.address}", f"monitor seek {middle}", "stepi",
                  f"python import time; _t0 = time.perf_counter(); _c0 = time.process_time(); _s0 = {cpu}", *loop,
                  'python print("round_trips_s %.4f" % (time.perf_counter() - _t0))',
                  'python print("gdb_cpu_s %.4f" % (time.process_time() - _c0))',
                  f'python import os; print("server_cpu_s %.4f" % ((({cpu}) - _s0) / os.sysconf("SC_CLK_TCK")))',
                  "monitor eid", "detach"]
        out = run_gdb(script)
        seconds = figure(out, "round_trips_s")
        gdb_cpu, server_cpu = figure(out, "gdb_cpu_s"), figure(out, "server_cpu_s")
        # the pending seek takes effect at that first stepi, which stops there
        if f"eid {middle}\n" not in out:
            raise RuntimeError(f"round trips did not come back to eid {middle}:\n{out[-2000:]}")
        print(f"(a) {n} stepi + reverse-stepi round trips through gdb at eid {middle}: {seconds:.3f} s "
              f"({seconds / (2 * n) * 1e6:.0f} us per step); CPU time: gdb {gdb_cpu:.3f} s, "
              f"ttd serve {server_cpu:.3f} s")
        return seconds
    finally:
        server.stop()


# --- (b) reverse-continue from the end, timed at the stub ----------------

def bench_reverse_continue(ttd, trace, exe, repeats):
    main = symbol(exe, "main")
    server = Server(ttd, trace)
    try:
        client = RspClient("127.0.0.1", server.port)
        times = []
        for i in range(repeats):
            client.monitor("seek end")
            end_stop = client.request("vCont;c")  # the pending seek reports a stop at the end
            if "replaylog:end" not in end_stop and not end_stop.startswith("T"):
                raise RuntimeError(f"seek end: unexpected stop {end_stop}")
            if i == 0 and client.request(f"Z0,{main:x},1") != "OK":
                raise RuntimeError("Z0 refused")
            t0 = time.perf_counter()
            stop = client.request("bc")
            times.append(time.perf_counter() - t0)
            if "swbreak" not in stop and not stop.startswith("T05"):
                raise RuntimeError(f"bc: unexpected stop {stop}")
            where = client.monitor("eid")
        client.close()
        ms = [t * 1000 for t in times]
        print(f"(b) reverse-continue from the end ({step_count(ttd, trace)} steps) to main "
              f"(stopped at {where.strip()}): first {ms[0]:.1f} ms, median of {repeats} "
              f"{statistics.median(ms):.1f} ms, min {min(ms):.1f} ms, max {max(ms):.1f} ms")
        return ms
    finally:
        server.stop()


# --- (c) against gdb's record full ----------------------------------------

def bench_record_full(exe, iterations, stop_line):
    """gdb runs the program to main, starts `record full`, continues to
    stop_line (recording), then reverse-continues to the start of the
    recording (main)."""
    again = []  # replay forward to the stop line, reverse-continue again (median of REPEATS)
    for i in range(1, REPEATS):
        again += ["continue", *timed(f"reverse{i}_s", "reverse-continue")]
    out = run_gdb([f"file {exe}", "break main", f"run {iterations} > /dev/null", "record full",
                   "set record full insn-number-max unlimited", f"break {stop_line}",
                   *timed("forward_s", "continue"), "info record", *timed("reverse0_s", "reverse-continue"),
                   *again, "kill"])
    m = re.search(r"Log contains (\d+) instructions", out)
    if not m or "No more reverse-execution history" not in out:
        raise RuntimeError(f"record full run failed:\n{out[-3000:]}")
    reverse = statistics.median(figure(out, f"reverse{i}_s") for i in range(REPEATS))
    return int(m.group(1)), figure(out, "forward_s"), reverse


def bench_ttd_same(ttd, exe, iterations, stop_line, work):
    """The same span with ttd: record, index, then gdb goes to stop_line and
    reverse-continues to a breakpoint at main."""
    trace = os.path.join(work, f"loop-{iterations}.ucir")
    t0 = time.perf_counter()
    subprocess.run([ttd, "record", "-q", "-o", trace, "--", exe, str(iterations)], check=True,
                   stdout=subprocess.DEVNULL)
    record_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([ttd, "index", "--rebuild", trace], check=True, capture_output=True)
    index_s = time.perf_counter() - t0
    server = Server(ttd, trace)
    try:
        again = []  # forward to the stop line, reverse-continue again (median of REPEATS)
        for i in range(1, REPEATS):
            again += ["continue", *timed(f"reverse{i}_s", "reverse-continue")]
        out = run_gdb([f"file {exe}", f"target remote {server.address}", f"break {stop_line}", "continue",
                       "monitor eid", "break main", *timed("reverse0_s", "reverse-continue"), "monitor eid",
                       *again, "detach"])
    finally:
        server.stop()
    eids = [int(e) for e in re.findall(r"^eid (\d+)$", out, re.M)]
    if len(eids) != 2 or not re.search(r"Breakpoint 2, main", out):
        raise RuntimeError(f"ttd run failed:\n{out[-3000:]}")
    reverse = statistics.median(figure(out, f"reverse{i}_s") for i in range(REPEATS))
    return eids[0] - eids[1], record_s, index_s, reverse


def bench_against_record_full(ttd, exe, sizes, stop_line):
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-stub-") as work:
        for n in sizes:
            insns, fwd, rev = bench_record_full(exe, n, stop_line)
            steps, rec, idx, ttd_rev = bench_ttd_same(ttd, exe, n, stop_line, work)
            rows.append((n, insns, fwd, rev, steps, rec, idx, ttd_rev))
    print("(c) reverse-continue across the whole loop: gdb record full vs ttd serve")
    print(f"(median of {REPEATS} reverse-continues each; gdb's timed inside gdb, ttd's too, through gdb)")
    print("| loop N | gdb: insns recorded | gdb: record (continue under record full) | gdb: reverse-continue "
          "| ttd: steps crossed | ttd record | ttd index | ttd: reverse-continue |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, insns, fwd, rev, steps, rec, idx, ttd_rev in rows:
        print(f"| {n} | {insns} | {fwd:.2f} s | {rev:.3f} s | {steps} | {rec:.2f} s | {idx:.2f} s "
              f"| {ttd_rev * 1000:.1f} ms |")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ttd", required=True)
    p.add_argument("--exe", required=True, help="the loop example (static, -g) the traces were recorded from")
    p.add_argument("--trace", help="a big trace of --exe (the 100 M-step loop) for (a) and (b)")
    p.add_argument("--round-trips", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--record-full-sizes", default="2600,26000",
                   help="loop iteration counts for (c), comma-separated; empty to skip")
    p.add_argument("--stop-line", default="loop.c:24", help="where the loop is over (the printf)")
    args = p.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    if args.trace:
        bench_round_trips(args.ttd, args.trace, args.exe, args.round_trips)
        bench_reverse_continue(args.ttd, args.trace, args.exe, args.repeats)
    if args.record_full_sizes:
        sizes = [int(s) for s in args.record_full_sizes.split(",")]
        bench_against_record_full(args.ttd, args.exe, sizes, args.stop_line)
    print(f"load average after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
