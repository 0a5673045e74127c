"""Instruction granularity without a program: a trace debugged with no ELF
still steps (line requests fall back to instructions), shows registers,
disassembles from the trace's own code bytes, and seeks by EID.

ttd record names the program in the trace, and `ttd dap` uses it when no
"program" is given; so the trace here is recorded from a copy of the
example that is removed afterwards: the program it names does not exist."""
import os
import shutil
import subprocess
import sys

from dap_test_support import adapter, parse_args, recorded
from cli_checks import require  # noqa: E402 (on the path through dap_test_support)


def recorded_without_program(args):
    _, binary = recorded(args, "loop", "60")  # skips when the recorder or the example is missing
    copy = os.path.join(args.work, "loop-removed-after-recording")
    trace = copy + ".ucir"
    for f in (trace, trace + ".ttdidx"):
        if os.path.exists(f):
            os.remove(f)
    shutil.copy(binary, copy)
    try:
        r = subprocess.run([args.ttd, "record", "-o", trace, "--", copy, "60"], capture_output=True, text=True)
    finally:
        os.remove(copy)
    if not os.path.exists(trace):
        raise SystemExit("ttd record failed (%d): %s" % (r.returncode, r.stderr))
    return trace


def main():
    args = parse_args()
    trace = recorded_without_program(args)
    c = adapter(args)
    c.start(trace)  # no "program"
    c.call("configurationDone")
    tid = c.event("stopped")["body"]["threadId"]
    c.call("evaluate", {"expression": "seek 200", "context": "repl"})
    c.event("stopped", pred=lambda e: e["body"]["reason"] == "goto")
    top, frames = c.top_frame(tid)
    require(len(frames) == 1 and top["name"].startswith("0x") and "source" not in top, "one frame named by its pc", top)
    c.stop_after("next", {"threadId": tid})
    require(c.evaluate("eid").startswith("EID 201 "), "next without lines steps one instruction")
    c.stop_after("stepBack", {"threadId": tid})
    require(c.evaluate("eid").startswith("EID 200 "), "stepBack without lines steps back one instruction")
    rip = c.evaluate("$rip")
    require(int(rip, 16) == int(top["instructionPointerReference"], 16), "$rip is the pc", (rip, top["instructionPointerReference"]))
    dis = c.call("disassemble", {"memoryReference": top["instructionPointerReference"], "instructionCount": 3})["instructions"]
    require(len(dis) == 3 and not dis[0].get("presentationHint") and dis[0]["instruction"], "disassembly from trace bytes", dis[0])
    r = c.call("setBreakpoints", {"source": {"path": "/x/loop.c"}, "breakpoints": [{"line": 20}]})
    require(r["breakpoints"][0]["verified"] is False, "line breakpoints need a program", r)
    ib = c.call("setInstructionBreakpoints", {"breakpoints": [{"instructionReference": top["instructionPointerReference"]}]})
    require(ib["breakpoints"][0]["verified"], "instruction breakpoint", ib)
    stop = c.stop_after("continue", {"threadId": tid})
    require(stop["body"]["reason"] in ("instruction breakpoint", "end of history"), "continue to the instruction breakpoint", stop)
    c.call("disconnect")
    require(c.close() == 0, "adapter exits 0")
    print("no-program session passed")


if __name__ == "__main__":
    sys.exit(main())
