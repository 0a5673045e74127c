"""Issue 19, symbols everywhere: on traces recorded from the bundled
examples, every pc printed by `ttd steps`, `calls`, `history` (text and
JSON) carries function+offset, main's pcs carry source:line, `ttd info`
names the program the recorder recorded, `--symbols` is checked, and the
Python module's hits carry .sym/.src when the module is built.

usage: symbols_everywhere.py TTD EXAMPLES_DIR WORK_DIR [PYTHON_MODULE_DIR]
Exit 77 (skipped) when the recorder or the examples are not built."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import require  # noqa: E402

SKIP = 77
EXAMPLES = [("linked_list",), ("recursion",), ("overrun",), ("loop", "60")]


def run(*args, ok=True):
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=300)
    if ok and r.returncode != 0:
        raise SystemExit("FAILED %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


def main():
    ttd, examples, work = sys.argv[1:4]
    pydir = sys.argv[4] if len(sys.argv) > 4 else ""
    if "record" not in run(ttd, "--help").stdout:
        print("SKIPPED: this ttd has no `record` subcommand")
        return SKIP
    os.makedirs(work, exist_ok=True)
    traces = []
    for example, *program_args in EXAMPLES:
        binary = os.path.join(examples, example)
        if not os.path.exists(binary):
            print("SKIPPED: example %s is not built" % binary)
            return SKIP
        trace = os.path.join(work, example + ".ucir")
        for stale in (trace, trace + ".ttdidx"):
            if os.path.exists(stale):
                os.remove(stale)
        r = run(ttd, "record", "-o", trace, "--", binary, *program_args, ok=False)
        require(r.returncode in (0, 1) and os.path.exists(trace), "record " + example, r.stderr)
        traces.append((example, binary, trace))

    for example, binary, trace in traces:
        # The recorder names the program; info leads with it.
        info = run(ttd, "info", trace).stdout
        require(info.splitlines()[0] == "program:      " + binary, example + ": info's first line names the program", info)
        require("format:" not in info and "index:" not in info, example + ": internals only with --verbose", info)
        verbose = run(ttd, "info", "--verbose", trace).stdout
        require("format:" in verbose and "index:" in verbose, example + ": --verbose shows the format and index", verbose)

        steps = [json.loads(l) for l in run(ttd, "steps", trace, "--json").stdout.splitlines()]
        unnamed = [s for s in steps if not s.get("sym")]
        require(steps and not unnamed, example + ": every step's pc has a symbol", unnamed[:3])
        in_main = [s for s in steps if s["sym"] == "main" or s["sym"].startswith("main+")]
        require(in_main and all(re.search(r"/%s\.c:\d+$" % example, s.get("src", "")) for s in in_main),
              example + ": main's pcs have source:line", in_main[:2])
        text = run(ttd, "steps", trace).stdout.splitlines()
        bare = [l for l in text if not re.search(r"pc 0x[0-9a-f]+ [A-Za-z_]", l)]
        require(text and not bare, example + ": text steps name every pc", bare[:3])

        calls = [json.loads(l) for l in run(ttd, "calls", trace, "--json").stdout.splitlines()]
        calls = [c for c in calls if "index" in c]
        require(calls and all(c.get("sym") for c in calls), example + ": every call names its function", calls[:3])
        require(any(c["sym"] == "main" for c in calls), example + ": main is among the calls")
        ctext = run(ttd, "calls", trace).stdout.splitlines()
        require(all(re.match(r"\s*[A-Za-z_][\w.]* \(0x[0-9a-f]+\)", l) for l in ctext), example + ": call text", ctext[:3])

        hist = [json.loads(l) for l in run(ttd, "history", trace, "--reg", "rsp", "--json").stdout.splitlines()]
        hist = [h for h in hist if "eid" in h]
        require(hist and all(h.get("sym") for h in hist), example + ": every register write names its pc", hist[:3])
        htext = [l for l in run(ttd, "history", trace, "--reg", "rsp").stdout.splitlines() if l.startswith("EID")]
        require(htext and all(re.search(r"pc 0x[0-9a-f]+ [A-Za-z_]", l) for l in htext), example + ": history text")

        main_pc = next(c["function"] for c in calls if c["sym"] == "main")
        ex = json.loads(run(ttd, "executions", trace, "--pc", main_pc, "--json", "--limit", "1").stdout.splitlines()[0])
        require(ex["sym"] == "main" and ex["src"].endswith(example + ".c:" + ex["src"].rsplit(":", 1)[1]),
              example + ": executions", ex)
        q = json.loads(run(ttd, "query", trace, "--at", str(ex["eid"]), "--json").stdout)
        require(q.get("sym") == "main", example + ": query --at names the pc", q)

    # --symbols: a copy of the program at its own load address names pcs;
    # a missing file or a bad address is an error naming the argument.
    example, binary, trace = traces[0]
    copy = os.path.join(work, "renamed-copy")
    shutil.copy(binary, copy)
    r = run(ttd, "steps", trace, "--to", "3", "--json", "--symbols", copy + "@0x400000")
    require(all(json.loads(l).get("sym") for l in r.stdout.splitlines()), "--symbols FILE@ADDR", r.stdout)
    r = run(ttd, "steps", trace, "--to", "1", "--symbols", os.path.join(work, "no-such-elf"), ok=False)
    require(r.returncode == 1 and "--symbols" in r.stderr and "no-such-elf" in r.stderr, "missing --symbols file", r.stderr)
    r = run(ttd, "steps", trace, "--to", "1", "--symbols", copy + "@zz", ok=False)
    require(r.returncode == 1 and "FILE@ADDR" in r.stderr, "bad --symbols address", r.stderr)

    if pydir and os.path.isdir(pydir):
        sys.path.insert(0, pydir)
        try:
            import ttd as ttdmod
        except ImportError as e:
            print("python module not importable (%s): its checks are skipped" % e)
        else:
            t = ttdmod.open(trace)
            calls = list(t.calls())
            require(all(c.sym for c in calls), "python calls carry sym")
            main_pc = next(c.function for c in calls if c.sym == "main")
            hits = list(t.executions(main_pc))
            require(hits and hits[0].sym == "main" and hits[0].src.endswith(example + ".c:" + hits[0].src.rsplit(":", 1)[1]),
                  "python executions carry sym/src", [(h.sym, h.src) for h in hits[:2]])
            w = next(iter(t.register_writes("rsp")))
            require(w.sym, "python register writes carry sym")
            require(t.symbol(main_pc)["sym"] == "main", "Trace.symbol")
            require(t.symbol(0x10) is None, "Trace.symbol of an unmapped pc is None")
    print("symbols everywhere: %d traces checked" % len(traces))
    return 0


if __name__ == "__main__":
    sys.exit(main())
