"""What the Python tests of the ttd command line share (tests/export,
tests/diff): check() prints "ok" or "FAIL" per condition and remembers the
failures, finish() reports them and exits 1, ttd_runner() runs ttd with a
timeout. A script imports it through sys.path from its own location:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from cli_checks import check, finish, ttd_runner

so ctest still runs each script on its own.
"""
import subprocess
import sys

_failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        _failures.append(what)


def finish():
    """Exits 1 after naming how many checks failed; returns if none did."""
    if _failures:
        print(f"{len(_failures)} failure(s)")
        sys.exit(1)


def ttd_runner(ttd, timeout=300, text=True):
    """run(*args, **kw): ttd ARGS with its output captured (unless the caller
    redirects stdout or stderr), as text unless text=False."""
    def run(*args, **kw):
        if "stdout" not in kw and "stderr" not in kw:
            kw.setdefault("capture_output", True)
        kw.setdefault("text", text)
        return subprocess.run([ttd, *args], timeout=timeout, **kw)
    return run
