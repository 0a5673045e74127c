#!/usr/bin/env python3
"""Random-seek latency on any trace ttd reads, through the Python module
(the loop of bench/engine_bench.cpp's BM_RandomSeek, which only takes UCIR).

    PYTHONPATH=build/python python3 bench/seek_latency.py TRACE [SEEKS]

Opens (indexing if needed), seeks to SEEKS random EIDs (default 2000,
fixed seed) and prints p50, p99 and max in microseconds."""
import random
import sys
import time

import ttd


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    t = ttd.open(sys.argv[1])
    seeks = int(sys.argv[2]) if len(sys.argv) == 3 else 2000
    c = t.cursor()
    rng = random.Random(1)
    us = []
    for _ in range(seeks):
        e = rng.randrange(t.step_count + 1)
        t0 = time.perf_counter()
        c.seek(e)
        us.append((time.perf_counter() - t0) * 1e6)
    us.sort()
    print("seeks %d  p50 %.1f us  p99 %.1f us  max %.1f us" % (seeks, us[len(us) // 2], us[len(us) * 99 // 100], us[-1]))


if __name__ == "__main__":
    main()
