#!/usr/bin/env python3
"""One row of the real-workload corpus table (scripts/bench-corpus.sh, issue
17): every whole-process figure of one trace, measured through the CLI, and
the in-process ones from corpus_probe, printed as one JSON object.

    corpus_row.py --ttd TTD --probe PROBE --name NAME --trace TRACE --work DIR
                  [--runs N] [--seeks N] [--reverse-runs N] [--max-steps N] [--keep-index]
    corpus_row.py --ttd TTD --query-only --name NAME --trace TRACE --work DIR [--runs N]

What is measured (wall clock; CPU = user + sys of the process, from wait4):
  build_1cpu   `taskset -c 0 ttd index --index NEW TRACE`: a fresh index, one core
  build_2cpu   the same without taskset (every core); peak RSS of each build
  query        `ttd query TRACE --index I --at STEPS/2 --json`, N runs (page cache warm)
  startup      `ttd --version`, N runs (--query-only): the start-up floor of every query
  serve        `ttd serve TRACE --index I --listen 127.0.0.1:0`: spawn until a
               gdb-remote connection gets its reply to `?`, N runs
  probe        corpus_probe: random seeks, their peak RSS, reverse-continue
The index is built in --work and removed at the end unless --keep-index.
A failing command gives {"name": ..., "error": "..."} and exit status 1.
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT_S = 1800  # any one command; the full corpus's longest build takes minutes


class Failed(Exception):
    pass


def run_measured(cmd, what):
    """Runs cmd; returns (stdout, wall_s, cpu_s, peak_rss_mb). Raises Failed
    with the command's stderr when it exits non-zero or times out."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = threading.Timer(TIMEOUT_S, proc.kill)
        timer.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode(errors="replace")
        if proc.returncode != 0:
            # corpus_probe reports on stdout (JSON), ttd on stderr
            tail = (err.read().decode(errors="replace").strip() or text.strip())[-400:]
            raise Failed("%s: exit status %d: %s" % (what, proc.returncode, tail))
        return text, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def spread(values):
    """Median, min and max of a list of figures."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def build(args, index, one_cpu):
    if os.path.exists(index):
        os.remove(index)
    cmd = (["taskset", "-c", "0"] if one_cpu else []) + [args.ttd, "index", "--index", index, args.trace]
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    text, wall, cpu, rss = run_measured(cmd, "ttd index" + (" (one core)" if one_cpu else ""))
    m = re.search(r"^steps:\s+(\d+)", text, re.M)
    if not m:
        raise Failed("ttd index printed no step count: %r" % text[-300:])
    steps = int(m.group(1))
    return {"steps": steps, "wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss,
            "msteps_per_s": steps / wall / 1e6, "msteps_per_cpu_s": steps / cpu / 1e6 if cpu else 0.0,
            "index_bytes": os.path.getsize(index)}


def query(args, index, steps):
    cmd = [args.ttd, "query", args.trace, "--at", str(steps // 2), "--json"]
    if index:
        cmd += ["--index", index]
    walls, cpus, rss = [], [], 0.0
    for _ in range(args.runs):
        text, wall, cpu, peak = run_measured(cmd, "ttd query --at %d" % (steps // 2))
        json.loads(text)  # an answer, not an empty line
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
        rss = max(rss, peak)
    return {"at": steps // 2, "ms": spread(walls), "cpu_ms": statistics.median(cpus), "peak_rss_mb": rss}


def startup(args):
    """`ttd --version`, N runs: the process start-up floor under every
    one-shot query (ld.so, static initialisers, the CLI's set-up)."""
    walls, cpus = [], []
    for _ in range(args.runs):
        _, wall, cpu, _ = run_measured([args.ttd, "--version"], "ttd --version")
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
    return {"ms": spread(walls), "cpu_ms": statistics.median(cpus)}


def read_packet(sock):
    data = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            raise Failed("ttd serve closed the connection before replying to '?'")
        data += chunk
        start = data.find(b"$")
        end = data.find(b"#", start)
        if start >= 0 and end >= 0 and len(data) >= end + 3:
            return data[start + 1:end].decode("latin-1")


def serve_once(args, index):
    cmd = [args.ttd, "serve", args.trace, "--index", index, "--listen", "127.0.0.1:0"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    timer = threading.Timer(TIMEOUT_S, proc.kill)
    timer.start()
    try:
        port = None
        for line in proc.stdout:
            m = re.search(rb"listening on 127\.0\.0\.1:(\d+)", line)
            if m:
                port = int(m.group(1))
                break
        if port is None:
            raise Failed("ttd serve: no 'listening on' line: %s" % proc.stderr.read().decode(errors="replace")[-400:])
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S) as sock:
            sock.sendall(b"$?#3f")
            reply = read_packet(sock)
            ready_ms = (time.perf_counter() - t0) * 1000
        if not reply or reply[0] not in "STW":
            raise Failed("ttd serve replied %r to '?'" % reply[:60])
    finally:
        timer.cancel()
        proc.kill()
        _, _, ru = os.wait4(proc.pid, 0)
        proc.returncode = -9
        proc.stdout.close()
        proc.stderr.close()
    return ready_ms, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_maxrss / 1024.0


def serve(args, index):
    runs = [serve_once(args, index) for _ in range(args.runs)]
    return {"ms": spread([r[0] for r in runs]), "cpu_ms": statistics.median(r[1] for r in runs),
            "peak_rss_mb": max(r[2] for r in runs)}


def probe(args, index):
    cmd = [args.probe, args.trace, "--index", index, "--seeks", str(args.seeks),
           "--reverse-runs", str(args.reverse_runs)]
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    text, wall, cpu, rss = run_measured(cmd, "corpus_probe")
    result = json.loads(text)
    result["wall_s"] = wall
    return result


def measure(args):
    row = {"name": args.name, "trace": args.trace, "trace_bytes": os.path.getsize(args.trace)}
    index = os.path.join(args.work, os.path.basename(args.trace) + ".corpus.ttdidx")
    if args.query_only:
        # The reference trace of the "<= 3x a 1,000-step trace" target: the
        # index is built (untimed) before the query runs.
        b = build(args, index, one_cpu=False)
        row["reference"] = True
        row["steps"] = b["steps"]
        row["query"] = query(args, index, b["steps"])
        row["startup"] = startup(args)
        os.remove(index)
        return row
    try:
        one = build(args, index, one_cpu=True)
        two = build(args, index, one_cpu=False)
        row["steps"] = two["steps"]
        row["build_1cpu"] = one
        row["build_2cpu"] = two
        row["index_bytes"] = two["index_bytes"]
        row["query"] = query(args, index, two["steps"])
        row["serve"] = serve(args, index)
        row["probe"] = probe(args, index)
    finally:
        if not args.keep_index and os.path.exists(index):
            os.remove(index)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ttd", required=True)
    ap.add_argument("--probe")
    ap.add_argument("--name", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--work", required=True, help="folder for the index")
    ap.add_argument("--runs", type=int, default=5, help="runs of each query and serve measurement")
    ap.add_argument("--seeks", type=int, default=2000)
    ap.add_argument("--reverse-runs", type=int, default=5)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--keep-index", action="store_true")
    ap.add_argument("--query-only", action="store_true")
    args = ap.parse_args()
    if not args.query_only and not args.probe:
        ap.error("--probe is needed unless --query-only")
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    try:
        row = measure(args)
    except (Failed, OSError, ValueError) as e:
        print(json.dumps({"name": args.name, "trace": args.trace, "error": str(e)}))
        return 1
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
