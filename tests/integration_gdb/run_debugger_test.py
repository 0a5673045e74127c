#!/usr/bin/env python3
"""One integration test: real gdb / lldb against `ttd serve`.

Each case writes the loop trace (make_loop_trace) into its own work folder,
starts `ttd serve` on 127.0.0.1 with port 0 (the server prints the port it
got), runs one debugger in batch mode with a timeout, and checks that the
expected lines appear in its output in order. Every process the test
starts is killed and reaped before it exits, pass or fail. The plumbing is
in harness.py; the gdb/MI cases (IDE-style, one command at a time) in
gdb_mi_cases.py; lldb attaching to a recorded musl program in
lldb_attach_cases.py.

Exit codes: 0 pass, 1 fail, 77 skip (a debugger is not installed).
The trace (see make_loop_trace.cpp):
  401000 mov rax,0 | 401007 mov rbx,0x402000 | 40100e inc rax |
  401011 mov [rbx],rax | 401014 cmp rax,5 | 401018 jne 40100e | 40101a nop
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading

import exec_chain_cases
import gdb_mi_cases
import lldb_attach_cases
import pie_tenet_cases
import query_monitor_cases
import serve_limits_cases
from harness import SKIP, Context, expect_in_order, gdb, lldb, run


# --- cases --------------------------------------------------------------
# Each returns (output, patterns) or a string (failure message).

def gdb_connect_registers(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "p/x $pc", "p/x $rsp", "p $rcx", "p $xmm0", "info threads", "detach")
    code = s.wait_exit()
    out += f"\nserver exit: {code}\n"
    return out, [r"\$1 = 0x401000", r"\$2 = 0x7ff000", r"\$3 = 0",
                 r"\$4 = <unavailable>", r"\* 1\s+Thread 1\.1", r"Inferior 1 \(process 1\) detached",
                 r"server exit: 0"]


def gdb_step_reverse_step(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "stepi", "stepi", "p/x $pc", "p/x $rbx", "x/i $pc", "reverse-stepi", "p/x $pc",
              "reverse-stepi", "p/x $pc", "reverse-stepi", "p/x $pc", "detach")
    return out, [r"\$1 = 0x40100e", r"\$2 = 0x402000", r"=> 0x40100e:\s+inc\s+%rax", r"\$3 = 0x401007",
                 r"\$4 = 0x401000", r"No more reverse-execution history", r"\$5 = 0x401000"]


def gdb_breakpoint_both_ways(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "break *0x401014", "continue", "p $rax", "continue", "continue", "p $rax",
              "reverse-continue", "p $rax", "reverse-continue", "reverse-continue", "p/x $pc", "detach")
    return out, [r"Breakpoint 1 at 0x401014", r"Breakpoint 1, 0x0000000000401014", r"\$1 = 1",
                 r"Breakpoint 1, 0x0000000000401014", r"\$2 = 3", r"Breakpoint 1, 0x0000000000401014",
                 r"\$3 = 2", r"No more reverse-execution history", r"\$4 = 0x401000"]


def gdb_watchpoint_both_ways(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "watch *(long*)0x402000", "continue", "p/x $pc", "continue", "reverse-continue",
              "p/x $pc", "p $rax", "stepi", "reverse-stepi", "rwatch *(long*)0x402000", "detach")
    return out, [r"Hardware watchpoint 1: \*\(long\*\)0x402000",
                 r"Old value = 0\s+New value = 1", r"\$1 = 0x401014",
                 r"Old value = 1\s+New value = 2",
                 # reverse: stops before the write, memory back to the old value
                 r"Old value = 2\s+New value = 1", r"\$2 = 0x401011", r"\$3 = 2",
                 # a single step over the write reports the watchpoint too
                 r"Old value = 1\s+New value = 2", r"Old value = 2\s+New value = 1"]


def gdb_history_boundaries(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "reverse-continue", "continue", "p/x $pc", "continue", "reverse-stepi", "p/x $pc",
              "detach")
    return out, [r"No more reverse-execution history", r"No more reverse-execution history",
                 r"\$1 = 0x40101b", r"No more reverse-execution history", r"\$2 = 0x40101a"]


def gdb_monitor_commands(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "monitor help", "monitor eid", "monitor seek 20", "stepi", "p $rax", "p/x $pc",
              "monitor when", "monitor history 0x402000 8", "monitor seek 99", "monitor nosuch", "monitor info",
              "monitor reverse on", "stepi", "p/x $pc", "monitor reverse off", "detach")
    return out, [r"seek EID", r"reverse \[on\|off\]", r"^eid 0$", r"eid 20: continue or stepi", r"\$1 = 5",
                 r"\$2 = 0x401014", r"eid 20 of 23: thread 1 pc 0x401014",
                 r"^EID 19  thread 1  pc 0x401011  write 0x402000\+8 = 0500000000000000$",
                 r"^EID 3  thread 1  pc 0x401011  write 0x402000\+8 = 0100000000000000$",
                 r"past the end", r"error: unknown monitor command 'nosuch'", r"format:\s+ucir",
                 r"direction: reverse", r"\$3 = 0x401011", r"direction: forward"]


def gdb_memory(ctx):
    s = ctx.server(["--once"])
    out = gdb(s.address, "x/4i 0x401000", "break *0x401014", "continue", "continue", "x/gx 0x402000",
              "x/x 0x500000", "set var $rax = 7", "set {long}0x402000 = 9", "p $rax", "detach")
    return out, [r"0x401000:\s+mov\s+\$0x0,%rax", r"0x40100e:\s+inc\s+%rax",
                 r"0x402000:\s+0x0000000000000002", r"Cannot access memory at address 0x500000",
                 r"(Could not write register|E01)", r"(Cannot access memory|E01)", r"\$1 = 2"]


def gdb_stdio(ctx):
    trace = ctx.trace()
    # gdb's first packet goes out as ttd starts; 2 s (the default) was too
    # little for ttd to open the trace on a loaded CI machine.
    out = run(["gdb", "-batch", "-nx", "-ex", "set remotetimeout 30",
               "-ex", f"target remote | {ctx.ttd} serve --stdio {trace}",
               "-ex", "stepi", "-ex", "p/x $pc", "-ex", "reverse-stepi", "-ex", "p/x $pc", "-ex", "detach"])
    return out, [r"\$1 = 0x401007", r"\$2 = 0x401000", r"detached"]


def lldb16_connect_step(ctx):
    binary = ctx.lldb16()
    if not binary:
        return SKIP
    s = ctx.server(["--once"])
    out = lldb(binary, s.address, "register read rip", "register read xmm0", "thread step-inst",
               "thread step-inst", "register read rip rbx", "memory read -s8 -c1 -fx 0x402000",
               "disassemble -s 0x401000 -c 3", "process plugin packet monitor eid", "process detach")
    return out, [r"rip = 0x0000000000401000", r"xmm0 = ", r"stop reason = instruction step into",
                 r"rip = 0x000000000040100e", r"rbx = 0x0000000000402000", r"0x00402000: 0x0000000000000000",
                 r"movq\s+\$0x0, %rax", r"eid 2", r"[Dd]etach"]


def lldb16_breakpoint_watchpoint(ctx):
    binary = ctx.lldb16()
    if not binary:
        return SKIP
    s = ctx.server(["--once"])
    out = lldb(binary, s.address, "breakpoint set -a 0x401014", "process continue", "register read rax",
               "breakpoint delete 1", "watchpoint set expression -s 8 -- 0x402000", "process continue",
               "register read rip", "process detach")
    return out, [r"stop reason = breakpoint 1\.1", r"rax = 0x0000000000000001",
                 r"old value: 1\s+new value: 2", r"stop reason = watchpoint 1", r"rip = 0x0000000000401014"]


def lldb16_reverse_switch(ctx):
    """lldb-16 has no reverse commands: `monitor reverse on` flips continue/step."""
    binary = ctx.lldb16()
    if not binary:
        return SKIP
    s = ctx.server(["--once"])
    out = lldb(binary, s.address, "breakpoint set -a 0x401014", "process continue", "process continue",
               "register read rax", "process plugin packet monitor reverse on", "process continue",
               "register read rax", "thread step-inst", "register read rip",
               "watchpoint set expression -s 8 -- 0x402000", "process plugin packet monitor reverse off",
               "process continue", "process plugin packet monitor reverse on", "process continue",
               "register read rip", "breakpoint delete 1", "process continue",
               on_crash=["register read rip"])
    # The last continue reaches the start of history, which lldb-16 shows as
    # SIGTRAP (it ignores replaylog); -b then runs the -k command.
    return out, [r"rax = 0x0000000000000002", r"direction: reverse", r"stop reason = breakpoint 1\.1",
                 r"rax = 0x0000000000000001", r"stop reason = instruction step into", r"rip = 0x0000000000401011",
                 r"direction: forward", r"stop reason = watchpoint 1", r"direction: reverse",
                 r"old value: 1\s+new value: 0", r"stop reason = watchpoint 1", r"rip = 0x0000000000401011",
                 r"stop reason = signal SIGTRAP", r"rip = 0x0000000000401000"]


def lldb22_reverse_continue(ctx):
    """LLDB 21+ sends bc/bs itself (process continue --reverse)."""
    binary = ctx.lldb22()
    if not binary:
        return SKIP
    s = ctx.server(["--once"])
    out = lldb(binary, s.address, "breakpoint set -a 0x401014", "process continue", "process continue",
               "register read rax", "process continue --reverse", "register read rax",
               "breakpoint delete 1", "watchpoint set expression -s 8 -- 0x402000", "process continue --forward",
               "register read rip", "process continue --reverse", "register read rip",
               "process plugin packet monitor eid", "process continue --reverse",
               "process plugin packet monitor eid", "process continue --reverse", on_crash=["register read rip"])
    # Writes to 0x402000 happen at eids 3, 7, 11, ...: forward from eid 4 the
    # watchpoint stops after eid 7's write (eid 8); reverse stops before it
    # (eid 7), then before eid 3's, then at the start of history.
    return out, [r"rax = 0x0000000000000002", r"stop reason = breakpoint 1\.1", r"rax = 0x0000000000000001",
                 r"stop reason = watchpoint 1", r"rip = 0x0000000000401014",
                 r"stop reason = watchpoint 1", r"rip = 0x0000000000401011", r"eid 7",
                 r"stop reason = watchpoint 1", r"eid 3",
                 r"stop reason = history boundary", r"rip = 0x0000000000401000"]


def serve_several_clients(ctx):
    """Two gdbs at once, each with its own position; then a third after they left."""
    s = ctx.server([])
    results = {}

    def client(name, commands):
        results[name] = gdb(s.address, *commands)

    a = threading.Thread(target=client, args=("a", ["stepi 5", "p/x $pc", "shell sleep 1", "p/x $pc", "detach"]))
    b = threading.Thread(target=client, args=("b", ["break *0x40101a", "continue", "p/x $pc", "shell sleep 1",
                                                    "p/x $pc", "detach"]))
    a.start()
    b.start()
    a.join()
    b.join()
    results["c"] = gdb(s.address, "p/x $pc", "kill")
    alive = s.proc.poll() is None
    out = "\n".join(f"--- client {k} ---\n{v}" for k, v in sorted(results.items()))
    out += f"\n--- server still running: {alive}\n"
    return out, [r"--- client a", r"\$1 = 0x401018", r"\$2 = 0x401018", r"--- client b", r"\$1 = 0x40101a",
                 r"\$2 = 0x40101a", r"--- client c", r"\$1 = 0x401000", r"server still running: True"]


def gdb_recorded_program(ctx):
    """Source level on a real program recorded by `ttd record` (examples/loop.c)."""
    recorded = ctx.recorded_loop()
    if not recorded:
        return SKIP
    exe, trace = recorded
    s = ctx.server(["--once"], trace)
    out = gdb(s.address, "break main", "continue", "next", "next", "next", "info locals", "watch values[0]",
              "continue", "continue", "p counter", "reverse-continue", "p counter", "p values[0]", "reverse-next",
              "reverse-next", "info auxv", "detach", pre=[f"file {exe}"])
    return out, [r"Breakpoint 1, main \(argc=2", r"loop\.c:15", r"^18\s+counter\+\+;", r"counter = 0",
                 r"Hardware watchpoint 2: values\[0\]", r"Old value = 0\s+New value = 1",
                 r"Old value = 1\s+New value = 257", r"\$1 = 257",
                 r"Old value = 257\s+New value = 1", r"loop\.c:19", r"\$2 = 257", r"\$3 = 1",
                 # from the middle of line 19 to its start, then back to line 18
                 r"^19\s+values", r"^18\s+counter\+\+;", r"AT_ENTRY\s+Entry point of program", r"detached"]


def lldb16_recorded_program(ctx):
    """lldb-16 needs the auxv (served from the initial stack) to place the ELF."""
    binary = ctx.lldb16()
    recorded = ctx.recorded_loop() if binary else None
    if not recorded:
        return SKIP
    exe, trace = recorded
    s = ctx.server(["--once"], trace)
    out = lldb(binary, s.address, "b main", "c", "n", "n", "frame variable counter",
               "watchpoint set variable values[0]", "c", "c", "p counter", "process plugin packet monitor reverse on",
               "c", "p counter", "process plugin packet monitor reverse off", "bt", "process detach", exe=exe)
    return out, [r"Breakpoint 1: where = \S+`main", r"stop reason = breakpoint 1\.1", r"loop\.c:15",
                 r"\(long\) counter = 0", r"old value: 0\s+new value: 1", r"old value: 1\s+new value: 257",
                 r"= 257", r"direction: reverse", r"old value: 257\s+new value: 1", r"= 257",
                 r"main\(argc=2, argv=0x[0-9a-f]+\) at loop\.c:19", r"detached"]


def gdb_recorded_threads(ctx):
    """A pthread program recorded by `ttd record` (tests/recorder/programs/
    threads.c, five threads, a quantum of 2000 instructions): `ttd info`
    lists the threads; gdb sees them; reverse-continue from main (thread 1,
    after the joins) to a breakpoint only the consumer thread runs stops in
    thread 2, at the EID of that line's last execution before (which the
    index's `ttd executions` names independently of the stub)."""
    source = os.path.join(ctx.source_dir, "tests", "recorder", "programs", "threads.c")
    recorded = ctx.recorded_program(source, [], "gcc", "threads", cflags=["-pthread"],
                                    record_flags=["--quantum", "2000"])
    if not recorded:
        return SKIP
    exe, trace = recorded
    lines = open(source).read().split("\n")
    consume = next(i + 1 for i, l in enumerate(lines) if "consumed_sum += slot;" in l)
    report = next(i + 1 for i, l in enumerate(lines) if 'printf("counter' in l)
    work = next(i + 1 for i, l in enumerate(lines) if "counter += id;" in l)
    info = subprocess.run([ctx.ttd, "info", trace], capture_output=True, text=True, timeout=300).stdout

    s = ctx.server(["--once"], trace)
    out = gdb(s.address, f"break threads.c:{work}", "continue", "info threads", "delete 1",
              f"break threads.c:{report}", "continue", "monitor when", f"break threads.c:{consume}",
              "reverse-continue", "monitor when", "info threads", "p slot", "detach", pre=[f"file {exe}"])
    m_end = re.search(r"^eid (\d+) of \d+: thread 1 pc", out, re.M)
    m_hit = re.search(r"^eid (\d+) of \d+: thread 2 pc (0x[0-9a-f]+)", out, re.M)
    if not m_end or not m_hit:
        return out + "\n(no 'monitor when' answer for thread 1, then thread 2)"
    execs = subprocess.run([ctx.ttd, "executions", trace, "--pc", m_hit.group(2), "--at", m_end.group(1),
                            "--backward", "--limit", "1"], capture_output=True, text=True, timeout=300).stdout
    out = "### ttd info\n" + info + out + "### ttd executions\n" + execs
    return out, [r"^threads:\s+5$", r"^  thread 5 \(process 1\): \d+ steps",
                 # a worker (tid 3: the second thread made) hits the first
                 # breakpoint; gdb lists the threads alive then (gdb's own
                 # numbers are in order of discovery, the target ids are ours)
                 r"hit Breakpoint 1, worker", r"^\s+1\s+Thread 1\.1 ", r"^\* \d+\s+Thread 1\.3\s+worker",
                 r"^\s+\d+\s+Thread 1\.2 ",
                 r"Breakpoint 2, main \(", rf"threads\.c:{report}", r"^eid \d+ of \d+: thread 1 pc",
                 r"\[Switching to Thread 1\.2\]", rf"Thread \d+ hit Breakpoint 3, consumer \(arg=0x0\) at \S*threads\.c:{consume}",
                 r"^eid \d+ of \d+: thread 2 pc", r"^\* \d+\s+Thread 1\.2\s+consumer", r"^\$1 = 200$",
                 r"detached", rf"^EID {m_hit.group(1)}  thread 2  pc {m_hit.group(2)}( |$)"]


