#!/usr/bin/env python3
"""CPU seconds of each thread of a command (e.g. a two-core `ttd index`).

On a shared machine the wall clock of a two-thread build says little; the
CPU time of each thread does not depend on the load much. The build cannot
finish before its busiest thread, nor before half its CPU time on two cores:
max(busiest thread, total / 2) is the wall time it would take on two idle
cores, and one-core CPU time divided by that is the two-core speed-up the
split allows. Threads are sampled from /proc every 50 ms (a thread's last
50 ms before it exits may be missed).

Usage: scripts/bench-build-threads.py COMMAND [ARG...]
Prints: wall s, then per thread "tid cpu_s", then total, busiest and the bound.
"""
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid):
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[tid] = (int(fields[11]) + int(fields[12])) / TICK  # utime + stime
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    start = time.monotonic()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    seen = {}
    while p.poll() is None:
        seen.update(thread_cpu(p.pid))
        time.sleep(0.05)
    wall = time.monotonic() - start
    if p.returncode != 0:
        print(f"command failed with status {p.returncode}", file=sys.stderr)
        return 1
    total = sum(seen.values())
    busiest = max(seen.values(), default=0.0)
    print(f"wall {wall:.2f}")
    for tid, cpu in sorted(seen.items(), key=lambda kv: -kv[1]):
        print(f"thread {tid} {cpu:.2f}")
    print(f"total {total:.2f} busiest {busiest:.2f} two-core bound {max(busiest, total / 2):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
