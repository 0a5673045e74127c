"""Integration cases for a PIE traced without an auxiliary vector (issue 18).

linked_list built -static-pie (linked at 0, run at the recorder's base) is
recorded, then converted to Tenet, which keeps neither the auxv nor
mappings nor code bytes. Given the ELF (--program), `ttd serve` places it
by its entry, the trace's first pc, and answers qOffsets with that load
bias (Text=;Data=;Bss=, all three: gdb 13 drops the connection on a reply
without Bss). The debuggers slide the executable by it, so a breakpoint by
name resolves and is hit with no `target modules load --slide`.

The Tenet trace knows only the memory the program touched. lldb reads
512-byte cache lines with x, answered all or nothing (lldb 16 crashed on a
short reply, LLVM D145624), so lldb shows the stop with its memory cache
off too; gdb reads what it needs with m.

Imported by run_debugger_test.py (CASES)."""
import os
import re
import shutil
import subprocess

from harness import SKIP, gdb, lldb


def _pie_tenet(ctx):
    """(exe, tenet trace, first pc, load bias), or None when the tools are
    missing. Built here: the harness's recorded_program() links with
    -static, which -static-pie cannot be combined with."""
    if not shutil.which("gcc") or subprocess.run([ctx.ttd, "record", "--help"], capture_output=True,
                                                 timeout=60).returncode != 0:
        return None
    os.makedirs(ctx.work, exist_ok=True)
    exe, trace = os.path.join(ctx.work, "linked_list-pie"), os.path.join(ctx.work, "linked_list-pie.ucir")
    subprocess.run(["gcc", "-static-pie", "-g", "-O0", "-fno-omit-frame-pointer", "-o", exe,
                    os.path.join(ctx.source_dir, "examples", "linked_list.c")], check=True, timeout=120)
    # The stack's top holds the environment and the program's absolute path
    # (AT_EXECFN): padding the one to a fixed total with the other fixes the
    # stack layout wherever the checkout is. With this layout the stop in
    # audit_removed finds its stack line (512 bytes, what lldb's memory
    # cache reads) only partly known, and a short x reply there crashed
    # lldb 16 (CI, session 12).
    pad = 487 - len(os.path.realpath(exe))
    if pad < 0:
        return None
    rec = subprocess.run([ctx.ttd, "record", "-q", "-o", trace, "--", "./linked_list-pie"], capture_output=True,
                         text=True, timeout=300, cwd=ctx.work, env={"PAD": "x" * pad})
    # linked_list exits 1 (its bug) and `ttd record` with it; a failed
    # recording leaves no trace.
    if not os.path.exists(trace):
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
    return exe, tenet, first_pc, first_pc - entry


def _lldb_pie(ctx, binary):
    """Before, the PIE did not fit the trace (the server refused --program),
    and without --program qOffsets was empty and lldb stopped at unnamed
    addresses."""
    if not binary:
        return SKIP
    fx = _pie_tenet(ctx)
    if not fx:
        return SKIP
    exe, tenet, first_pc, bias = fx
    s = ctx.server(["--once", "--program", exe], tenet)
    out = lldb(binary, s.address, "process plugin packet send qXfer:auxv:read::0,100",
               "process plugin packet send qOffsets", "breakpoint set -n audit_removed", "process continue", "bt",
               "process plugin packet monitor eid", "process detach", exe=exe)
    # The same stop with lldb's memory cache off (the hint `ttd serve`
    # prints): lldb reads only the bytes it needs, all known, so the
    # argument and the caller's frame show.
    s2 = ctx.server(["--once", "--program", exe], tenet)
    out += "\n" + lldb(binary, s2.address, "breakpoint set -n audit_removed", "process continue", "bt",
                        "frame variable stale", "process detach", exe=exe,
                        before=["settings set target.process.disable-memory-cache true"])
    return out, [r"frame #0: 0x0*%x \S+`_start$" % first_pc, r"error: UNIMPLEMENTED",
                 r"response: Text=%x;Data=%x;Bss=%x" % (bias, bias, bias),
                 r"Breakpoint 1: where = \S+`audit_removed", r"stop reason = breakpoint 1\.1",
                 r"frame #0: 0x[0-9a-f]+ \S+`audit_removed\(", r"^eid [1-9]\d*$", r"[Dd]etached",
                 r"stop reason = breakpoint 1\.1", r"frame #1: 0x[0-9a-f]+ \S+`main at linked_list\.c:\d+",
                 r"\(node \*\) stale = 0x[0-9a-f]+", r"[Dd]etached"]


def lldb16_pie_without_auxv(ctx):
    return _lldb_pie(ctx, ctx.lldb16())


def lldb22_pie_without_auxv(ctx):
    return _lldb_pie(ctx, ctx.lldb22())


def gdb_pie_without_auxv(ctx):
    """gdb relocates the PIE by qOffsets: the breakpoint by name is hit,
    bt reaches main, the argument reads, and reverse-continue goes back to
    the start. Before, gdb 13 refused the qOffsets reply (no Bss) and never
    connected."""
    fx = _pie_tenet(ctx)
    if not fx:
        return SKIP
    exe, tenet, first_pc, bias = fx
    s = ctx.server(["--once", "--program", exe], tenet)
    out = gdb(s.address, "break audit_removed", "continue", "bt", "print stale", "monitor eid", "reverse-continue",
              "print $pc", "detach", pre=[f"file {exe}"])
    return out, [r"Breakpoint 1 at 0x[0-9a-f]+: file .*linked_list\.c, line \d+",
                 r"Breakpoint 1, audit_removed \(stale=0x[0-9a-f]+ <pool\+\d+>\) at .*linked_list\.c:\d+",
                 r"#1 +0x[0-9a-f]+ in main \(\) at .*linked_list\.c:\d+", r"\$1 = \(struct node \*\) 0x[0-9a-f]+ <pool\+\d+>",
                 r"^eid [1-9]\d*$", r"No more reverse-execution history",
                 r"\$2 = \(void \(\*\)\(\)\) 0x0*%x <_start>" % first_pc]


CASES = {f.__name__: f for f in [lldb16_pie_without_auxv, lldb22_pie_without_auxv, gdb_pie_without_auxv]}