def gdb_aarch64_watch_timing(ctx):
    """aarch64: watchpoints fire before the access; gdb-multiarch steps over
    it itself (z2, s / bs, Z2). Values must chain in both directions."""
    recorded = ctx.recorded_loop(compiler="aarch64-linux-gnu-gcc", name="loop-aarch64")
    if not recorded or not shutil.which("gdb-multiarch"):
        return SKIP
    exe, trace = recorded
    s = ctx.server(["--once"], trace)
    cmd = ["gdb-multiarch", "-batch", "-nx", "-ex", "set pagination off", "-ex", f"file {exe}",
           "-ex", f"target remote {s.address}"]
    for c in ["break main", "continue", "watch values[0]", "continue", "continue", "reverse-continue", "x/i $pc",
              "reverse-continue", "p values[0]", "continue", "p values[0]", "continue", "p values[0]", "detach"]:
        cmd += ["-ex", c]
    out = run(cmd)
    return out, [r"Old value = 0\s+New value = 1", r"Old value = 1\s+New value = 257",
                 r"Old value = 257\s+New value = 1", r"=> 0x[0-9a-f]+ <main\+\d+>:\s+str\s",
                 r"Old value = 1\s+New value = 0", r"\$1 = 0",
                 r"Old value = 0\s+New value = 1", r"\$2 = 1",
                 r"Old value = 1\s+New value = 257", r"\$3 = 257", r"detached"]


