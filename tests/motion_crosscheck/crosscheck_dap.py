"""The cross-check's cases through `ttd dap` (over stdio, the tests'
DapClient): one session per trace with the program's ELF; each case
starts with the adapter's `seek` evaluate, sets its instruction or data
breakpoint, runs its moves and reads the EID after each stop with the
`eid` evaluate. DAP has no reverse step-in: a reverse-stepi move is
replaced by a seek to the engine's answer (so the case goes on) and not
counted."""
import re
import sys

from dap_client import DapClient

DAP_MOVES = {"stepi": ("stepIn", True), "nexti": ("next", True), "rnexti": ("stepBack", True),
             "finish": ("stepOut", True), "continue": ("continue", False), "rcontinue": ("reverseContinue", False)}
DAP_ACCESS = {"write": "write", "read": "read", "access": "readWrite"}


def _eid(c):
    text = c.evaluate("eid", context="repl")
    m = re.match(r"EID (\d+) of", text)
    return int(m.group(1)) if m else None


def _seek(c, eid):
    c.call("evaluate", {"expression": f"seek {eid}", "context": "repl"})
    return c.event("stopped")["body"]


def _setup(c, setup):
    bps = [{"instructionReference": "0x%x" % setup["break"]}] if "break" in setup else []
    c.call("setInstructionBreakpoints", {"breakpoints": bps})
    data = []
    if "watch" in setup:
        w = setup["watch"]
        info = c.call("dataBreakpointInfo", {"name": "0x%x" % w["addr"], "bytes": w["len"], "asAddress": True})
        data = [{"dataId": info["dataId"], "accessType": DAP_ACCESS[w["kind"]]}]
    c.call("setDataBreakpoints", {"breakpoints": data})


def run_cases(ttd, trace, elf, cases):
    """Returns ({case index: [eid after each move, None where DAP has no such
    move]}, {case index: [the stop's description, per move]}, a log)."""
    got, descs, log = {}, {}, []
    c = DapClient([ttd, "dap"], stderr=sys.stderr)
    try:
        c.start(trace, elf, start=str(cases[0]["start"]))
        c.call("configurationDone")
        tid = c.event("stopped")["body"]["threadId"]
        for i, case in enumerate(cases):
            _seek(c, case["start"])
            _setup(c, case["setup"])
            eids, texts = [], []
            for mv in case["moves"]:
                name = mv["move"]
                if name == "rstepi":
                    _seek(c, mv["eid"])
                    eids.append(None)
                    texts.append(None)
                    continue
                if name == "rfinish":
                    c.call("evaluate", {"expression": "reverse-finish", "context": "repl"})
                    stop = c.event("stopped")["body"]
                else:
                    command, stepping = DAP_MOVES[name]
                    args = {"threadId": tid}
                    if stepping:
                        args["granularity"] = "instruction"
                    stop = c.stop_after(command, args)["body"]
                eids.append(_eid(c))
                texts.append(stop.get("description", ""))
                log.append(f"case {i} {name}: stopped ({stop.get('reason')}: {stop.get('description', '')}) "
                           f"at EID {eids[-1]}")
            got[i], descs[i] = eids, texts
        c.call("disconnect")
    finally:
        c.close()
    return got, descs, "\n".join(log)
