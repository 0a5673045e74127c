#!/usr/bin/env python3
"""issue 20's "done when" for origin: on the linked-list example, `ttd origin`
of the corrupted pears->quantity names the stray write in audit_removed and,
behind it, the pointer read from the wrong list node (remove_item's
`gone = *p`, the `next` field of a pool node). Records the example into a
temporary folder, removed at the end.

usage: origin_linked_list.py TTD EXAMPLE"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def walk(node):
    yield node
    for c in node.get("inputs", []):
        yield from walk(c)


def main():
    ttd, example = sys.argv[1], sys.argv[2]
    nm = subprocess.run(["nm", example], check=True, capture_output=True, text=True).stdout
    pool = next(int(l.split()[0], 16) for l in nm.splitlines() if l.split()[-1] == "pool")
    node_size, quantity = 24, 12
    with tempfile.TemporaryDirectory(prefix="ttd-origin-") as tmp:
        trace = str(Path(tmp) / "list.ucir")
        subprocess.run([ttd, "record", "-q", "-o", trace, "--", example], check=False, capture_output=True)
        end = json.loads(subprocess.run([ttd, "info", trace, "--json"], check=True, capture_output=True,
                                        text=True).stdout)["steps"]
        pears = pool + node_size  # pool[1]: the bananas slot, handed to pears
        args = [ttd, "origin", trace, "--at", str(end), "--mem", f"{pears + quantity:#x}:4", "--depth", "10",
                "--program", example]
        doc = json.loads(subprocess.run(args + ["--json"], check=True, capture_output=True, text=True).stdout)
        text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        print(text)
    root = doc["root"]
    assert root["origin"] == "write", root
    assert root["step"]["function"] == "audit_removed", root["step"]
    assert root["step"]["insn"] == "mov dword ptr [rax + 0xc], 0", root["step"]
    assert root["value"] == "0x0"
    assert any(i["origin"] == "constant" and i["value"] == "0x0" for i in root["inputs"])
    pointer = next(i for i in root["inputs"] if i["role"] == "address")
    assert pointer["location"] == {"reg": "rax"} and int(pointer["value"], 16) == pears, pointer
    # Behind the pointer: the load of *p in remove_item, from a node's next field.
    loads = [n for n in walk(pointer) if n.get("step", {}).get("function") == "remove_item"
             and n["step"]["insn"] == "mov rax, qword ptr [rax]"]
    assert loads, "no load of the stale pointer in remove_item"
    read = next(i for i in loads[0]["inputs"] if "mem" in i["location"])
    addr = int(read["location"]["mem"]["addr"], 16)
    assert pool <= addr < pool + 8 * node_size and (addr - pool) % node_size == 16, read
    assert int(read["value"], 16) == pears
    assert "audit_removed+0x13" in text and "remove_item" in text
    # The same location written by the same step is expanded once: later
    # meetings are repeats pointing at it (rbp of the same frame, here).
    nodes = {n["id"]: n for n in walk(root)}
    repeats = [n for n in nodes.values() if n["origin"] == "repeat"]
    assert repeats, "no shared node in a depth-10 answer"
    for r in repeats:
        first = nodes[r["same_as"]]
        assert first["location"] == r["location"] and first["step"]["eid"] == r["step"]["eid"], (r, first)
        assert first["origin"] != "repeat" and not r["inputs"]
    print("origin: stray write in audit_removed, pointer from", hex(addr))


if __name__ == "__main__":
    main()
