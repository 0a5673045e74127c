#!/usr/bin/env python3
"""Issue 18's cross-check: the engine motion suite's cases through real
sessions. For x86-64, aarch64 and ppc32, make_motion_crosscheck writes the
suite's program as a UCIR trace, an ELF with its symbols and the cases with
the oracle's stop EIDs (checked against the engine on that file). Then:

- gdb (x86-64) / gdb-multiarch (aarch64, ppc32) attach to `ttd serve` and
  run stepi / nexti / finish and continue to a breakpoint and to write,
  read and access watchpoints, forward and backward (crosscheck_gdb.py);
- lldb-16 and lldb-22 (scripts/lldb-22) run the forward moves: stepi,
  step-over (ni; n on lldb-22), step-out (finish) and continue; lldb-22
  adds reverse continue, and neither has a reverse step (crosscheck_lldb.py);
- `ttd dap` runs stepIn / next / stepOut / stepBack / reverse-finish /
  continue / reverseContinue with instruction and data breakpoints
  (crosscheck_dap.py).

Every stop EID must equal the oracle's, in the front end's view
(crosscheck_views.py: DAP = the engine; gdb and lldb see watch stops the
x86 way on every architecture, and gdb's `watch` skips writes that leave
the value unchanged). A front end that is not installed is skipped with a
message; where gdb and lldb cannot unwind (ppc32 UCIR traces carry no
registers) their nexti / finish cases are left out, and said so. The
fixture ELF has a .debug_frame on x86-64 and aarch64 (motion_cfi.h), so
both debuggers unwind with CFI rather than their prologue heuristics.

`ttd serve` listens on 127.0.0.1 with port 0 (the port it prints); every
process is killed and reaped before exit, pass or fail; the work folder is
removed. --perturb is the check's self-test: it adds 1 to one expected EID
of every case run and passes only if every one of them is reported.
Exit codes: 0 pass, 1 fail, 77 nothing to run."""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration_gdb"))
sys.path.insert(0, os.path.join(HERE, "..", "dap"))

import crosscheck_dap  # noqa: E402
import crosscheck_gdb  # noqa: E402
import crosscheck_lldb  # noqa: E402
from crosscheck_views import debugger_view, engine_view  # noqa: E402
from harness import SKIP, Server  # noqa: E402

ARCHES = ["x86-64", "aarch64", "ppc32"]
UNWIND_MOVES = {"nexti", "rnexti", "finish", "rfinish"}


class Report:
    def __init__(self, perturb):
        self.failures = []
        self.checked = 0
        self.compared_cases = 0
        self.perturb = perturb
        self.moves = {}  # (front end, move): stops checked

    def compare(self, who, case, want, got):
        """want / got: EIDs after each move (None in got: move not available)."""
        moves = [mv["move"] for mv in case["moves"]]
        if self.perturb:  # every case's first checked answer made wrong: each must be caught
            first = next((i for i, g in enumerate(got) if g is not None and i < len(want)), None)
            if first is None:
                return
            want = list(want)
            want[first] += 1
        self.compared_cases += 1
        for i, w in enumerate(want):
            g = got[i] if i < len(got) else "no stop read"
            if g is None:
                continue
            self.checked += 1
            key = (who.split(" (")[0], moves[i])
            self.moves[key] = self.moves.get(key, 0) + 1
            if g != w:
                self.failures.append(f"{who}: '{case['name']}' (from EID {case['start']}): after "
                                     f"{' '.join(moves[:i + 1])} stopped at EID {g}, the oracle says {w}")
                return

    def landing(self, who, case, eid):
        if eid != case["start"]:
            self.failures.append(f"{who}: '{case['name']}': seek {case['start']} landed at EID {eid}")
            return False
        return True


def check_gdb(ttd, fx, report, servers):
    binary = crosscheck_gdb.gdb_binary(fx["arch"])
    if not binary:
        print(f"skipped: gdb on {fx['arch']} (gdb-multiarch is not installed)")
        return
    cases = fx["cases"]
    picked = [i for i, c in enumerate(cases)
              if not (fx["arch"] == "ppc32" and any(m["move"] in UNWIND_MOVES for m in c["moves"]))]
    if len(picked) < len(cases):
        print(f"note: gdb on ppc32 runs no nexti / finish (UCIR has no PowerPC registers: nothing to unwind)")
    s = Server(ttd, fx["trace"], ["--once"])
    servers.append(s)
    got, out = crosscheck_gdb.run_cases(binary, s.address, fx["elf"], [cases[i] for i in picked])
    before = len(report.failures)
    who = f"{binary} ({fx['arch']})"
    for j, i in enumerate(picked):
        eids = got.get(j, [])
        if not eids or not report.landing(who, cases[i], eids[0]):
            if not eids:
                report.failures.append(f"{who}: '{cases[i]['name']}': no `monitor eid` answer")
            continue
        report.compare(who, cases[i], debugger_view(cases[i], fx["steps"], True), eids[1:])
    if len(report.failures) > before and not report.perturb:
        print(f"--- {who} output ---\n{out}\n--- ttd serve log ---\n{s.log()}")


