#!/usr/bin/env python3
"""`pip install --no-build-isolation .` as docs/install.md tells it, offline:
a venv with the system site-packages (Debian's pybind11, matplotlib),
pip building through setup.py -> CMake (reusing this build tree, so the
test takes seconds), then ttd imported from the venv alone with its
version, stubs and py.typed. The venv is removed afterwards.

usage: test_pip_install.py SOURCE_DIR BUILD_DIR TRACE"""

import os
import shutil
import subprocess
import sys
import tempfile

CHECK = r"""
import os, sys
import ttd, ttd.plot
where = os.path.dirname(os.path.realpath(ttd.__file__))
assert where.startswith(os.path.realpath(sys.prefix) + os.sep), f"ttd from {where}, not the venv {sys.prefix}"
for f in ("_ttd.pyi", "py.typed", "plot.py"):
    assert os.path.exists(os.path.join(where, f)), f"{f} not installed in {where}"
t = ttd.open(sys.argv[1])
steps = list(t.steps(0, 3))
assert [s["eid"] for s in steps] == [0, 1, 2], steps
print(f"pip-installed ttd {ttd.__version__} at {where}: {t.step_count} steps")
"""


def main():
    source, build_dir, trace = (os.path.abspath(a) for a in sys.argv[1:4])
    work = tempfile.mkdtemp(prefix="ttd-pip-")
    try:
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True, timeout=300)
        py = os.path.join(venv, "bin", "python")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PIP_FIND_LINKS")}
        env["TTD_BUILD_DIR"] = build_dir
        r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-cache-dir",
                            "--disable-pip-version-check", source], env=env, cwd=work,
                           capture_output=True, text=True, timeout=1200)
        if r.returncode != 0:
            sys.stdout.write(r.stdout[-4000:] + r.stderr[-4000:])
            print("pip install failed")
            return 1
        shutil.copy(trace, os.path.join(work, "t.ucir"))
        env.pop("TTD_BUILD_DIR")
        r = subprocess.run([py, "-c", CHECK, os.path.join(work, "t.ucir")], env=env, cwd=work,
                           capture_output=True, text=True, timeout=300)
        sys.stdout.write(r.stdout + r.stderr)
        return r.returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
