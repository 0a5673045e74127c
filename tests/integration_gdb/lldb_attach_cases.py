"""Integration cases for lldb attaching to a recorded static musl program
(the bundled x86-64 examples are built with musl-gcc).

Such a program has no _dl_debug_state, so lldb's Linux loader plugin
(DynamicLoaderPOSIXDYLD::ProbeEntry) puts a one-shot breakpoint on the
program entry (AT_ENTRY), which is the first pc of the trace. lldb re-reads
the attach stop after that; when `ttd serve` reported it as SIGTRAP, lldb
took it for a hit on that breakpoint, whose callback resumes, and ran to
the end of the trace before the user could set a breakpoint. The stub now
reports the attach stop to lldb as SIGSTOP, as lldb-server does.

Each case attaches first and sets its breakpoint afterwards: the debugger
must be at EID 0 on `_start`, and `continue` must stop at the breakpoint.

Imported by run_debugger_test.py (CASES)."""
import re
import subprocess

from harness import SKIP, lldb


def _symbol(exe, name):
    """The address of a symbol of the program (nm), or None."""
    out = subprocess.run(["nm", exe], capture_output=True, text=True, timeout=60).stdout
    m = re.search(rf"^([0-9a-f]+) \w {re.escape(name)}$", out, re.M)
    return int(m.group(1), 16) if m else None


def _attach_then_break(ctx, binary):
    if not binary:
        return SKIP
    recorded = ctx.recorded_example("linked_list", [], compiler="musl-gcc", name="linked_list-musl")
    if not recorded:
        return SKIP
    exe, trace = recorded
    start = _symbol(exe, "_start")
    if start is None:
        raise RuntimeError("nm found no _start in the musl example")
    s = ctx.server(["--once"], trace)
    out = lldb(binary, s.address, "process plugin packet monitor eid", "register read rip",
               "breakpoint set -n audit_removed", "process continue", "bt", "frame variable stale",
               "process plugin packet monitor eid", "process detach", exe=exe)
    # An lldb that took the attach stop for its entry breakpoint shows
    # SIGTRAP in _Exit here, at the end of the trace.
    return out, [r"stop reason = signal SIGSTOP", rf"frame #0: 0x0*{start:x} \S+`_start$", r"^eid 0$",
                 rf"rip = 0x0*{start:x}\s", r"Breakpoint 1: where = \S+`audit_removed",
                 r"stop reason = breakpoint 1\.1", r"frame #0: .*`audit_removed\(stale=0x[0-9a-f]+\)",
                 r"frame #1: .*`main at linked_list\.c:\d+", r"\(node \*\) stale = 0x[0-9a-f]+",
                 r"^eid [1-9]\d*$", r"[Dd]etached"]


def lldb16_musl_attach_then_break(ctx):
    return _attach_then_break(ctx, ctx.lldb16())


def lldb22_musl_attach_then_break(ctx):
    return _attach_then_break(ctx, ctx.lldb22())


CASES = {f.__name__: f for f in [lldb16_musl_attach_then_break, lldb22_musl_attach_then_break]}
