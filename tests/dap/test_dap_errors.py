"""Malformed and out-of-order requests to the real `ttd dap` process: each
gets an error response (or, without a request to answer, an output event),
and the adapter keeps serving; then a TCP session with --listen."""
import re
import subprocess
import sys

from dap_client import DapClient
from dap_test_support import adapter, check, parse_args, recorded


def expect_error(c, command, arguments=None, contains=None):
    r = c.call_raw(command, arguments)
    ok = r.get("success") is False and (contains is None or contains in r.get("message", ""))
    check(ok, "%s %s -> error" % (command, arguments if arguments is not None else ""), r.get("message"))


def main():
    args = parse_args()
    trace, program = recorded(args, "loop", "50")
    c = adapter(args)
    expect_error(c, "next", {"threadId": 1}, "initialize")
    expect_error(c, "launch", {"trace": trace}, "initialize")
    c.send_body(b"{this is not json")
    e = c.event("output")
    check("not valid JSON" in e["body"]["output"], "garbage body -> output event", e["body"]["output"])
    c.send_raw(b"Content-Length: twelve\r\n\r\n")
    c.event("output")
    c.send_body(b'{"type":"request","command":"initialize"}')
    r = c.response(0)
    check(r["success"] is False, "request without seq -> error")
    c.call("initialize", {"clientID": "errors"})
    expect_error(c, "initialize")
    expect_error(c, "stackTrace", {"threadId": 1}, "launch")
    expect_error(c, "launch", {}, "trace")
    expect_error(c, "launch", {"trace": args.work + "/no-such-trace.ucir"})
    expect_error(c, "launch", {"trace": 42})
    expect_error(c, "launch", {"trace": trace, "program": args.work + "/no-such-program"})
    c.call("launch", {"trace": trace, "program": program})
    c.event("initialized")
    expect_error(c, "launch", {"trace": trace}, "already")
    expect_error(c, "frobnicate")
    expect_error(c, "stackTrace", {"threadId": "x"})
    expect_error(c, "stackTrace", {"threadId": 424242})
    expect_error(c, "variables", {"variablesReference": 99999})
    expect_error(c, "scopes", {"frameId": 12345})
    expect_error(c, "readMemory", {"memoryReference": "not-an-address", "count": 4})
    expect_error(c, "readMemory", {"memoryReference": "0x0"})
    expect_error(c, "disassemble", {"memoryReference": "0x401000", "instructionCount": -3})
    expect_error(c, "evaluate", {"expression": "no_such_variable_anywhere"})
    expect_error(c, "evaluate", {"expression": "1 +"})
    expect_error(c, "evaluate", {"expression": "seek 99999999999"})
    expect_error(c, "next", {"threadId": 1, "granularity": 7})
    expect_error(c, "setBreakpoints", {"breakpoints": [{"line": 3}]})
    expect_error(c, "setDataBreakpoints", {"breakpoints": [{"accessType": "write"}]})
    expect_error(c, "goto", {"threadId": 1, "targetId": 5})
    r = c.call("setBreakpoints", {"source": {"path": "/nowhere/x.c"}, "breakpoints": [{"line": 1}]})
    check(r["breakpoints"][0]["verified"] is False and r["breakpoints"][0].get("message"), "unknown source -> unverified", r)
    dbi = c.call("dataBreakpointInfo", {"name": "no_such_thing"})
    check(dbi["dataId"] is None, "dataBreakpointInfo for an unknown name -> null dataId", dbi)
    # Still healthy after all that.
    c.call("configurationDone")
    stop = c.event("stopped")
    check(stop["body"]["reason"] == "entry", "entry stop after the errors")
    c.call("disconnect")
    check(c.close() == 0, "adapter exits 0")

    # The same over TCP.
    p = subprocess.Popen([args.ttd, "dap", "--listen", "127.0.0.1:0", "--once"], stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    check(m is not None, "--listen prints its port", line)
    t = DapClient(port=int(m.group(1)))
    t.start(trace, program)
    t.call("configurationDone")
    t.event("stopped")
    check(t.evaluate("eid").startswith("EID 0"), "TCP session works")
    t.call("disconnect")
    t.close()
    check(p.wait(timeout=30) == 0, "--once exits after the session")
    print("all DAP error cases passed")


if __name__ == "__main__":
    sys.exit(main())
