"""The cross-check's cases through real lldb attached to `ttd serve`
(gdb-remote), one batch session per trace and lldb: lldb-16 has no reverse
execution, so it runs each case's forward moves up to the first reverse
one; LLDB 21+ (lldb-22, scripts/lldb-22) adds `process continue --reverse`
(bc) but no reverse stepping, so it runs up to the first reverse step.
Each case starts with `monitor seek` + `thread step-inst` and reads every
stop back with `monitor eid`."""
import re

from harness import run

# Not nexti / finish: lldb finds no unwind plan for the fixture's frames
# (no .eh_frame; `thread step-out` says "Could not create return address
# breakpoint" and step-inst-over steps into the call), so they would test
# lldb's unwinder, not the stub.
LLDB_MOVES = {"stepi": "thread step-inst", "continue": "process continue", "rcontinue": "process continue --reverse"}
LLDB_WATCH = {"write": "write", "read": "read", "access": "read_write"}
MARK = "process plugin packet monitor seek "


def supported_prefix(case, reverse_continue):
    """How many of the case's moves this lldb can drive, from the start."""
    n = 0
    for mv in case["moves"]:
        if mv["move"] not in LLDB_MOVES or (mv["move"] == "rcontinue" and not reverse_continue):
            break
        n += 1
    return n


def setup_commands(setup):
    if "break" in setup:
        return ["breakpoint set -a 0x%x" % setup["break"]]
    if "watch" in setup:
        w = setup["watch"]
        return ["watchpoint set expression -w %s -s %d -- 0x%x" % (LLDB_WATCH[w["kind"]], w["len"], w["addr"])]
    return []


def run_cases(binary, address, elf, cases, reverse_continue):
    """Returns ({case index: [eid after the landing, after each move run]},
    {case index: moves run}, lldb's output). Cases lldb cannot start (no
    supported move, or a watch size lldb refuses) are left out."""
    cmd = binary + ["-b", "-x", elf, "-o", f"gdb-remote {address}"]
    counts = {}
    cleanup = []  # lldb -b stops at a failing command: delete only what the last case set
    for i, c in enumerate(cases):
        n = supported_prefix(c, reverse_continue)
        w = c["setup"].get("watch")
        if n == 0 or (w and w["len"] not in (1, 2, 4, 8)):
            continue
        # LLDB 18+ watches an unaligned range through aligned "resources"
        # that cover more bytes and reports any access to them (a write at
        # 0x1000c stops a 4-byte watch at 0x1000e): that is lldb's rule, not
        # the stub's, so such ranges are checked with lldb-16 only.
        if w and reverse_continue and w["addr"] % w["len"]:
            continue
        counts[i] = n
        # The seek happens at the next resume; lldb steps again when a step
        # leaves the pc where it was, so land on the step after the start
        # first (another pc; in hex, which does not mark a case), then on the start.
        cmds = cleanup + [f"process plugin packet monitor seek {c['start'] + 1:#x}", "thread step-inst",
                          f"{MARK}{c['start']}", "thread step-inst", "process plugin packet monitor eid"]
        cmds += setup_commands(c["setup"])
        cleanup = (["breakpoint delete -f"] if "break" in c["setup"] else
                   ["watchpoint delete -f"] if w else [])
        for mv in c["moves"][:n]:
            # LLDB 21+ continues the way it last went unless told
            move = "process continue --forward" if mv["move"] == "continue" and reverse_continue else LLDB_MOVES[mv["move"]]
            cmds += [move, "process plugin packet monitor eid"]
        for x in cmds:
            cmd += ["-o", x]
    cmd += ["-o", "process detach"]
    out = run(cmd, timeout=120)
    got = {}
    parts = re.split(r"^\(lldb\) " + MARK + r"\d+$", out, flags=re.M)[1:]  # the decimal seek starts a case
    for i, part in zip(sorted(counts), parts):
        got[i] = [int(x) for x in re.findall(r"^eid (\d+)$", part, re.M)]
    return got, counts, out
