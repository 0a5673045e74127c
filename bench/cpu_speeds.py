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

    cpu_speeds.py [--json] [--rounds N] [--handoff PROBE]

The work is a fixed integer loop in a child Python process pinned to one
CPU (taskset); its CPU time (user + system) is the figure, the fastest of
N rounds (default 3), rounds alternating between CPUs. Speed = fastest
CPU's time / this CPU's time. "ceiling" = the sum of the two fastest
speeds: the best two-core / one-core ratio a perfectly divisible job can
reach when the one-core run uses the fastest CPU.

--handoff PROBE also runs bench/handoff_probe (its path), which measures
what a two-thread build's hand-offs cost here: blocks filled on one CPU
and read on the other, against one thread doing both ("handoff_ratio",
about 2 where the CPUs share a cache; 0.5 was seen on this VM, when a
two-thread build spent twice the CPU of a one-thread one).
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


def handoff_text(r):
    """What --handoff found, as a clause for the speeds line ("" without it)."""
    h = r.get("handoff")
    if not h:
        return ""
    if "handoff_ratio" not in h:
        return "; hand-off probe: %s" % h.get("error", "no figure")
    return "; hand-off between CPUs %.2f x one thread (%.1f GB/s two threads, %.1f one)" % (
        h["handoff_ratio"], h["two_threads_gbs"], h["one_thread_gbs"])


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
    probe = None
    if "--handoff" in args:
        i = args.index("--handoff")
        if i + 1 >= len(args):
            sys.exit("cpu_speeds: --handoff needs the probe's path")
        probe = args[i + 1]
        del args[i:i + 2]
    as_json = "--json" in args
    if [a for a in args if a != "--json"]:
        sys.exit(__doc__)
    r = measure(rounds)
    if probe:
        try:
            out = subprocess.run([probe], check=True, capture_output=True, text=True).stdout
            r["handoff"] = json.loads(out)
        except (OSError, subprocess.CalledProcessError, ValueError) as e:
            r["handoff"] = {"error": str(e)}
    if as_json:
        print(json.dumps(r))
    else:
        print("CPU speeds (fastest = 1.00): " + ", ".join("cpu%s %.2f" % kv for kv in r["cpu_speeds"].items())
              + "; two-core ceiling %.2f x" % r["ceiling_2cpu"] + handoff_text(r))


if __name__ == "__main__":
    main()
