"""A whole DAP session against `ttd dap` on traces recorded from the
examples: line breakpoints, continue, a data breakpoint and reverse-continue
to the last write (with the values), stepBack by line and by instruction,
stepping back out of a function, the stack with names and lines, locals,
disassemble, readMemory, and both ends of history."""
import base64
import sys

from dap_test_support import adapter, line_of, parse_args, recorded, source_path
from cli_checks import require  # noqa: E402 (on the path through dap_test_support)


def linked_list_session(args):
    trace, program = recorded(args, "linked_list")
    src = source_path(args, "linked_list")
    line_inventory = line_of(args, "linked_list", 'printf("inventory:\\n");')
    line_audit_store = line_of(args, "linked_list", "if (stale) stale->quantity = 0;")
    line_push_store = line_of(args, "linked_list", "n->quantity = quantity;")
    line_push_copy = line_of(args, "linked_list", "strncpy(n->name, name")
    line_push_alloc = line_of(args, "linked_list", "struct node *n = node_alloc();")

    c = adapter(args)
    caps = c.start(trace, program)
    require(caps.get("supportsStepBack") is True, "initialize offers step back")
    bps = c.call("setBreakpoints", {"source": {"path": src}, "breakpoints": [{"line": line_inventory}]})["breakpoints"]
    require(bps[0]["verified"] and bps[0]["line"] == line_inventory, "line breakpoint verified", bps)
    c.call("configurationDone")
    stop = c.event("stopped")
    require(stop["body"]["reason"] == "entry", "stopped on entry", stop)
    tid = stop["body"]["threadId"]
    threads = c.call("threads")["threads"]
    require(any(t["id"] == tid for t in threads), "threads lists the stopped thread", threads)

    # Continue to the line breakpoint in main.
    stop = c.stop_after("continue", {"threadId": tid})
    require(stop["body"]["reason"] == "breakpoint" and stop["body"]["hitBreakpointIds"] == [bps[0]["id"]],
          "continue stops at the line breakpoint", stop)
    top, frames = c.top_frame(tid)
    require(top["name"] == "main" and top["line"] == line_inventory and top["source"]["path"] == src,
          "stack: main at the breakpoint line", top)
    require(c.evaluate("pears->quantity", top["id"]) == "0", "pears->quantity reads 0 (the bug)")
    require(c.evaluate("pears->name", top["id"]) == '"pears"', "pears->name is \"pears\"")

    # Why is it 0? ttdOrigin: the stray store in audit_removed, with its EID
    # and source line for the IDE to jump to; evaluate in the origin context.
    origin = c.call("ttdOrigin", {"expression": "pears->quantity", "frameId": top["id"], "depth": 2})
    root = origin["origin"]["root"]
    require(root["origin"] == "write" and root["value"] == "0x0" and root["step"]["function"] == "audit_removed"
          and root["step"]["line"] == line_audit_store and root["step"]["file"] == src,
          "ttdOrigin names the store in audit_removed", root)
    require(any(i["role"] == "address" and i["location"] == {"reg": "rax"} for i in root["inputs"]),
          "ttdOrigin: the stale pointer is the store's address input", root["inputs"])
    text = c.evaluate("pears->quantity", top["id"], context="origin")
    require(f"EID {root['step']['eid']}" in text and "audit_removed" in text, "evaluate origin context", text)
    require(c.evaluate("origin pears->quantity", top["id"], context="repl") == text, "origin EXPR in the console")

    # Locals of main.
    scopes = c.call("scopes", {"frameId": top["id"]})["scopes"]
    locals_ref = [s for s in scopes if s["name"] == "Locals"][0]["variablesReference"]
    names = {v["name"]: v for v in c.call("variables", {"variablesReference": locals_ref})["variables"]}
    require({"list", "last_removed", "pears", "total"} <= set(names), "main's locals", sorted(names))
    require(names["pears"]["variablesReference"] > 0, "pears expands")
    kids = {v["name"]: v["value"] for v in c.call("variables", {"variablesReference": names["pears"]["variablesReference"]})["variables"]}
    require(kids.get("quantity") == "0", "pears expands to its members", kids)
    regs = [s for s in scopes if s["name"] == "Registers"][0]
    regvals = {v["name"]: v["value"] for v in c.call("variables", {"variablesReference": regs["variablesReference"]})["variables"]}
    require(regvals.get("rip", "").startswith("0x"), "registers scope has rip", regvals.get("rip"))

    # Watch pears->quantity and go back to the last write.
    info = c.call("dataBreakpointInfo", {"name": "pears->quantity", "frameId": top["id"]})
    require(info["dataId"] and "write" in info["accessTypes"], "dataBreakpointInfo for pears->quantity", info)
    c.call("setDataBreakpoints", {"breakpoints": [{"dataId": info["dataId"], "accessType": "write"}]})
    c.call("setBreakpoints", {"source": {"path": src}, "breakpoints": []})
    stop = c.stop_after("reverseContinue", {"threadId": tid})
    desc = stop["body"]["description"]
    require(stop["body"]["reason"] == "data breakpoint", "reverseContinue stops at the data breakpoint", stop)
    require("old value 40" in desc and "new value 0" in desc, "the stop tells the old and new values", desc)
    top, frames = c.top_frame(tid)
    require(top["name"] == "audit_removed" and top["line"] == line_audit_store,
          "the last write is the store in audit_removed", top)
    require(frames[1]["name"] == "main", "audit_removed was called from main", [f["name"] for f in frames])
    require(c.evaluate("stale->quantity", top["id"]) == "40", "before the store the value is still 40")
    addr = int(info["dataId"].split("/")[0], 16)
    mem = c.call("readMemory", {"memoryReference": hex(addr), "count": 4})
    require(base64.b64decode(mem["data"]) == (40).to_bytes(4, "little"), "readMemory shows 40 at the watched address", mem)

    # Further back: the store that gave pears its 40.
    stop = c.stop_after("reverseContinue", {"threadId": tid})
    top, frames = c.top_frame(tid)
    require(stop["body"]["reason"] == "data breakpoint" and top["name"] == "push" and top["line"] == line_push_store,
          "the write before is push() storing the quantity", (stop["body"], top))
    require("new value 40" in stop["body"]["description"], "push wrote 40", stop["body"]["description"])
    c.call("setDataBreakpoints", {"breakpoints": []})

    # stepBack without a granularity steps back by source line. The data
    # breakpoint stopped mid-line (at the store): first to that line's start.
    pc_store = top["instructionPointerReference"]
    stop = c.stop_after("stepBack", {"threadId": tid})
    top, _ = c.top_frame(tid)
    require(stop["body"]["reason"] == "step" and top["line"] == line_push_store and top["instructionPointerReference"] != pc_store,
          "stepBack from mid-line goes to the start of the line", top)
    stop = c.stop_after("stepBack", {"threadId": tid})
    top, _ = c.top_frame(tid)
    require(stop["body"]["reason"] == "step" and top["name"] == "push" and top["line"] == line_push_copy,
          "stepBack goes back one line (to strncpy)", top)
    stop = c.stop_after("stepBack", {"threadId": tid})
    top, _ = c.top_frame(tid)
    require(top["line"] == line_push_alloc, "stepBack steps back over the call to node_alloc", top)
    stop = c.stop_after("stepBack", {"threadId": tid})
    top, frames = c.top_frame(tid)
    require(top["name"] == "main", "stepBack from a function's first line goes back out to the caller", top)
    caller_line = top["line"]
    stop = c.stop_after("next", {"threadId": tid})
    top, _ = c.top_frame(tid)
    require(top["name"] == "main" and top["line"] > caller_line, "next steps over the call again", top)

    # Instruction granularity.
    pc0 = top["instructionPointerReference"]
    eid0 = c.evaluate("eid")
    c.stop_after("stepBack", {"threadId": tid, "granularity": "instruction"})
    top, _ = c.top_frame(tid)
    eid1 = c.evaluate("eid")
    require(top["instructionPointerReference"] != pc0 and eid1 != eid0, "stepBack by instruction moves one instruction",
          (eid0, eid1))
    c.stop_after("stepIn", {"threadId": tid, "granularity": "instruction"})
    top, _ = c.top_frame(tid)
    require(top["instructionPointerReference"] == pc0 and c.evaluate("eid") == eid0, "stepIn by instruction comes back")

    # Disassemble around the pc.
    dis = c.call("disassemble", {"memoryReference": pc0, "instructionOffset": -4, "instructionCount": 10,
                                 "resolveSymbols": True})["instructions"]
    require(len(dis) == 10 and int(dis[4]["address"], 16) == int(pc0, 16), "disassemble around the pc", dis[4])
    require(dis[4]["instruction"] and "main" in dis[4].get("symbol", ""), "instructions have text and symbols", dis[4])

    # Both ends of history.
    stop = c.stop_after("reverseContinue", {"threadId": tid})
    require(stop["body"]["reason"] == "start of history", "reverseContinue without breakpoints reaches the start", stop)
    require(c.evaluate("eid").startswith("EID 0 "), "at EID 0")
    stop = c.stop_after("continue", {"threadId": tid})
    require(stop["body"]["reason"] == "end of history", "continue without breakpoints reaches the end", stop)
    stop = c.stop_after("next", {"threadId": tid})
    require(stop["body"]["reason"] == "end of history", "next at the end says so", stop)
    c.call("disconnect")
    require(c.close() == 0, "adapter exits 0 after disconnect")


