#!/usr/bin/env python3
"""gdb-multiarch attaches to `ttd serve` on a FULL PowerPC trace and steps
forwards and backwards; then to the TT6 trace, which holds no code bytes,
served with `--program` (an ELF of the guest image): gdb disassembles at a
breakpoint and steps there (gdb reads the instruction before a PowerPC
single step and gives the step up when it cannot; the server fills code
bytes the trace lacks from the ELF's executable segments); then the TT6
trace without `--program`, stopped at a sync marker, whose next
instruction's bytes the importer puts in memory before the marker.

The trace is the Unicorn-traced guest of tests/formats_tt6 (make_tt6_fixtures
writes it): _start is `lis r1,1` at 0x10000, then `addi r1,r1,0x1780` at
0x10004. `ttd serve` listens on 127.0.0.1 port 0 and prints the port; every
process started here is killed and reaped before exit, pass or fail.

Exit codes: 0 pass, 1 fail, 77 skip (gdb-multiarch not installed).
"""
import argparse
import os
import shutil
import sys

from ppc_guest_files import make_guest_files

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration_gdb"))
import harness  # noqa: E402  (ttd serve on a free port, debuggers with a timeout, the in-order check)
from harness import expect_in_order  # noqa: E402

SKIP = 77
TIMEOUT = 90

FULL_COMMANDS = ["info registers pc", "stepi", "info registers pc", "p/x $r1", "reverse-stepi",
                 "info registers pc", "x/i $pc", "p/x $msr"]


def run_gdb(address, commands, pre=()):
    cmd = ["gdb-multiarch", "-batch", "-nx",
           "-ex", "set pagination off", "-ex", "set confirm off",
           "-ex", "set architecture powerpc:common", "-ex", "set endian big"]
    for c in [*pre, f"target remote {address}", *commands]:
        cmd += ["-ex", c]
    return harness.run(cmd, timeout=TIMEOUT)


def serve_and_run(ttd, trace, commands, extra=(), pre=()):
    """(gdb output, server output), or (None, reason) when the server did
    not start."""
    try:
        server = harness.Server(ttd, trace, extra)
    except RuntimeError as e:
        return None, str(e)
    try:
        return run_gdb(server.address, commands, pre), "".join(server.stdout_lines) + server.log()
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ttd", required=True)
    ap.add_argument("--make-fixtures", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if not shutil.which("gdb-multiarch"):
        print("gdb-multiarch is not installed: skipped")
        return SKIP
    os.makedirs(a.work, exist_ok=True)
    for stale in os.listdir(a.work):  # fresh indexes for the fresh traces
        if stale.endswith(".ttdidx"):
            os.remove(os.path.join(a.work, stale))
    files, syms = make_guest_files(a.make_fixtures, a.work)
    out, server = serve_and_run(a.ttd, files["full"], FULL_COMMANDS)
    if out is None:
        print(server)
        return 1
    problem = expect_in_order(out, [
        r"^pc\s+0x10000\b",                 # attached at EID 0: _start
        r"^pc\s+0x10004\b",                 # stepi
        r"^\$1 = 0x10000$",                 # lis r1,1 ran
        r"^pc\s+0x10000\b",                 # reverse-stepi
        r"=> 0x10000.*lis\s+r1,1",          # the code bytes the trace gave
        r"^\$2 = 0x2002040$",               # msr (srr1): FP, VEC, IP
    ])
    if problem:
        print("FAIL: " + problem + "\n--- gdb ---\n" + out + "\n--- ttd serve ---\n" + server)
        return 1
    print(out)

    # TT6: no code bytes in the trace. The first stop in guest_mutex_unlock
    # is a marker step before its first instruction ran, so even the trace's
    # own opcode record for that pc lies ahead.
    unlock = syms["kSymGuestMutexUnlock"]
    out, server = serve_and_run(a.ttd, files["tt6"], [f"break *{unlock:#x}", "continue", "x/3i $pc", "stepi",
                                                      "stepi", "info registers pc", "monitor eid"],
                                extra=["--program", files["elf"]], pre=[f"file {files['elf']}"])
    if out is None:
        print(server)
        return 1
    problem = expect_in_order(out, [
        rf"Breakpoint 1, 0x0*{unlock:x} in",
        rf"=> 0x{unlock:x}:\s+li\s+r9,0", rf"0x{unlock + 4:x}:\s+stw\s+r9,0\(r3\)", rf"0x{unlock + 8:x}:\s+blr",
        rf"^pc\s+0x{unlock + 4:x}\b",
        r"^eid \d+$",
    ])
    if problem or "Cannot access memory" in out:
        print("FAIL: " + (problem or "a memory read failed") + "\n--- gdb ---\n" + out + "\n--- ttd serve ---\n" +
              server)
        return 1
    print(out)

    # TT6 without --program: the trace's own code bytes. The instruction
    # after a sync marker is in memory at the marker (the importer puts its
    # bytes before the marker's step); gdb 13 used to fail the first stepi
    # there and hang on the second.
    out, server = serve_and_run(a.ttd, files["tt6"], [f"break *{unlock:#x}", "continue", "x/i $pc", "stepi", "stepi",
                                                      "info registers pc", "reverse-stepi", "info registers pc"])
    if out is None:
        print(server)
        return 1
    problem = expect_in_order(out, [
        rf"Breakpoint 1, 0x0*{unlock:x} in",
        rf"=> 0x{unlock:x}:\s+li\s+r9,0",
        rf"^pc\s+0x{unlock + 4:x}\b",   # two stepi: off the marker, then li
        rf"^pc\s+0x{unlock:x}\b",       # reverse-stepi
    ])
    if problem or "timed out" in out:
        print("FAIL (no --program): " + (problem or "gdb hung") + "\n--- gdb ---\n" + out + "\n--- ttd serve ---\n" +
              server)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
