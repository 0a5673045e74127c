"""The cross-check's cases through real lldb attached to `ttd serve`
(gdb-remote), one batch session per trace and lldb. lldb-16 has no
reverse execution, so it runs each case's forward moves up to the first
reverse one; LLDB 21+ (lldb-22, scripts/lldb-22) adds `process continue
--reverse` (bc) but no reverse stepping (`help thread step-inst-over` and
`help thread step-out` of lldb 22.1 list no direction option), so it runs
up to the first reverse step: reverse-nexti and reverse-finish are gdb's
and DAP's only.

Forward step-over is `thread step-inst-over` (ni) with lldb-16 and
`thread step-over` (n) with lldb-22: in a frame without a line table `n`
queues the same single-instruction step-over plan (both stop with
"instruction step over"), so the two spellings share the nexti cases.
Step-out is `thread step-out` (finish). lldb steps one instruction and,
when that entered a younger frame, or to leave this one, puts a
breakpoint at the caller's return address and continues to it
(ThreadPlanStepInstruction / ThreadPlanStepOut): it stops at the
instruction after the call, where gdb's nexti / finish and the engine do,
and it unwinds one frame with the fixture's .debug_frame (motion_cfi.h).
Not on ppc32: UCIR has no PowerPC registers to unwind with.

The fixture's trace does not start at a process entry, so `ttd serve`
serves no auxv (AT_ENTRY) and lldb's Linux loader cannot place the ELF.
The server is given the ELF (--program), whose segments hold the pcs the
trace runs, so it answers qOffsets "Text=0;Data=0;Bss=0" and lldb places the
executable where the static ELF says (ProcessGDBRemote's
MaybeLoadExecutableModule), with no `target modules load`. Without that
answer lldb leaves the ELF unplaced: no symbol, no unwind plan for any
frame, and every nexti / finish case fails.

Each case starts with `monitor seek` + `thread step-inst` and reads every
stop back with `monitor eid`."""
import re

from harness import run

LLDB_MOVES = {"stepi": "thread step-inst", "nexti": "thread step-inst-over", "finish": "thread step-out",
              "continue": "process continue", "rcontinue": "process continue --reverse"}
UNWIND_MOVES = {"nexti", "finish"}
FUNCTIONS = ("main", "f", "g")
# The rule motion_cfi.h writes for every function, as `image show-unwind`
# prints the row lldb parsed from the .debug_frame.
CFI_ROW = {"x86-64": "CFA=rsp +8 => rip=[CFA-8]", "aarch64": "CFA=sp +0 => x30= <same>"}
LLDB_WATCH = {"write": "write", "read": "read", "access": "read_write"}
MARK = "process plugin packet monitor seek "


def supported_prefix(case, reverse_continue, unwind):
    """How many of the case's moves this lldb can drive, from the start
    (unwind: the trace has the registers to unwind a frame with)."""
    n = 0
    for mv in case["moves"]:
        m = mv["move"]
        if m not in LLDB_MOVES or (m == "rcontinue" and not reverse_continue) or (m in UNWIND_MOVES and not unwind):
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


def run_cases(binary, address, elf, cases, reverse_continue, unwind, step_over="thread step-inst-over"):
    """step_over: the command for a nexti move; unwind: run nexti / finish
    and show the unwind plans (cfi_problems). Returns ({case index: [eid
    after the landing, after each move run]}, {case index: moves run},
    lldb's output). Cases lldb cannot start (no supported move, or a watch
    size lldb refuses) are left out."""
    cmd = binary + ["-b", "-x", elf, "-o", f"gdb-remote {address}"]
    if unwind:
        for fn in FUNCTIONS:
            cmd += ["-o", f"image show-unwind -n {fn}"]
    counts = {}
    cleanup = []  # lldb -b stops at a failing command: delete only what the last case set
    for i, c in enumerate(cases):
        n = supported_prefix(c, reverse_continue, unwind)
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
            move = ("process continue --forward" if mv["move"] == "continue" and reverse_continue else
                    step_over if mv["move"] == "nexti" else LLDB_MOVES[mv["move"]])
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


def cfi_problems(out, arch):
    """What is wrong with the unwind plans lldb printed for the fixture's
    functions: each must have a debug_frame plan with motion_cfi.h's rule."""
    problems = []
    plans = {m.group(1): m.start() for m in re.finditer(r"^UNWIND PLANS for \S+`(\w+) ", out, re.M)}
    for fn in FUNCTIONS:
        if fn not in plans:
            problems.append(f"no unwind plans shown for {fn}")
            continue
        part = out[plans[fn]:]
        nxt = part.find("UNWIND PLANS for", 1)
        part = part[:nxt] if nxt > 0 else part
        m = re.search(r"^debug_frame UnwindPlan:\n(?:.*\n)*?row\[0\]:\s+0: (.*?)\s*$", part, re.M)
        if not m:
            problems.append(f"no debug_frame plan for {fn}")
        elif m.group(1).replace(" ", "") != CFI_ROW[arch].replace(" ", ""):  # lldb prints "rsp +8" but "rsp+16"
            problems.append(f"{fn}'s debug_frame rule is '{m.group(1)}', motion_cfi.h writes '{CFI_ROW[arch]}'")
    return problems