CASES = {f.__name__: f for f in [gdb_connect_registers, gdb_step_reverse_step, gdb_breakpoint_both_ways,
                                 gdb_watchpoint_both_ways, gdb_history_boundaries, gdb_monitor_commands,
                                 gdb_memory, gdb_stdio, lldb16_connect_step, lldb16_breakpoint_watchpoint,
                                 lldb16_reverse_switch, lldb22_reverse_continue, serve_several_clients,
                                 gdb_recorded_program, lldb16_recorded_program, gdb_aarch64_watch_timing,
                                 gdb_recorded_threads]}
CASES.update(query_monitor_cases.CASES)
CASES.update(lldb_attach_cases.CASES)
CASES.update(pie_tenet_cases.CASES)
CASES.update(gdb_mi_cases.CASES)
CASES.update(serve_limits_cases.CASES)
CASES.update(exec_chain_cases.CASES)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--ttd", required=True)
    p.add_argument("--make-trace", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--source-dir", required=True)
    args = p.parse_args()
    if not shutil.which("gdb") and args.case.startswith("gdb"):
        print("gdb is not installed")
        return SKIP
    ctx = Context(args)
    try:
        result = CASES[args.case](ctx)
        if result == SKIP:
            print("skipped: debugger not installed")
            return SKIP
        output, patterns = result
        problem = expect_in_order(output, patterns)
        if problem:
            print(output)
            for s in ctx.servers:
                print("--- ttd serve stderr ---\n" + s.log())
            print(f"FAIL {args.case}: {problem}")
            return 1
        print(f"PASS {args.case}")
        return 0
    finally:
        ctx.cleanup()


if __name__ == "__main__":
    sys.exit(main())
