"""The cross-check's cases through real gdb (gdb for x86-64, gdb-multiarch
for aarch64 and ppc32) attached to `ttd serve`: one batch session per
trace, each case starting with `monitor seek` + `stepi` (the seek happens
at the next resume), every stop read back with `monitor eid`."""
import re
import shutil

from harness import run

GDB_MOVES = {"stepi": "stepi", "rstepi": "reverse-stepi", "nexti": "nexti", "rnexti": "reverse-nexti",
             "finish": "finish", "rfinish": "reverse-finish", "continue": "continue",
             "rcontinue": "reverse-continue"}
GDB_WATCH = {"write": "watch", "read": "rwatch", "access": "awatch"}


def gdb_binary(arch):
    if arch == "x86-64" and shutil.which("gdb"):
        return "gdb"
    return "gdb-multiarch" if shutil.which("gdb-multiarch") else None


def setup_commands(setup):
    if "break" in setup:
        return ["break *0x%x" % setup["break"]]
    if "watch" in setup:
        w = setup["watch"]
        return ["%s *(char(*)[%d])0x%x" % (GDB_WATCH[w["kind"]], w["len"], w["addr"])]
    return []


def run_cases(binary, address, elf, cases):
    """Runs every case in one gdb; returns ({case index: [eid after the
    landing, eid after each move]}, gdb's output)."""
    cmd = [binary, "-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off", "-ex", f"file {elf}",
           "-ex", f"target remote {address}"]
    for i, c in enumerate(cases):
        cmds = [f"echo @@case {i}\\n", "delete", f"monitor seek {c['start']}", "stepi", "monitor eid"]
        cmds += setup_commands(c["setup"])
        for mv in c["moves"]:
            cmds += [GDB_MOVES[mv["move"]], "monitor eid"]
        for x in cmds:
            cmd += ["-ex", x]
    cmd += ["-ex", "detach"]
    out = run(cmd, timeout=120)
    got = {}
    for part in re.split(r"^@@case ", out, flags=re.M)[1:]:
        idx, _, body = part.partition("\n")
        got[int(idx)] = [int(x) for x in re.findall(r"^eid (\d+)$", body, re.M)]
    return got, out
