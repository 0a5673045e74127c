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
import os
import re
import shutil
import subprocess

from harness import SKIP, run


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
    cmd = binary + ["-b", "-x", exe, "-o", f"gdb-remote {s.address}"]
    for c in ["process plugin packet monitor eid", "register read rip", "breakpoint set -n audit_removed",
              "process continue", "bt", "frame variable stale", "process plugin packet monitor eid",
              "process detach"]:
        cmd += ["-o", c]
    out = run(cmd)
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


def _pie_without_auxv(ctx, binary):
    """Issue 18: a PIE traced without an auxv. linked_list built -static-pie
    (linked at 0, run at the recorder's base) is recorded, then converted to
    Tenet, which keeps neither the auxv nor mappings nor code bytes. Given
    the ELF (--program), `ttd serve` places it by its entry, the trace's
    first pc, and answers qOffsets with that load bias; lldb slides the
    executable by it, so a breakpoint by name resolves and is hit with no
    `target modules load --slide`. Before, the PIE did not fit the trace
    (the server refused --program), and without --program qOffsets was empty
    and lldb stopped at unnamed addresses."""
    if not binary:
        return SKIP
    # Built here: the harness's recorded_program() links with -static, which
    # -static-pie cannot be combined with.
    if not shutil.which("gcc") or subprocess.run([ctx.ttd, "record", "--help"], capture_output=True,
                                                 timeout=60).returncode != 0:
        return SKIP
    os.makedirs(ctx.work, exist_ok=True)
    exe, trace = os.path.join(ctx.work, "linked_list-pie"), os.path.join(ctx.work, "linked_list-pie.ucir")
    subprocess.run(["gcc", "-static-pie", "-g", "-O0", "-fno-omit-frame-pointer", "-o", exe,
                    os.path.join(ctx.source_dir, "examples", "linked_list.c")], check=True, timeout=120)
    # The stack's top holds the environment and the program's absolute path
    # (AT_EXECFN): padding the one to a fixed total with the other fixes the
    # stack layout wherever the checkout is. With this layout the stop in
    # audit_removed finds its stack line (512 bytes, what lldb 16's memory
    # cache reads) only partly known, and a short x reply there crashed
    # lldb 16 (CI, session 12; LLVM D145624).
    pad = 487 - len(os.path.realpath(exe))
    if pad < 0:
        return SKIP
    rec = subprocess.run([ctx.ttd, "record", "-q", "-o", trace, "--", "./linked_list-pie"], capture_output=True,
                         text=True, timeout=300, cwd=ctx.work, env={"PAD": "x" * pad})
    if rec.returncode != 0:
        raise RuntimeError("ttd record failed:\n" + rec.stdout + rec.stderr)
    elf_type = subprocess.run(["readelf", "-h", exe], capture_output=True, text=True, timeout=60).stdout
    if "DYN" not in elf_type:
        raise RuntimeError("gcc -static-pie did not make a position-independent executable:\n" + elf_type)
    tenet = trace + ".tenet"
    conv = subprocess.run([ctx.ttd, "convert", "--to", "tenet", trace, tenet], capture_output=True, text=True,
                          timeout=300)
    if conv.returncode != 0:
        raise RuntimeError("ttd convert --to tenet failed:\n" + conv.stdout + conv.stderr)
    entry = int(re.search(r"Entry point address:\s+0x([0-9a-f]+)", elf_type).group(1), 16)
    first_pc = int(re.search(r"pc 0x([0-9a-f]+)", subprocess.run(
        [ctx.ttd, "steps", tenet, "--to", "1"], capture_output=True, text=True, timeout=120).stdout).group(1), 16)
    bias = first_pc - entry
    s = ctx.server(["--once", "--program", exe], tenet)
    cmd = binary + ["-b", "-x", exe, "-o", f"gdb-remote {s.address}"]
    for c in ["process plugin packet send qXfer:auxv:read::0,100", "process plugin packet send qOffsets",
              "breakpoint set -n audit_removed", "process continue", "bt", "process plugin packet monitor eid",
              "process detach"]:
        cmd += ["-o", c]
    out = run(cmd)
    # The same stop with lldb's memory cache off (the hint `ttd serve`
    # prints for lldb 16): lldb reads only the bytes it needs, all known, so
    # the argument and the caller's frame show.
    s2 = ctx.server(["--once", "--program", exe], tenet)
    cmd = binary + ["-b", "-x", exe, "-O", "settings set target.process.disable-memory-cache true",
                    "-o", f"gdb-remote {s2.address}"]
    for c in ["breakpoint set -n audit_removed", "process continue", "bt", "frame variable stale", "process detach"]:
        cmd += ["-o", c]
    out += "\n" + run(cmd)
    return out, [r"frame #0: 0x0*%x \S+`_start$" % first_pc, r"error: UNIMPLEMENTED",
                 r"response: Text=%x;Data=%x" % (bias, bias), r"Breakpoint 1: where = \S+`audit_removed",
                 r"stop reason = breakpoint 1\.1", r"frame #0: 0x[0-9a-f]+ \S+`audit_removed\(",
                 r"^eid [1-9]\d*$", r"[Dd]etached",
                 r"stop reason = breakpoint 1\.1", r"frame #1: 0x[0-9a-f]+ \S+`main at linked_list\.c:\d+",
                 r"\(node \*\) stale = 0x[0-9a-f]+", r"[Dd]etached"]


def lldb16_pie_without_auxv(ctx):
    return _pie_without_auxv(ctx, ctx.lldb16())


def lldb22_pie_without_auxv(ctx):
    return _pie_without_auxv(ctx, ctx.lldb22())


CASES = {f.__name__: f for f in [lldb16_musl_attach_then_break, lldb22_musl_attach_then_break,
                                 lldb16_pie_without_auxv, lldb22_pie_without_auxv]}
