#!/usr/bin/env python3
"""ttd.__version__ and Trace.steps() against the call program: the version
is the project's (CMakeLists.txt) and `ttd --version`'s; steps() yields
exactly what `ttd steps --json` prints, for the whole trace and for ranges
across chunk boundaries, stops early, and rejects bad ranges as ttd.Error.

usage: test_steps.py TTD_EXECUTABLE PROJECT_VERSION TRACE"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import ttd

TTD = VERSION = TRACE = None  # set from the command line


def cli_steps(path, start, end):
    """`ttd steps --json` as the dicts Trace.steps() yields."""
    out = subprocess.run([TTD, "steps", path, "--json", "--from", str(start), "--to", str(end)],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    steps = []
    for line in out.splitlines():
        j = json.loads(line)
        fixed = {"eid", "thread", "kind", "pc", "size", "regs", "mem"}
        steps.append({
            "eid": j["eid"], "thread": j["thread"], "kind": j["kind"], "pc": int(j["pc"], 16), "size": j["size"],
            "attrs": {k: v for k, v in j.items() if k not in fixed},
            "regs": {k: int(v, 16) for k, v in j.get("regs", {}).items()},
            "mem": [{"op": m["op"], "addr": int(m["addr"], 16), "size": m["size"],
                     "value": bytes.fromhex(m["hex"]) if "hex" in m else None} for m in j.get("mem", [])],
        })
    return steps


def without_pid(steps):
    return [{k: v for k, v in s.items() if k != "pid"} for s in steps]


class StepsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A private copy: the CLI and the module then share one index here.
        cls.dir = tempfile.mkdtemp(prefix="ttd-steps-")
        cls.path = os.path.join(cls.dir, "calls.ucir")
        shutil.copy(TRACE, cls.path)
        cls.t = ttd.open(cls.path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_version(self):
        self.assertEqual(ttd.__version__, VERSION)
        out = subprocess.run([TTD, "--version"], check=True, capture_output=True, text=True).stdout.split()
        self.assertEqual(out[-1], ttd.__version__)

    def test_whole_trace_matches_cli(self):
        n = self.t.step_count
        steps = list(self.t.steps())
        self.assertEqual([s["eid"] for s in steps], list(range(n)))
        self.assertEqual(without_pid(steps), cli_steps(self.path, 0, n))
        self.assertTrue(any(s["mem"] for s in steps) and any(s["regs"] for s in steps))
        self.assertTrue(all(isinstance(s["pid"], int) for s in steps))

    def test_ranges(self):
        n = self.t.step_count
        for start, end in [(0, 1), (5, 70), (n - 3, n), (n, n), (17, 17)]:
            with self.subTest(start=start, end=end):
                got = list(self.t.steps(start, end))
                self.assertEqual([s["eid"] for s in got], list(range(start, end)))
                self.assertEqual(without_pid(got), cli_steps(self.path, start, end))
        self.assertEqual([s["eid"] for s in self.t.steps(n - 2)], [n - 2, n - 1])
        self.assertEqual(len(list(self.t.steps(0, n + 1000))), n)  # an end past the trace stops at its end

    def test_stops_early(self):
        it = self.t.steps(3)
        self.assertIs(iter(it), it)
        self.assertEqual(next(it)["eid"], 3)
        self.assertEqual(next(it)["eid"], 4)
        for i, s in enumerate(self.t.steps()):
            if i == 10:
                break
        self.assertEqual(s["eid"], 10)

    def test_bad_ranges(self):
        n = self.t.step_count
        with self.assertRaisesRegex(ttd.Error, r"start.*past the end"):
            self.t.steps(n + 1)
        with self.assertRaisesRegex(ttd.Error, r"end.*before start"):
            self.t.steps(10, 5)
        with self.assertRaises(TypeError):
            self.t.steps(-1)


if __name__ == "__main__":
    TTD, VERSION, TRACE = sys.argv[1:4]
    unittest.main(argv=sys.argv[:1] + sys.argv[4:])