def recursion_session(args):
    trace, program = recorded(args, "recursion")
    line_base = line_of(args, "recursion", "return 1;")
    line_call = line_of(args, "recursion", "return fib(n - 1) + fib(n - 2);")
    c = adapter(args)
    c.start(trace, program)
    fb = c.call("setFunctionBreakpoints", {"breakpoints": [{"name": "fib"}]})["breakpoints"]
    require(fb[0]["verified"], "function breakpoint on fib", fb)
    c.call("configurationDone")
    tid = c.event("stopped")["body"]["threadId"]
    for _ in range(4):
        stop = c.stop_after("continue", {"threadId": tid})
    require(stop["body"]["reason"] == "function breakpoint", "continue stops at fib", stop)
    top, frames = c.top_frame(tid)
    fibs = [f for f in frames if f["name"] == "fib"]
    require(len(fibs) == 4 and frames[len(fibs)]["name"] == "main", "four fib frames on main", [f["name"] for f in frames])
    require(all(f["line"] == line_call for f in fibs[1:]), "callers' lines are the recursive call", [f["line"] for f in fibs])
    n_values = [c.evaluate("n", f["id"]) for f in fibs]
    require(n_values == ["7", "8", "9", "10"], "n in each frame", n_values)
    # Line breakpoint in the base case, then stepping back out of it.
    c.call("setFunctionBreakpoints", {"breakpoints": []})
    src = source_path(args, "recursion")
    c.call("setBreakpoints", {"source": {"path": src}, "breakpoints": [{"line": line_base}]})
    stop = c.stop_after("continue", {"threadId": tid})
    top, frames = c.top_frame(tid)
    require(top["line"] == line_base and c.evaluate("n", top["id"]) in ("0", "1"), "base case breakpoint", top)
    depth = len(frames)
    c.stop_after("stepBack", {"threadId": tid})
    top, frames = c.top_frame(tid)
    require(top["line"] == line_of(args, "recursion", "if (n < 2)") and len(frames) == depth, "stepBack to the if", top)
    c.stop_after("stepBack", {"threadId": tid})
    top, frames = c.top_frame(tid)
    require(top["name"] == "fib" and top["line"] == line_call and len(frames) == depth - 1,
          "stepBack out of the call lands on the caller's line", (top, len(frames)))
    c.call("disconnect")
    c.close()


def main():
    args = parse_args()
    linked_list_session(args)
    recursion_session(args)
    print("all DAP example sessions passed")


if __name__ == "__main__":
    sys.exit(main())
