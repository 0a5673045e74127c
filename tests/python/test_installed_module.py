#!/usr/bin/env python3
"""The ttd Python module after `cmake --install`: installs the python
component into a scratch prefix, then imports ttd from there alone (a
fresh interpreter, PYTHONPATH = the installed folder, run from outside the
build tree) and opens a trace.

usage: test_installed_module.py CMAKE BUILD_DIR PREFIX INSTALL_REL_DIR TRACE"""
import os
import shutil
import subprocess
import sys

CHECK = r"""
import os, sys
import ttd
prefix = os.path.realpath(sys.argv[1])
where = os.path.realpath(ttd.__file__)
assert where.startswith(prefix + os.sep), f"ttd imported from {where}, not from the install prefix {prefix}"
t = ttd.open(sys.argv[2])
assert t.step_count > 0 and t.arch, (t.step_count, t.arch)
c = t.cursor(0)
c.step_forward()
first = next(iter(t.executions(c.pc, 1)))
assert ttd.__version__, "no ttd.__version__"
print(f"installed ttd {ttd.__version__} at {where}: {t.format} {t.arch}, {t.step_count} steps, pc {c.pc:#x} first runs at EID {first.eid}")
"""


def main():
    cmake, build_dir, prefix, rel_dir, trace = sys.argv[1:6]
    shutil.rmtree(prefix, ignore_errors=True)
    subprocess.run([cmake, "--install", build_dir, "--prefix", prefix, "--component", "python"], check=True,
                   timeout=300)
    module_dir = os.path.join(prefix, rel_dir)
    package = os.path.join(module_dir, "ttd")
    listing = os.listdir(package) if os.path.isdir(package) else []
    installed = [f for f in listing if f.startswith("_ttd.") and f.endswith(".so")]
    if len(installed) != 1 or not {"__init__.py", "_ttd.pyi", "py.typed", "plot.py"} <= set(listing):
        print(f"expected the ttd package (one _ttd extension, __init__.py, _ttd.pyi, py.typed, plot.py) "
              f"in {package}, found {listing}")
        return 1
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = module_dir
    r = subprocess.run([sys.executable, "-c", CHECK, prefix, os.path.abspath(trace)], env=env, cwd=prefix,
                       capture_output=True, text=True, timeout=300)
    sys.stdout.write(r.stdout + r.stderr)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
