#!/usr/bin/env python3
"""A heatmap of memory writes over time, rendered to PNG with matplotlib:
x is the execution position (EID), y the address inside a range (a
symbol such as `values` in examples/loop.c, or ADDR:LEN), colour the
number of writes. Every write comes from one memory-history query.

    PYTHONPATH=build/python python3 examples/scripts/write_heatmap.py loop.ucir --elf build/examples/x86_64/loop --symbol values -o writes.png
"""

import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import ttd  # noqa: E402
from symbols import Symbols  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("-o", "--output", default="writes.png")
    ap.add_argument("--elf", help="the recorded program, for --symbol")
    ap.add_argument("--symbol", help="the memory range: a data symbol of the ELF")
    ap.add_argument("--range", help="the memory range: ADDR:LEN")
    ap.add_argument("--time-bins", type=int, default=200)
    ap.add_argument("--addr-bins", type=int, default=64)
    ap.add_argument("--expect-writes", type=int, help="exit 1 unless exactly this many writes were seen")
    args = ap.parse_args()

    if args.symbol:
        if not args.elf:
            ap.error("--symbol needs --elf")
        addr, length = Symbols(args.elf).address(args.symbol)
        label = args.symbol
    elif args.range:
        a, _, n = args.range.partition(":")
        addr, length = int(a, 0), int(n, 0)
        label = args.range
    else:
        ap.error("give --symbol or --range")

    trace = ttd.open(args.trace)
    eids, addrs = [], []
    for w in trace.memory_accesses(addr, length, "w"):
        # A write may start before the range: count the bytes inside it.
        eids.append(w.eid)
        addrs.append(max(w.addr, addr) - addr)
    print(f"{len(eids)} writes to {label} [{addr:#x}, {addr + length:#x}) in {trace.step_count} steps")

    heat, xedges, yedges = np.histogram2d(
        eids, addrs, bins=[args.time_bins, min(args.addr_bins, max(1, length))],
        range=[[0, max(1, trace.step_count)], [0, length]])
    fig, ax = plt.subplots(figsize=(10, 4), dpi=100)
    mesh = ax.pcolormesh(xedges, yedges + addr, heat.T, cmap="magma", shading="flat")
    fig.colorbar(mesh, ax=ax, label="writes")
    ax.set_xlabel("EID (execution position)")
    ax.set_ylabel(f"address in {label}")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{int(v):#x}"))
    ax.set_title(f"Writes over time: {trace.path}")
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}")

    if args.expect_writes is not None and len(eids) != args.expect_writes:
        print(f"expected {args.expect_writes} writes, found {len(eids)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
