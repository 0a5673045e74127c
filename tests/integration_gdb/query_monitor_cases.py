"""Integration cases for the history-query monitor commands of `ttd serve`
(tools/ttd/query_monitor.cpp): gdb runs them on the recorded loop example
at a known EID, and each answer must equal, line for line, what the ttd
CLI (`ttd history`, `executions`, `calls`, `search`) prints for the same
question at the same EID. Bad input must give an error text.

Imported by run_debugger_test.py (CASES)."""
import json
import re
import subprocess

from harness import SKIP, gdb


def _marker(i):
    return f"==q{i}=="


def _symbol(exe, name):
    """The address of a symbol of the example (nm), or None."""
    out = subprocess.run(["nm", exe], capture_output=True, text=True, timeout=60).stdout
    m = re.search(rf"^([0-9a-f]+) \w {re.escape(name)}$", out, re.M)
    return int(m.group(1), 16) if m else None


def _cli(ttd, *args):
    r = subprocess.run([ttd, *args], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"ttd {' '.join(args)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def gdb_query_monitor_matches_cli(ctx):
    recorded = ctx.recorded_loop()
    if not recorded:
        return SKIP
    exe, trace = recorded
    values, main = _symbol(exe, "values"), _symbol(exe, "main")
    if values is None or main is None:
        raise RuntimeError("nm found no 'values' or 'main' in the example")
    info = _cli(ctx.ttd, "info", trace)  # also builds the index before the server opens the trace
    steps = int(re.search(r"^steps:\s+(\d+)", info, re.M).group(1))
    main_call = json.loads(_cli(ctx.ttd, "calls", trace, "--function", f"{main:#x}", "--json").splitlines()[0])
    # A third into main, inside its loop: values[] and rax have history on both sides.
    here = main_call["entry_eid"] + (main_call["exit_eid"] - main_call["entry_eid"]) // 3
    v = f"{values:#x}"
    # (monitor command, the same question to the CLI at EID `here`)
    pairs = [
        (f"history {v} 8 w --limit 3",
         ["history", trace, "--mem", f"{v}:8", "--kind", "w", "--at", str(here), "--backward", "--limit", "3"]),
        (f"history {v}:16",
         ["history", trace, "--mem", f"{v}:16", "--at", str(here), "--backward", "--limit", "16"]),
        (f"history {v} 8 r --forward --limit 2",
         ["history", trace, "--mem", f"{v}:8", "--kind", "r", "--at", str(here), "--limit", "2"]),
        ("history --reg rax --limit 2",
         ["history", trace, "--reg", "rax", "--at", str(here), "--backward", "--limit", "2"]),
        ("history-reg rax --forward --limit 2 --json",
         ["history", trace, "--reg", "rax", "--at", str(here), "--limit", "2", "--json"]),
        (f"executions {main:#x} 0 {steps}",
         ["executions", trace, "--pc", f"{main:#x}", "--from", "0", "--to", str(steps), "--limit", "16"]),
        (f"executions {main:#x}:0x40 --resolution 1000 --limit 5",
         ["executions", trace, "--pc", f"{main:#x}:0x40", "--resolution", "1000", "--limit", "5"]),
        (f"executions {main:#x}:0x100 --count", ["executions", trace, "--pc", f"{main:#x}:0x100", "--count"]),
        ("calls --depth 2 --limit 8", ["calls", trace, "--depth", "2", "--limit", "8"]),
        ("calls --function " + f"{main:#x} --json", ["calls", trace, "--function", f"{main:#x}", "--json"]),
        ("search 636f756e74657220", ["search", trace, "--at", str(here), "--bytes", "636f756e74657220"]),
        (f"search 0100000000000000 --in {v}:2048 --json",
         ["search", trace, "--at", str(here), "--bytes", "0100000000000000", "--in", f"{v}:2048", "--json"]),
        # origin at the stub's position: the same tree as `ttd origin` there.
        ("origin rax 3", ["origin", trace, "--reg", "rax", "--at", str(here), "--depth", "3"]),
        (f"origin {v}:8 --depth 2 --json", ["origin", trace, "--mem", f"{v}:8", "--at", str(here), "--depth", "2", "--json"]),
    ]
    expected = [_cli(ctx.ttd, *cli) for _, cli in pairs]
    # The monitor says when a call listing was cut (the CLI just stops).
    calls_cut = "(the first 8 calls; --limit N for more, --from EID to start later)\n"
    cut = next(i for i, (monitor, _) in enumerate(pairs) if monitor.startswith("calls --depth 2 --limit 8"))
    expected[cut] += calls_cut if len(expected[cut].splitlines()) == 8 else ""
    # history-reg without a direction: the previous and the next write.
    prev = _cli(ctx.ttd, "history", trace, "--reg", "rax", "--at", str(here), "--backward", "--limit", "1")
    nxt = _cli(ctx.ttd, "history", trace, "--reg", "rax", "--at", str(here), "--limit", "1")
    pairs.append(("history-reg rax", None))
    expected.append(f"previous: {prev.splitlines()[0]}\nnext:     {nxt.splitlines()[0]}\n")

    s = ctx.server(["--once"], trace)
    commands = [f"monitor seek {here}", "stepi", "monitor eid"]
    for i, (monitor, _) in enumerate(pairs):
        commands += [f"echo {_marker(i)}\\n", f"monitor {monitor}"]
    commands += [f"echo {_marker(len(pairs))}\\n", "detach"]
    out = gdb(s.address, *commands, pre=[f"file {exe}"])
    patterns = [rf"^eid {here}$"]
    for i, text in enumerate(expected):
        if not text.strip():
            raise RuntimeError(f"the CLI printed nothing for {pairs[i][1]}")
        # The monitor's answer sits exactly between its markers.
        patterns.append("^" + re.escape(_marker(i) + "\n" + text) + f"(?={re.escape(_marker(i + 1))}$)")
    return out, patterns


def gdb_query_monitor_errors(ctx):
    s = ctx.server(["--once"])
    # The loop trace (make_loop_trace) has 23 steps.
    commands = ["monitor history", "monitor history 0x402000 0", "monitor history 0xffffffffffffffff 2",
                "monitor history 0x402000 8 x", "monitor history 0x402000 99999999999999999999",
                "monitor history 0x402000 --bogus",
                "monitor history-reg nosuch", "monitor history --reg rax --from 9 --to 3",
                "monitor history 0x402000 --at 99", "monitor executions", "monitor executions 0x401000 9 3",
                "monitor executions zz", "monitor calls --depth x", "monitor search 0xzz", "monitor search 123",
                "monitor search", "monitor history 0x402000 8 --limit", "monitor origin",
                "monitor origin rax 0", "monitor origin nosuch", "monitor eid", "detach"]
    out = gdb(s.address, *commands)
    return out, [r"error: history: give ADDR \[LEN\]",
                 r"error: history: ADDR LEN: empty address range \(length 0\)",
                 r"error: history: ADDR LEN: address range overflows",
                 r"error: history: kind: .*'x'",
                 r"error: history: LEN: number too large for 64 bits",
                 r"error: history: unknown option '--bogus'",
                 r"error: history: --reg: .*nosuch",
                 r"error: history: .*reversed EID window",
                 r"error: history: --at: EID 99 is out of range",
                 r"error: executions: give a PC",
                 r"error: executions: .*reversed EID window",
                 r"error: executions: PC: expected a number .*'zz'",
                 r"error: calls: --depth: expected a number",
                 r"error: search: HEX: ",
                 r"error: search: HEX: .*odd",
                 r"error: search: give the bytes",
                 r"error: history: --limit needs a value",
                 r"error: origin: give a register name or ADDR:LEN",
                 r"error: origin: depth: must be 1..256, got 0",
                 r"error: origin: reg: no register 'nosuch'",
                 r"^eid 0$"]


CASES = {f.__name__: f for f in [gdb_query_monitor_matches_cli, gdb_query_monitor_errors]}
