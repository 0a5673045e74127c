"""Builds the ttd Python package's extension (ttd._ttd) with the project's
CMake, for `pip install --no-build-isolation .` (metadata: pyproject.toml).

The CMake build goes to build-python/<interpreter tag> (kept, so a second
install rebuilds only what changed). Environment:
  TTD_CMAKE_ARGS   extra arguments for the CMake configure step
  TTD_BUILD_DIR    an existing, configured CMake build of this tree made for
                   this interpreter: only its ttd_python target is built
  CMAKE_BUILD_PARALLEL_LEVEL   build jobs (default: the CPU count)
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(HERE, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\s*ttd\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        sys.exit("setup.py: no `project(ttd VERSION x.y.z)` in CMakeLists.txt")
    return m.group(1)


def run(cmd, **kw):
    print("setup.py: " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        build_dir = os.environ.get("TTD_BUILD_DIR")
        if build_dir:
            build_dir = os.path.abspath(build_dir)
            if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
                sys.exit(f"setup.py: TTD_BUILD_DIR={build_dir} is not a configured CMake build")
        else:
            tag = sys.implementation.cache_tag or "python"
            build_dir = os.path.join(HERE, "build-python", tag)
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"] \
                if shutil.which("ccache") else []
            run(["cmake", "-S", HERE, "-B", build_dir, *generator, *launcher,
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DBUILD_TESTING=OFF", "-DTTD_BENCH=OFF",
                 f"-DPython_EXECUTABLE={sys.executable}",
                 *shlex.split(os.environ.get("TTD_CMAKE_ARGS", ""))])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run(["cmake", "--build", build_dir, "--target", "ttd_python", "-j", jobs])
        built = os.path.join(build_dir, "python", "ttd", "_ttd" + suffix)
        if not os.path.exists(built):
            found = os.listdir(os.path.dirname(built)) if os.path.isdir(os.path.dirname(built)) else []
            sys.exit(f"setup.py: {built} was not built (this interpreter wants the suffix {suffix}; "
                     f"the build has {found}): build for {sys.executable}, e.g. -DPython_EXECUTABLE")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)
        # The wheel gets the code, not the debug info (tens of MB).
        if shutil.which("strip"):
            run(["strip", "--strip-debug", target])


# setup.cfg puts setuptools' scratch files here; a fresh clone has no such folder.
os.makedirs(os.path.join(HERE, "build-python"), exist_ok=True)

setup(
    version=project_version(),
    ext_modules=[Extension("ttd._ttd", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
