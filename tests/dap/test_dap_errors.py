"""Malformed and out-of-order requests to the real `ttd dap` process: each
gets an error response (or, without a request to answer, an output event),
and the adapter keeps serving; hostile expressions, frames and disassemble
offsets (issue 21); then TCP sessions with --listen, concurrent up to
--max-clients; then `ttd dap` on a terminal."""
import os
import pty
import re
import socket
import subprocess
import sys
import time

from dap_client import DapClient
from dap_test_support import adapter, parse_args, recorded
from cli_checks import expect_error, require  # noqa: E402 (on the path through dap_test_support)


def hostile(c):
    """Issue 21: inputs that crashed, hung or ran for minutes."""
    r = c.call_raw("evaluate", {"expression": "0x8000000000000000/-1", "context": "repl"})
    require(r["success"] is True, "INT64_MIN / -1 is a value, not SIGFPE", r)
    r = c.call_raw("evaluate", {"expression": "0x8000000000000000%-1", "context": "repl"})
    require(r["success"] is True and r["body"]["result"].startswith("0"), "INT64_MIN % -1 is 0", r)
    expect_error(c, "evaluate", {"expression": "1%0"}, "by zero")
    expect_error(c, "evaluate", {"expression": "(" * 4000 + "1" + ")" * 4000}, "limit")
    expect_error(c, "evaluate", {"expression": "(" * 300 + "1" + ")" * 300}, "deeper than 256")
    expect_error(c, "evaluate", {"expression": "-" * 20000 + "1"}, "limit")
    t0 = time.monotonic()
    expect_error(c, "disassemble", {"memoryReference": "0x401000", "instructionOffset": -1000000,
                                    "instructionCount": 10}, "instructionOffset")
    r = c.call("disassemble", {"memoryReference": "0x401000", "instructionOffset": -65536, "instructionCount": 50})
    require(len(r["instructions"]) == 50 and time.monotonic() - t0 < 30, "disassemble far back is bounded",
          time.monotonic() - t0)
    # A malformed frame is reported with its offset, and the next request is answered.
    glued = b'{"seq":900,"type":"request","command":"threads"}'
    for what, frame in (("negative", b"Content-Length: -5\r\n\r\n" + glued),
                        ("non-numeric", b"Content-Length: 12abc\r\n\r\n" + glued),
                        ("missing", b"Content-Type: json\r\n\r\n" + glued),
                        ("short", b"Content-Length: 10\r\n\r\n" + glued),
                        ("body shorter than declared", b"Content-Length: 500\r\n\r\n" + glued)):
        c.drain_events()
        c.send_raw(frame)
        r = c.call("threads", timeout=10)
        require(r["threads"], "after a %s Content-Length the next request is answered" % what)
        out = c.event("output", timeout=10)["body"]["output"]
        require("at byte" in out, "the malformed frame is reported with its offset", out)


def concurrent_clients(args, trace, program):
    p = subprocess.Popen([args.ttd, "dap", "--listen", "127.0.0.1:0", "--max-clients", "2"],
                         stderr=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)", p.stderr.readline()).group(1))
        a, b = DapClient(port=port), DapClient(port=port)
        a.start(trace, program)
        b.start(trace, program)  # while a is connected: served at once, with its own engine view
        a.call("configurationDone")
        b.call("configurationDone")
        a.event("stopped")
        b.event("stopped")
        a.evaluate("seek 7", context="repl")
        a.event("stopped")
        require(a.evaluate("eid").startswith("EID 7") and b.evaluate("eid").startswith("EID 0"),
              "two concurrent sessions, each at its own position")
        over = DapClient(port=port)
        out = over.event("output", timeout=10)["body"]["output"]
        require("--max-clients 2" in out, "the client over --max-clients is told why", out)
        over.event("terminated", timeout=10)
        over.close()
        for c in (a, b):
            c.call("disconnect")
            c.close()
    finally:
        p.terminate()
        p.wait(timeout=30)


def on_a_terminal(args):
    """Issue 19: `ttd dap` typed at a shell says what it is; Ctrl-D exits 0."""
    master, slave = pty.openpty()
    p = subprocess.Popen([args.ttd, "dap"], stdin=slave, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    os.close(slave)
    try:
        line = p.stderr.readline()
        require("--listen" in line and "stdin" in line, "ttd dap on a terminal explains itself", line)
        os.write(master, b"\x04")  # end of input, as Ctrl-D
        require(p.wait(timeout=30) == 0, "ttd dap on a terminal exits 0 at end of input")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)


def listen_addresses(args):
    """`ttd dap --listen` parses HOST:PORT and listens with the listener `ttd
    serve` uses (net/): its banner names the address it really listens on
    (it used to say 127.0.0.1 whatever the host), and a bad HOST:PORT is a
    usage error naming --listen."""
    p = subprocess.Popen([args.ttd, "dap", "--listen", "127.0.0.2:0", "--once"], stderr=subprocess.PIPE, text=True)
    try:
        line = p.stderr.readline()
        m = re.search(r"listening on 127\.0\.0\.2:(\d+)", line)
        require(m is not None, "--listen 127.0.0.2:0 names the address it listens on", line)
        socket.create_connection(("127.0.0.2", int(m.group(1))), timeout=30).close()
        p.wait(timeout=30)  # --once: the session ends with the client
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    for bad in ["127.0.0.1:99999", "127.0.0.1:http", "host:"]:
        r = subprocess.run([args.ttd, "dap", "--listen", bad], capture_output=True, text=True, timeout=30)
        require(r.returncode == 2 and "--listen" in r.stderr, "--listen " + bad + " is refused naming --listen", r.stderr)


def main():
    args = parse_args()
    trace, program = recorded(args, "loop", "50")
    c = adapter(args)
    expect_error(c, "next", {"threadId": 1}, "initialize")
    expect_error(c, "launch", {"trace": trace}, "initialize")
    c.send_body(b"{this is not json")
    e = c.event("output")
    require("not valid JSON" in e["body"]["output"], "garbage body -> output event", e["body"]["output"])
    c.send_raw(b"Content-Length: twelve\r\n\r\n")
    c.event("output")
    c.send_body(b'{"type":"request","command":"initialize"}')
    r = c.response(0)
    require(r["success"] is False, "request without seq -> error")
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
    require(r["breakpoints"][0]["verified"] is False and r["breakpoints"][0].get("message"), "unknown source -> unverified", r)
    dbi = c.call("dataBreakpointInfo", {"name": "no_such_thing"})
    require(dbi["dataId"] is None, "dataBreakpointInfo for an unknown name -> null dataId", dbi)
    hostile(c)
    # Still healthy after all that.
    c.call("configurationDone")
    stop = c.event("stopped")
    require(stop["body"]["reason"] == "entry", "entry stop after the errors")
    c.call("disconnect")
    require(c.close() == 0, "adapter exits 0")

    # The same over TCP.
    p = subprocess.Popen([args.ttd, "dap", "--listen", "127.0.0.1:0", "--once"], stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    require(m is not None, "--listen prints its port", line)
    t = DapClient(port=int(m.group(1)))
    t.start(trace, program)
    t.call("configurationDone")
    t.event("stopped")
    require(t.evaluate("eid").startswith("EID 0"), "TCP session works")
    t.call("disconnect")
    t.close()
    require(p.wait(timeout=30) == 0, "--once exits after the session")
    concurrent_clients(args, trace, program)
    listen_addresses(args)
    on_a_terminal(args)
    print("all DAP error cases passed")


if __name__ == "__main__":
    sys.exit(main())
