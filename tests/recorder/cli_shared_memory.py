#!/usr/bin/env python3
"""Replay of memory shared between processes (docs/recording.md,
"Processes"): programs/shared_memory.c `anon` reads a counter only its
fork's child increments and spins on a flag only the child sets. Under
`ttd record` it prints what it prints natively, and the trace holds what
the recorded process read: at the end, `ttd query` shows the counter the
parent read (500) and the flag (7), though the parent never stored
either. Without the other process's stores in the trace, replay would
show the zeros of the mapping.
Usage: cli_shared_memory.py TTD PROGRAM"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd, prog = sys.argv[1], sys.argv[2]
NATIVE = "anon: counter 500, wrong 0, flag 7, spun yes\n"
MAP_SHARED_ANONYMOUS = 0x21
COUNTER, FLAG = 104, 128  # offsets in struct Area (x86-64 glibc: two sem_t, a pthread_mutex_t)


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, env={"LC_ALL": "C"})


native = run([prog, "anon"])
check(native.stdout == NATIVE, "native run", native.stdout)
with tempfile.TemporaryDirectory() as d:
    trace = os.path.join(d, "t.ucir")
    rec = run([ttd, "record", "-o", trace, "--", prog, "anon"])
    check(rec.returncode == 0 and rec.stdout == NATIVE, "recorded run prints what the native one prints",
          rec.stdout + rec.stderr)
    calls = [json.loads(line) for line in run([ttd, "export", trace, "--what", "syscalls"]).stdout.splitlines()]
    maps = [c for c in calls if c["number"] == 9 and c["arg3"] == MAP_SHARED_ANONYMOUS]
    check(len(maps) == 1, "one MAP_SHARED|MAP_ANONYMOUS mmap in the trace", maps)
    end = calls[-1]["eid"]  # exit_group
    if maps:
        area = maps[0]["result"]
        q = run([ttd, "query", trace, "--at", str(end), "--json",
                 "--mem", "0x%x:8" % (area + COUNTER), "--mem", "0x%x:4" % (area + FLAG)])
        check(q.returncode == 0, "ttd query at the end", q.stderr)
        mem = [m["hex"] for m in json.loads(q.stdout)["mem"]] if q.returncode == 0 else ["", ""]
        check(mem[0] == "f401000000000000", "replay: the counter the parent read is the child's 500", mem)
        check(mem[1] == "07000000", "replay: the flag the parent spun on is the child's 7", mem)
finish()
