#!/usr/bin/env python3
"""Who corrupted this list node? (examples/linked_list.c)

The program prints "pears 0" although pears was pushed with 40. This
script finds the pears node in the pool at the end of the run, asks the
trace for the last write to its `quantity` field (a backward memory
query answered from the index), names the function that made it and
the calls that were open at that moment, and shows the write before it
(the legitimate one).

    PYTHONPATH=build/python python3 examples/scripts/who_corrupted.py list.ucir build/examples/x86_64/linked_list
"""

import argparse
import struct
import sys

import ttd
from symbols import Symbols

NODE_SIZE = 24          # char name[12]; int quantity; struct node *next;
QUANTITY_OFFSET = 12
POOL_SIZE = 8


def find_node(cursor, pool, name):
    for i in range(POOL_SIZE):
        raw = cursor.read_bytes(pool + i * NODE_SIZE, NODE_SIZE)
        if raw and raw[:12].split(b"\0")[0] == name:
            return pool + i * NODE_SIZE, raw
    return None, None


def open_calls_at(trace, eid):
    """The calls still running at EID, outermost first."""
    chain = []
    for call in trace.calls(end=eid + 1):
        if call.entry_eid <= eid and (call.exit_eid is None or call.exit_eid >= eid):
            chain.append(call)
    return sorted(chain, key=lambda c: c.depth)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("elf", help="the recorded program, for symbols")
    ap.add_argument("--node", default="pears")
    ap.add_argument("--expect", help="exit 1 unless the corrupting write is in this function")
    args = ap.parse_args()

    trace = ttd.open(args.trace)
    syms = Symbols(args.elf)
    pool, _ = syms.address("pool")
    end = trace.cursor(trace.step_count)
    node, raw = find_node(end, pool, args.node.encode())
    if node is None:
        print(f"no node named {args.node!r} in the pool at the end of the trace")
        return 1
    quantity = struct.unpack_from("<i", raw, QUANTITY_OFFSET)[0]
    field = node + QUANTITY_OFFSET
    print(f"{args.node} node at {node:#x}: quantity {quantity} at the end (EID {trace.step_count})")

    writes = trace.memory_accesses(field, 4, "w", backward=True)
    last = next(writes, None)
    if last is None:
        print("nothing ever wrote that field")
        return 1
    value = struct.unpack("<i", last.value[:4])[0] if last.value and len(last.value) >= 4 else None
    culprit = syms.function_at(last.pc)
    print(f"last write: EID {last.eid}, pc {last.pc:#x} in {culprit}, "
          f"{last.size} bytes at {last.addr:#x} = {value}")
    chain = open_calls_at(trace, last.eid)
    if chain:
        print("calls open at that moment: " +
              " -> ".join(syms.function_name(c.function) for c in chain))
    before = next(writes, None)
    if before is not None:
        old = struct.unpack("<i", before.value[:4])[0] if before.value and len(before.value) >= 4 else None
        print(f"write before it: EID {before.eid}, pc {before.pc:#x} in {syms.function_at(before.pc)} = {old}")
    if args.expect and culprit.split("+")[0] != args.expect:
        print(f"expected the corrupting write in {args.expect}, found {culprit}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
