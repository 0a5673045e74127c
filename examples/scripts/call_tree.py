#!/usr/bin/env python3
"""The call tree of a run (examples/recursion.c, or any instruction or
XRay trace): every call with its entry and exit EIDs and return value,
indented by depth, then a profile of calls and steps per function.

    PYTHONPATH=build/python python3 examples/scripts/call_tree.py rec.ucir --elf build/examples/x86_64/recursion
"""

import argparse
import collections
import sys

import ttd
from symbols import Symbols


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--elf", help="the recorded program, for function names")
    ap.add_argument("--max-depth", type=int, default=None, help="print calls at most this deep")
    ap.add_argument("--root", help="print only the subtrees of calls to this function")
    ap.add_argument("--expect", action="append", default=[], metavar="NAME=COUNT",
                    help="exit 1 unless NAME was called COUNT times (repeatable)")
    args = ap.parse_args()

    trace = ttd.open(args.trace)
    syms = Symbols(args.elf) if args.elf else None

    def name(call):
        if call.symbol:
            return call.symbol
        if syms and call.function is not None:
            return syms.function_name(call.function)
        return f"{call.function:#x}" if call.function is not None else "?"

    counts = collections.Counter()
    inclusive = collections.Counter()
    root_depth = None
    calls = trace.calls()
    for call in calls:
        fn = name(call)
        counts[fn] += 1
        end = call.exit_eid if call.exit_eid is not None else trace.step_count
        inclusive[fn] += end - call.entry_eid
        if root_depth is not None and call.depth <= root_depth:
            root_depth = None
        if args.root and root_depth is None and fn == args.root:
            root_depth = call.depth
        if args.root and root_depth is None:
            continue
        depth = call.depth - (root_depth or 0)
        if args.max_depth is not None and depth > args.max_depth:
            continue
        ret = f" -> {call.return_value:#x}" if call.return_value is not None else ""
        exit_eid = call.exit_eid if call.exit_eid is not None else "open"
        print(f"{'  ' * depth}{fn}  [{call.entry_eid}..{exit_eid}]{ret}")

    print()
    print(f"{'function':<28}{'calls':>8}{'steps (inclusive)':>20}")
    for fn, n in counts.most_common():
        print(f"{fn:<28}{n:>8}{inclusive[fn]:>20}")
    stats = calls.stats
    print(f"\n{stats['calls']} calls; {stats['chunks_decoded']} chunks decoded, "
          f"{stats['chunks_skipped']} skipped by their summaries")

    status = 0
    for want in args.expect:
        fn, _, n = want.partition("=")
        if counts[fn] != int(n):
            print(f"expected {fn} to be called {n} times, found {counts[fn]}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
