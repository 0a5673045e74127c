#!/usr/bin/env python3
"""`cmake --install` into a scratch prefix, then what a user and another
C++ program get from it:
  - bin/ttd stripped, with a .gnu_debuglink; its debug info under
    lib/debug/.build-id/ (the build id), where gdb finds function lines;
  - man pages for ttd and every subcommand (`man ttd-query` via PATH), bash
    completion that completes subcommands and options (zsh: syntax, when
    zsh is installed);
  - a consumer program (tests/install/consumer) built against the prefix
    with find_package(ttd) and with pkg-config, opening a trace and giving
    the answer `ttd steps` gives.
The prefix and the consumer builds are removed afterwards.

usage: test_install.py CMAKE BUILD_DIR SOURCE_DIR CXX WORK_DIR TRACE"""

import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402


def run(cmd, **kw):
    kw.setdefault("timeout", 600)
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    cmake, build, source, cxx, work, trace = sys.argv[1:7]
    prefix = os.path.join(work, "prefix")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        for comp in ("Unspecified", "debug", "devel"):
            r = run([cmake, "--install", build, "--prefix", prefix, "--component", comp])
            check(r.returncode == 0, f"cmake --install --component {comp}: {r.stderr.strip()[-500:]}")
        check_runtime(prefix, work)
        check_consumers(cmake, source, cxx, prefix, work, trace)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    finish()
    print("install: 0 failures")
    return 0


def check_runtime(prefix, work):
    ttd = os.path.join(prefix, "bin", "ttd")
    sections = run(["readelf", "-S", ttd]).stdout
    check(".debug_info" not in sections, "bin/ttd has no .debug_info (stripped)")
    check(".gnu_debuglink" in sections, "bin/ttd has a .gnu_debuglink")
    bid = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", run(["readelf", "-n", ttd]).stdout)
    debug = os.path.join(prefix, "lib", "debug", ".build-id", bid.group(1), bid.group(2) + ".debug") if bid else ""
    check(bool(debug) and os.path.exists(debug), f"debug info at {debug or '(no build id)'}")
    if shutil.which("gdb") and debug:
        # The directory first: gdb looks for the debug file when it loads the executable.
        r = run(["gdb", "-batch", "-nx", "-ex", f"set debug-file-directory {prefix}/lib/debug",
                 "-ex", f"file {ttd}", "-ex", "info line main"])
        check(re.search(r"Line \d+ of \".*main\.cpp\"", r.stdout) is not None,
              f"gdb finds main's source line through the debug file: {r.stdout.strip()[:200]}")
    r = run([ttd, "--version"])
    check(r.returncode == 0 and r.stdout.startswith("ttd "), "installed ttd runs")

    subcommands = re.findall(r"^  (\w+)\s{2,}", run([ttd, "--help"]).stdout.split("Subcommands:")[1], re.M)
    man_dir = os.path.join(prefix, "share", "man", "man1")
    missing = [s for s in ["ttd"] + [f"ttd-{c}" for c in subcommands]
               if not os.path.exists(os.path.join(man_dir, s + ".1"))]
    check(len(subcommands) >= 5 and not missing, f"a man page per subcommand ({len(subcommands)}), missing {missing}")
    env = dict(os.environ, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ["PATH"], MANPAGER="cat",
               MANWIDTH="100")
    env.pop("MANPATH", None)
    r = run(["man", "-w", "ttd-query"], env=env)
    check(r.stdout.strip() == os.path.join(man_dir, "ttd-query.1"), f"man -w ttd-query: {r.stdout.strip()} {r.stderr.strip()}")
    r = run(["man", "ttd-query"], env=env)
    check(r.returncode == 0 and "--at" in r.stdout and "OPTIONS" in r.stdout, "man ttd-query shows --at")

    bash = os.path.join(prefix, "share", "bash-completion", "completions", "ttd")
    script = (f"source {bash}\n"
              "COMP_WORDS=(ttd qu); COMP_CWORD=1; _ttd; echo \"1:${COMPREPLY[*]}\"\n"
              "COMP_WORDS=(ttd query --re); COMP_CWORD=2; _ttd; echo \"2:${COMPREPLY[*]}\"\n")
    out = run(["bash", "-c", script]).stdout
    check("1:query" in out and re.search(r"2:.*--reg", out) is not None, f"bash completion: {out.strip()}")
    zsh_file = os.path.join(prefix, "share", "zsh", "site-functions", "_ttd")
    check(os.path.exists(zsh_file), "zsh completion installed")
    if shutil.which("zsh"):
        r = run(["zsh", "-n", zsh_file])
        check(r.returncode == 0, f"zsh -n _ttd: {r.stderr.strip()}")
    else:
        print("skip: zsh is not installed: the zsh completion's syntax is not checked")


def check_consumers(cmake, source, cxx, prefix, work, trace):
    ttd = os.path.join(prefix, "bin", "ttd")
    local = os.path.join(work, "t.ucir")
    shutil.copy(trace, local)
    steps = json.loads(run([ttd, "info", "--json", local]).stdout)["steps"]
    step = json.loads(run([ttd, "steps", local, "--json", "--from", str(steps // 2), "--to", str(steps // 2 + 1)]).stdout)
    want = f"steps {steps} arch x86_64 eid {steps // 2} pc {step['pc']}"

    consumer = os.path.join(source, "tests", "install", "consumer")
    cbuild = os.path.join(work, "consumer-cmake")
    r = run([cmake, "-S", consumer, "-B", cbuild, f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_CXX_COMPILER={cxx}",
             "-DCMAKE_BUILD_TYPE=Release"])
    check(r.returncode == 0, f"configure a consumer with find_package(ttd): {r.stdout[-800:]}{r.stderr[-1500:]}")
    r = run([cmake, "--build", cbuild])
    check(r.returncode == 0, f"build it: {r.stdout[-1500:]}{r.stderr[-800:]}")
    r = run([os.path.join(cbuild, "consumer"), local])
    check(r.stdout.strip() == want, f"find_package consumer says '{r.stdout.strip()}{r.stderr.strip()}', want '{want}'")

    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "ttd"], env=env)
    check(flags.returncode == 0 and f"-I{prefix}/include/ttd" in flags.stdout, f"pkg-config ttd: {flags.stdout}{flags.stderr}")
    exe = os.path.join(work, "consumer-pc")
    r = run([cxx, "-std=c++20", "-O1", os.path.join(consumer, "main.cpp"), "-o", exe, *flags.stdout.split()])
    check(r.returncode == 0, f"build a consumer with pkg-config: {r.stderr[-1500:]}")
    r = run([exe, local])
    check(r.stdout.strip() == want, f"pkg-config consumer says '{r.stdout.strip()}{r.stderr.strip()}', want '{want}'")
    r = run([exe, os.path.join(work, "missing.ucir")])
    check(r.returncode == 1 and "missing.ucir" in r.stderr, "the consumer gets the engine's error as a value")


if __name__ == "__main__":
    sys.exit(main())
