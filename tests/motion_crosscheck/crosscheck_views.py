"""What each front end should answer for the cross-check's cases
(make_motion_crosscheck writes them with the engine oracle's EIDs).

DAP is a straight translator: its stops are the engine's.

gdb and lldb differ from the engine in one documented way (docs/design.md,
"Who owns motion"): on architectures whose watchpoint trap comes before
the access (aarch64, ppc32) the stub reports the stop before the access
and the debugger steps over the accessing instruction itself before it
shows the stop (GDB manual, "Setting Watchpoints": the watchpoint triggers
after the access is complete), so a debugger sees every access where x86
puts it: forward, after the accessing step; backward, before it. And
gdb's `watch` (a write watchpoint) only stops when the value changes
(GDB manual: "break when expr is written into by the program and its value
changes"), so a write that leaves the watched bytes as they were is
passed by (the program's writes are random bytes: with the suite's seed
no write in a case leaves its range unchanged, so this rule is stated,
not yet exercised). lldb's `-w write` stops on every write. The rules are
applied here to the access list the oracle wrote, never by loosening a
comparison.

Stepping over and out of calls needs no rule: gdb's nexti / finish and
lldb's `thread step-inst-over` / `thread step-over` / `thread step-out`
all stop at the caller's return address (GDB manual, "Continuing and
Stepping": finish "continue running until just after function in the
selected stack frame returns"; lldb's ThreadPlanStepOut runs to a
breakpoint there), the step after the return, which is the engine's
step-out. gdb's reverse-finish stops at the call instruction, as the
engine's backward step-out does; lldb has no reverse step."""


def debugger_watch_view(case, steps, skip_unchanged_writes):
    """The EIDs a debugger stops at in a watch case, move after move."""
    watch = case["setup"]["watch"]
    accesses = [a for a in case["setup"]["accesses"]
                if not (skip_unchanged_writes and watch["kind"] == "write" and not a["changed"])]
    pos = case["start"]
    out = []
    for mv in case["moves"]:
        if mv["move"] == "continue":
            later = [a["step"] for a in accesses if a["step"] >= pos]
            pos = later[0] + 1 if later else steps
        else:
            earlier = [a["step"] for a in accesses if a["step"] < pos]
            pos = earlier[-1] if earlier else 0
        out.append(pos)
    return out


def debugger_view(case, steps, skip_unchanged_writes):
    if "watch" in case["setup"]:
        return debugger_watch_view(case, steps, skip_unchanged_writes)
    return [mv["eid"] for mv in case["moves"]]


def engine_view(case):
    return [mv["eid"] for mv in case["moves"]]
