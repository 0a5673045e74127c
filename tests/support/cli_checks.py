"""The one set of check helpers of the Python tests (tests/cli, tests/dap,
tests/export, tests/diff, tests/integration_tt6, tests/install):
- check() prints "ok" or "FAIL" per condition and remembers the failures,
  finish() reports them and exits 1 (tests that go on after a failure);
- require() is check() that stops the script at once with exit 1 (tests
  whose later steps depend on the earlier ones: a DAP session);
- expect_error() requires a DAP request to be refused;
- ttd_runner() runs ttd with a timeout.
A script imports it through sys.path from its own location:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from cli_checks import check, finish, ttd_runner

so ctest still runs each script on its own.
"""
import subprocess
import sys

_failures = []
_DETAIL_CHARS = 400  # enough to see what went wrong, short enough to read


def check(cond, what, detail=""):
    """Prints the outcome; on failure also `detail` (what was seen instead)."""
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or detail == "" else ": " + str(detail)[:_DETAIL_CHARS]))
    if not cond:
        _failures.append(what)
    return bool(cond)


def require(cond, what, detail=""):
    """check(), then exit 1 at once if it failed."""
    if not check(cond, what, detail):
        sys.exit(1)


def finish():
    """Exits 1 after naming how many checks failed; returns if none did."""
    if _failures:
        print(f"{len(_failures)} failure(s)")
        sys.exit(1)


def expect_error(client, command, arguments=None, contains=None):
    """Requires `client` (a DAP client with call_raw) to answer `command`
    with an error response, whose message contains `contains` if given."""
    r = client.call_raw(command, arguments)
    ok = r.get("success") is False and (contains is None or contains in r.get("message", ""))
    shown = str(arguments) if arguments is not None else ""
    shown = shown if len(shown) <= 100 else shown[:100] + "... (%d characters)" % len(shown)
    require(ok, "%s %s -> error" % (command, shown), r.get("message"))


def ttd_runner(ttd, timeout=300, text=True):
    """run(*args, **kw): ttd ARGS with its output captured (unless the caller
    redirects stdout or stderr), as text unless text=False."""
    def run(*args, **kw):
        if "stdout" not in kw and "stderr" not in kw:
            kw.setdefault("capture_output", True)
        kw.setdefault("text", text)
        return subprocess.run([ttd, *args], timeout=timeout, **kw)
    return run
