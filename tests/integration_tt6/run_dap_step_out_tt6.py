#!/usr/bin/env python3
"""DAP stepOut on the PowerPC guest's TT6 trace (issue 18): from inside
guest_mutex_unlock, stepOut stops right after the `bl` that called it
(the stepper's calls and returns come from the engine's classifier, with
code bytes from the program ELF since TT6 holds none). Without the
program the stop says the call structure is incomplete.

The bl site and its return address are found by scanning the image
(ppc_guest_files.branch_sites), its EID with `ttd executions`; `ttd dap`
runs over stdio and is closed (and reaped) before exit.
Exit codes: 0 pass, 1 fail."""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "dap"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))

from cli_checks import require as check  # noqa: E402  (stops at the first failure)
from dap_client import DapClient  # noqa: E402
from ppc_guest_files import branch_sites, make_guest_files, read_image  # noqa: E402


def step_out(ttd, trace, start, program=None):
    """Launches at EID start, steps out; returns (stopped event body, top pc)."""
    c = DapClient([ttd, "dap"], stderr=sys.stderr)
    try:
        c.start(trace, program, start=str(start))
        c.call("configurationDone")
        tid = c.event("stopped")["body"]["threadId"]
        stop = c.stop_after("stepOut", {"threadId": tid})
        frames = c.call("stackTrace", {"threadId": tid, "startFrame": 0, "levels": 1})["stackFrames"]
        eid = c.evaluate("eid", context="repl")
        c.call("disconnect")
        return stop["body"], int(frames[0]["instructionPointerReference"], 16), eid
    finally:
        c.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ttd", required=True)
    p.add_argument("--make-fixtures", required=True)
    p.add_argument("--work", required=True)
    a = p.parse_args()
    work = os.path.join(a.work, "dap_step_out")
    shutil.rmtree(work, ignore_errors=True)
    try:
        files, syms = make_guest_files(a.make_fixtures, work)
        base, image, _ = read_image()
        unlock = syms["kSymGuestMutexUnlock"]
        site = min(pc for pc, _, _, link in branch_sites(base, image, unlock)[0] if link)  # the bl in guest_cond_wait
        r = subprocess.run([a.ttd, "executions", files["tt6"], "--pc", "0x%x" % site, "--json", "--limit", "1"],
                           capture_output=True, text=True, timeout=300)
        check(r.returncode == 0 and r.stdout.strip(), "the bl at 0x%x runs" % site, r.stderr)
        bl_eid = json.loads(r.stdout.splitlines()[0])["eid"]
        inside = bl_eid + 2  # inside the callee (after its marker or first instruction)

        body, pc, eid = step_out(a.ttd, files["tt6"], inside, files["elf"])
        check(body["reason"] == "step", "stepOut with the program stops on a step", body)
        check(pc == site + 4, "stepOut stops right after the bl (0x%x)" % (site + 4), (hex(pc), body, eid))
        check("incomplete" not in body.get("description", ""), "no incomplete note with code bytes", body)

        body, pc, eid = step_out(a.ttd, files["tt6"], inside)
        check("call structure incomplete" in body.get("description", ""),
              "stepOut without code bytes says the call structure is incomplete", body)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("DAP stepOut on TT6 passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
