#!/usr/bin/env python3
"""ttd.plot on recorded examples: the call timeline of recursion (every
function of the program by name, fib's calls as bars) and the write heat
map of loop's `values` (every write counted), each as PNG and SVG, both
through the functions and through `python3 -m ttd.plot`.

usage: test_plot.py OUT_DIR RECURSION_TRACE RECURSION_ELF LOOP_TRACE LOOP_ELF LOOP_WRITES"""

import os
import subprocess
import sys
import unittest

import matplotlib

matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text, so the labels can be checked
import ttd  # noqa: E402
import ttd.plot  # noqa: E402

OUT = REC = REC_ELF = LOOP = LOOP_ELF = None
WRITES = 0


def read(path):
    with open(path) as f:
        return f.read()


def symbol(elf, name):
    out = subprocess.run(["nm", "-S", elf], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[3] == name:
            return int(p[0], 16), int(p[1], 16)
    raise KeyError(name)


class PlotTest(unittest.TestCase):
    def check_png(self, path):
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", path)
        self.assertGreater(os.path.getsize(path), 2000, path)

    def test_timeline(self):
        t = ttd.open(REC)
        names = ttd.plot.elf_function_names(REC_ELF)
        self.assertIn("fib", names.values())
        svg = os.path.join(OUT, "timeline.svg")
        fig = ttd.plot.timeline(t, svg, names=names)
        labels = [x.get_text() for x in fig.axes[0].get_yticklabels()]
        self.assertIn("fib", labels)
        self.assertIn("main", labels)
        fib_calls = sum(1 for c in t.calls() if names.get(c.function_pc or c.function) == "fib")
        bars = [c for c in fig.axes[0].collections if len(c.get_paths()) == fib_calls]
        self.assertTrue(bars, f"no row with {fib_calls} bars (fib's calls)")
        text = read(svg)
        self.assertIn("<svg", text)
        self.assertIn(">fib<", text)
        png = os.path.join(OUT, "timeline.png")
        ttd.plot.timeline(t, png, names=names)
        self.check_png(png)

    def test_write_heatmap(self):
        t = ttd.open(LOOP)
        addr, length = symbol(LOOP_ELF, "values")
        png = os.path.join(OUT, "writes.png")
        fig = ttd.plot.write_heatmap(t, addr, length, png, label="values")
        self.assertEqual(fig.write_count, WRITES)
        self.check_png(png)
        heat = fig.axes[0].collections[0].get_array()
        self.assertEqual(int(heat.sum()), WRITES)  # every write is in a bin
        svg = os.path.join(OUT, "writes.svg")
        ttd.plot.write_heatmap(t, addr, length, svg)
        self.assertIn("<svg", read(svg))

    def test_command_line(self):
        env = dict(os.environ)
        out = os.path.join(OUT, "cli-timeline.svg")
        r = subprocess.run([sys.executable, "-m", "ttd.plot", "timeline", REC, "--elf", REC_ELF, "-o", out],
                           capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("<svg", read(out))
        addr, length = symbol(LOOP_ELF, "values")
        out = os.path.join(OUT, "cli-writes.png")
        r = subprocess.run([sys.executable, "-m", "ttd.plot", "heatmap", LOOP, "--range", f"{addr:#x}:{length}",
                            "-o", out], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.check_png(out)
        r = subprocess.run([sys.executable, "-m", "ttd.plot", "heatmap", LOOP, "--range", "nonsense", "-o", out],
                           capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--range", r.stderr)
        r = subprocess.run([sys.executable, "-m", "ttd.plot", "timeline", os.path.join(OUT, "missing.ucir"), "-o", out],
                           capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing.ucir", r.stderr)


if __name__ == "__main__":
    OUT, REC, REC_ELF, LOOP, LOOP_ELF, WRITES = sys.argv[1:7]
    WRITES = int(WRITES)
    os.makedirs(OUT, exist_ok=True)
    unittest.main(argv=sys.argv[:1] + sys.argv[7:])
