"""The corpus's scripting-language run (scripts/bench-corpus.sh): what a
small Python program does - build and sort records, a dict index, string
formatting, JSON encoding, a regex scan - sized by N (records).

    /usr/bin/python3 -I python_run.py N

N is parsed digit by digit rather than with int(): under `ttd record` (as of
2026-11-26) int() of any string raises "Exceeds the limit (4300 digits)",
a recorder bug; so does json.loads of a number, so nothing here parses
numbers back.
"""
import json
import re
import sys


def parse_count(text):
    n = 0
    for c in text:
        n = n * 10 + "0123456789".index(c)
    return n


def main():
    n = parse_count(sys.argv[1]) if len(sys.argv) > 1 else 1000
    x = 1
    records = []
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        records.append({"id": i, "key": x % 100003, "name": "item-%06d-%x" % (i, x & 0xFFFF)})
    by_key = {}
    for r in records:
        by_key.setdefault(r["key"], []).append(r["id"])
    records.sort(key=lambda r: (r["key"], r["id"]))
    text = json.dumps(records)
    names = sorted(re.findall(r'"name": "(item-[0-9a-f-]+)"', text))
    hits = len(re.findall(r"item-0*1\d\d-", text))
    print(n, len(by_key), records[n // 2]["key"], hits, len(text), names[len(names) // 2])


if __name__ == "__main__":
    main()
