#!/usr/bin/env python3
"""How fast each CPU this process may use runs the same work, relative to
the fastest, and what that allows a two-core build.

A VM's CPUs need not be equal, nor stay so: on the machine of
docs/performance.md one vCPU ran the same single-threaded work 1.5-1.6x
slower than the other for a while (its host core was busy with someone
else; no steal time showed) and at full speed a quarter of an hour later.
While it lasts, a perfectly split two-core build can reach at most
1 + 0.65 = 1.65x its one-core time on the fast CPU, below issue 17's
1.7x, whatever the code does. The corpus prints this before and after its
table.

    cpu_speeds.py [--json] [--rounds N]

The work is a fixed integer loop in a child Python process pinned to one
CPU (taskset); its CPU time (user + system) is the figure, the fastest of
N rounds (default 3), rounds alternating between CPUs. Speed = fastest
CPU's time / this CPU's time. "ceiling" = the sum of the two fastest
speeds: the best two-core / one-core ratio a perfectly divisible job can
reach when the one-core run uses the fastest CPU.
"""
import json
import os
import resource
import subprocess
import sys

SPIN = "x = 0\nfor i in range(4_000_000):\n    x += i * i\n"


def child_cpu_seconds(cpu):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["taskset", "-c", str(cpu), sys.executable, "-S", "-c", SPIN], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(rounds):
    cpus = sorted(os.sched_getaffinity(0))
    best = {c: float("inf") for c in cpus}
    for _ in range(rounds):
        for c in cpus:
            best[c] = min(best[c], child_cpu_seconds(c))
    fastest = min(best.values())
    speeds = {str(c): round(fastest / t, 3) for c, t in best.items()}
    top = sorted(speeds.values(), reverse=True)
    ceiling = round(sum(top[:2]), 2) if len(top) >= 2 else 1.0
    return {"cpu_speeds": speeds, "cpu_seconds": {str(c): round(t, 3) for c, t in best.items()},
            "ceiling_2cpu": ceiling}


def main():
    args = sys.argv[1:]
    rounds = 3
    if "--rounds" in args:
        i = args.index("--rounds")
        try:
            rounds = int(args[i + 1])
        except (IndexError, ValueError):
            sys.exit("cpu_speeds: --rounds needs a number")
        if rounds < 1:
            sys.exit("cpu_speeds: --rounds must be at least 1")
        del args[i:i + 2]
    as_json = "--json" in args
    if [a for a in args if a != "--json"]:
        sys.exit(__doc__)
    r = measure(rounds)
    if as_json:
        print(json.dumps(r))
    else:
        print("CPU speeds (fastest = 1.00): " + ", ".join("cpu%s %.2f" % kv for kv in r["cpu_speeds"].items())
              + "; two-core ceiling %.2f x" % r["ceiling_2cpu"])


if __name__ == "__main__":
    main()
