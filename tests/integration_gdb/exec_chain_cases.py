"""Integration case for a program recorded through execve (docs/
recording.md, "execve and --follow-fork"): `ttd record -o T -- /bin/sh -c
'exec loop 300'` writes sh's trace T and loop's T.1.ucir; gdb attaches to
`ttd serve` on T.1.ucir alone and stops in main, as on a trace of loop
recorded directly.

Imported by run_debugger_test.py (CASES)."""
import os
import shutil
import subprocess

from harness import SKIP, gdb


def gdb_exec_chain_break_main(ctx):
    if not shutil.which("gcc") or not os.path.exists("/bin/sh"):
        return SKIP
    os.makedirs(ctx.work, exist_ok=True)
    exe = os.path.join(ctx.work, "loop")
    subprocess.run(["gcc", "-static", "-g", "-O0", "-fno-omit-frame-pointer", "-o", exe,
                    os.path.join(ctx.source_dir, "examples", "loop.c")], check=True, timeout=120)
    trace = os.path.join(ctx.work, "sh.ucir")
    rec = subprocess.run([ctx.ttd, "record", "-o", trace, "--", "/bin/sh", "-c", f"exec '{exe}' 300"],
                         capture_output=True, text=True, timeout=300)
    second = os.path.join(ctx.work, "sh.1.ucir")
    if rec.returncode != 0 or not os.path.exists(second):
        return "ttd record failed or wrote no second trace:\n" + rec.stdout + rec.stderr
    s = ctx.server(["--once"], second)
    out = gdb(s.address, "break main", "continue", "next", "info auxv", "detach", pre=[f"file {exe}"])
    out = rec.stderr + out
    return out, [rf"execve {exe}: recording goes on in {second}", r"Breakpoint 1, main \(argc=2",
                 r"loop\.c:\d+", r"AT_ENTRY\s+Entry point of program", r"detached"]


CASES = {f.__name__: f for f in [gdb_exec_chain_break_main]}
