"""Pictures of a trace with matplotlib (python3-matplotlib on Debian).

timeline(trace, "t.svg")                      functions x time, one lane per thread
write_heatmap(trace, addr, length, "h.png")   memory writes: time x address, colour = count

Both return the matplotlib Figure and, given a path, save it (PNG or SVG
by the file's extension). From a shell:

    python3 -m ttd.plot timeline TRACE -o timeline.svg [--elf PROGRAM]
    python3 -m ttd.plot heatmap TRACE --range 0x4c6f00:400 -o writes.png
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Callable, Dict, List, Optional, Tuple, Union

import matplotlib

if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")  # files, no display, unless the caller chose a backend already
import matplotlib.pyplot as plt  # noqa: E402

Names = Union[Dict[int, str], Callable[[int], Optional[str]], None]


def _name_of(names: Names, pc: Optional[int], symbol: str) -> str:
    if symbol:
        return symbol
    if pc is None:
        return "?"
    found = names(pc) if callable(names) else (names or {}).get(pc)
    return found or f"{pc:#x}"


def elf_function_names(path: str) -> Dict[int, str]:
    """Function entry addresses -> names from an ELF's symbol table (binutils'
    nm). Empty when nm is missing or the file has no symbols."""
    try:
        out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    names: Dict[int, str] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            names.setdefault(int(parts[0], 16), parts[2])
    return names


def timeline(trace, output: Optional[str] = None, *, start: Optional[int] = None, end: Optional[int] = None,
             names: Names = None, max_depth: Optional[int] = None, max_calls: int = 20000,
             title: Optional[str] = None):
    """Every call as a bar from its entry to its exit EID, one row per function,
    rows grouped in a lane per thread. Calls that never return run to the end of
    the window. At most max_calls calls are drawn (the title says when cut)."""
    window_end = trace.step_count if end is None else min(end, trace.step_count)
    rows: Dict[Tuple[int, str], List[Tuple[int, int]]] = {}
    order: List[Tuple[int, str]] = []
    drawn = 0
    cut = False
    for c in trace.calls(start=start, end=end, max_depth=max_depth):
        if drawn == max_calls:
            cut = True
            break
        key = (c.thread, _name_of(names, c.function_pc or c.function, c.symbol))
        if key not in rows:
            rows[key] = []
            order.append(key)
        stop = c.exit_eid if c.exit_eid is not None else window_end
        rows[key].append((c.entry_eid, max(1, stop - c.entry_eid)))
        drawn += 1
    order.sort(key=lambda k: k[0])  # threads in tid order; stable: functions by first call

    threads = sorted({k[0] for k in order})
    colours = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(10, max(2.5, 0.32 * len(order) + 1.2)), dpi=100)
    for y, key in enumerate(order):
        lane = threads.index(key[0])
        ax.broken_barh(rows[key], (y - 0.4, 0.8), facecolors=colours(y % 20),
                       edgecolor="none" if len(rows[key]) > 200 else "black", linewidth=0.3)
        if lane % 2:
            ax.axhspan(y - 0.5, y + 0.5, color="0.93", zorder=0)
    ax.set_yticks(range(len(order)))
    multi = len(threads) > 1
    ax.set_yticklabels([f"[{k[0]}] {k[1]}" if multi else k[1] for k in order], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(start or 0, max(window_end, (start or 0) + 1))
    ax.set_xlabel("EID (execution position)")
    ax.set_ylabel("function" + (" (lanes: threads)" if multi else ""))
    label = title or f"calls in {trace.path.rsplit('/', 1)[-1]}"
    ax.set_title(label + (f" (first {max_calls} calls)" if cut else ""))
    fig.tight_layout()
    if output:
        fig.savefig(output)
    return fig


def write_heatmap(trace, addr: int, length: int, output: Optional[str] = None, *, time_bins: int = 200,
                  addr_bins: int = 64, label: Optional[str] = None):
    """Writes to [addr, addr+length) binned by position (x) and address (y),
    colour = number of writes; from one memory-history query."""
    import numpy as np

    eids, offsets = [], []
    for w in trace.memory_accesses(addr, length, "w"):
        eids.append(w.eid)
        offsets.append(max(w.addr, addr) - addr)  # a write may start before the range
    heat, xedges, yedges = np.histogram2d(
        eids, offsets, bins=[time_bins, max(1, min(addr_bins, length))],
        range=[[0, max(1, trace.step_count)], [0, length]])
    fig, ax = plt.subplots(figsize=(10, 4), dpi=100)
    mesh = ax.pcolormesh(xedges, yedges + addr, heat.T, cmap="magma", shading="flat")
    fig.colorbar(mesh, ax=ax, label="writes")
    ax.set_xlabel("EID (execution position)")
    ax.set_ylabel("address")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{int(v):#x}"))
    ax.set_title(f"{len(eids)} writes to {label or f'{addr:#x}:{length}'}")
    fig.tight_layout()
    if output:
        fig.savefig(output)
    fig.write_count = len(eids)  # for callers that check what was drawn
    return fig


def _main(argv: Optional[List[str]] = None) -> int:
    import ttd

    ap = argparse.ArgumentParser(prog="python3 -m ttd.plot", description="Draw a trace's calls or memory writes.")
    sub = ap.add_subparsers(dest="what", required=True)
    tl = sub.add_parser("timeline", help="functions x time, threads as lanes")
    tl.add_argument("trace")
    tl.add_argument("-o", "--output", required=True, help="PNG or SVG file")
    tl.add_argument("--elf", help="the traced program, for function names (default: the one the trace names)")
    tl.add_argument("--max-depth", type=int)
    hm = sub.add_parser("heatmap", help="memory writes: time x address")
    hm.add_argument("trace")
    hm.add_argument("-o", "--output", required=True, help="PNG or SVG file")
    hm.add_argument("--range", required=True, help="ADDR:LEN, e.g. 0x4c6f00:400")
    args = ap.parse_args(argv)
    try:
        t = ttd.open(args.trace)
        if args.what == "timeline":
            elf = args.elf or t.exec_path
            timeline(t, args.output, names=elf_function_names(elf) if elf else None, max_depth=args.max_depth)
        else:
            a, sep, n = args.range.partition(":")
            try:
                addr, length = int(a, 0), int(n, 0)
            except ValueError:
                addr, length, sep = 0, 0, ""
            if not sep or length <= 0:
                ap.error(f"--range: expected ADDR:LEN with LEN > 0, got '{args.range}'")
            write_heatmap(t, addr, length, args.output, label=args.range)
    except (ttd.Error, OSError) as e:
        print(f"ttd.plot: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