def check_lldb(ttd, fx, report, servers, name, binary, reverse_continue, step_over):
    # --program: the server answers qOffsets, so lldb places the ELF itself
    s = Server(ttd, fx["trace"], ["--once", "--program", fx["elf"]])
    servers.append(s)
    unwind = fx["arch"] != "ppc32"  # as for gdb: no PowerPC registers in UCIR
    if not unwind:
        print(f"note: {name} on ppc32 runs no nexti / finish (UCIR has no PowerPC registers: nothing to unwind)")
    got, counts, out = crosscheck_lldb.run_cases(binary, s.address, fx["elf"], fx["cases"], reverse_continue, unwind,
                                                 step_over)
    before = len(report.failures)
    who = f"{name} ({fx['arch']})"
    if unwind and not report.perturb:  # the fixture's CFI is what lldb unwinds with
        report.failures += [f"{who}: {p}" for p in crosscheck_lldb.cfi_problems(out, fx["arch"])]
    for i, n in counts.items():
        case = fx["cases"][i]
        eids = got.get(i, [])
        if not eids or not report.landing(who, case, eids[0]):
            if not eids:
                report.failures.append(f"{who}: '{case['name']}': no `monitor eid` answer")
            continue
        # lldb's `-w write` stops on every write, changed or not
        report.compare(who, case, debugger_view(case, fx["steps"], False)[:n], eids[1:])
    if len(report.failures) > before and not report.perturb:
        print(f"--- {who} output ---\n{out}\n--- ttd serve log ---\n{s.log()}")


def check_dap_watch_text(report, who, case, descs):
    """A data breakpoint stop names the step that made the access and its
    kind (issue 18: a write covering part of the range was called a read)."""
    kind = case["setup"]["watch"]["kind"]
    for mv, text in zip(case["moves"], descs):
        if text is None or "hit" not in mv or report.perturb:
            continue
        want = [f"accessed by the step at EID {mv['hit']} "] + (["(write)"] if kind == "write" else
                                                                [") read"] if kind == "read" else [])
        if not all(w in text for w in want):
            report.failures.append(f"{who}: '{case['name']}': {mv['move']} to EID {mv['eid']} is described as "
                                   f"'{text}', expected {want}")
            return


def check_dap(ttd, fx, report):
    got, descs, log = crosscheck_dap.run_cases(ttd, fx["trace"], fx["elf"], fx["cases"])
    before = len(report.failures)
    who = f"ttd dap ({fx['arch']})"
    for i, case in enumerate(fx["cases"]):
        report.compare(who, case, engine_view(case), got.get(i, []))
        if "watch" in case["setup"]:
            check_dap_watch_text(report, who, case, descs.get(i, []))
    if len(report.failures) > before and not report.perturb:
        print(f"--- {who} stops ---\n{log}")


def lldb_binaries(source_dir):
    """(name, command, reverse continue, step-over command) for the lldbs
    installed; each lldb spells step-over its own way, so both spellings
    are run (crosscheck_lldb.py)."""
    out = []
    if shutil.which("lldb-16"):
        out.append(("lldb-16", [shutil.which("lldb-16")], False, "thread step-inst-over"))
    root = os.path.join(source_dir, ".deps", "lldb-22", "usr", "lib", "llvm-22", "bin", "lldb")
    wrapper = os.path.join(source_dir, "scripts", "lldb-22")
    if os.path.exists(root) and os.path.exists(wrapper):
        out.append(("lldb-22", ["bash", wrapper], True, "thread step-over"))
    elif shutil.which("lldb-22"):
        out.append(("lldb-22", [shutil.which("lldb-22")], True, "thread step-over"))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ttd", required=True)
    p.add_argument("--make-fixture", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--arch", action="append", choices=ARCHES, help="default: all three")
    p.add_argument("--perturb", action="store_true",
                   help="self-test: make one expected EID of every case wrong; passes only if every case is caught")
    a = p.parse_args()
    work = os.path.join(a.work, f"crosscheck-{os.getpid()}")
    report = Report(a.perturb)
    servers = []
    lldbs = lldb_binaries(a.source_dir)
    if not lldbs:
        print("skipped: lldb (neither lldb-16 nor lldb-22 is installed)")
    try:
        for arch in a.arch or ARCHES:
            r = subprocess.run([a.make_fixture, arch, work], capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                report.failures.append(f"make_motion_crosscheck {arch}: {r.stderr.strip()}")
                continue
            with open(r.stdout.strip()) as f:
                fx = json.load(f)
            check_gdb(a.ttd, fx, report, servers)
            for name, binary, reverse, step_over in lldbs:
                check_lldb(a.ttd, fx, report, servers, name, binary, reverse, step_over)
            check_dap(a.ttd, fx, report)
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(work, ignore_errors=True)
    for f in report.failures:
        print("MISMATCH " + f)
    if a.perturb:
        caught = len(report.failures)
        ok = report.compared_cases > 0 and caught == report.compared_cases
        print(f"{'PASS' if ok else 'FAIL'}: perturbed {report.compared_cases} case runs, {caught} caught")
        return 0 if ok else 1
    # An lldb that ran on a trace it can unwind must have stepped over and
    # out there: a case silently left out would make those moves untested.
    unwinding = any(x != "ppc32" for x in a.arch or ARCHES)
    for name, *_ in lldbs if unwinding else []:
        for move in ("nexti", "finish"):
            if not report.moves.get((name, move)):
                report.failures.append(f"{name}: no {move} stop was checked")
                print(f"MISMATCH {report.failures[-1]}")
    for who in sorted({k[0] for k in report.moves}):
        print(f"{who}: " + ", ".join(f"{n} {m}" for (w, m), n in sorted(report.moves.items()) if w == who))
    if report.failures:
        print(f"FAIL: {len(report.failures)} mismatch(es), {report.checked} stops checked")
        return 1
    if report.checked == 0:
        print("skipped: nothing was checked")
        return SKIP
    print(f"PASS: {report.checked} stops agree with the engine oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
