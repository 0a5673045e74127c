"""Shared set-up for the DAP session tests: arguments, recording the
examples into traces (once per build), finding source lines by their text.
The checks are tests/support/cli_checks.py's (require, expect_error), which
importing this module puts on sys.path. Exit code 77 means "skipped" to
ctest."""
import argparse
import os
import subprocess
import sys

from dap_client import DapClient

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

SKIP = 77


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--ttd", required=True)
    p.add_argument("--examples", required=True, help="folder with the built x86-64 examples")
    p.add_argument("--sources", required=True, help="folder with the examples' C sources")
    p.add_argument("--work", required=True, help="scratch folder for traces")
    return p.parse_args()


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(SKIP)


def has_subcommand(ttd, name):
    r = subprocess.run([ttd, "--help"], capture_output=True, text=True)
    return (" " + name + " ") in r.stdout or ("\n  " + name) in r.stdout


def recorded(args, example, *program_args):
    """Records build/examples/x86_64/<example> into work/<example>.ucir once."""
    binary = os.path.join(args.examples, example)
    if not os.path.exists(binary):
        skip("example %s is not built (%s)" % (example, binary))
    if not has_subcommand(args.ttd, "record"):
        skip("this ttd has no `record` subcommand")
    os.makedirs(args.work, exist_ok=True)
    suffix = ("-" + "-".join(program_args)) if program_args else ""
    trace = os.path.join(args.work, example + suffix + ".ucir")
    if not os.path.exists(trace) or os.path.getmtime(trace) < os.path.getmtime(binary):
        tmp = "%s.%d.tmp" % (trace, os.getpid())
        r = subprocess.run([args.ttd, "record", "-o", tmp, "--", binary, *program_args], capture_output=True, text=True)
        if r.returncode not in (0, 1) or not os.path.exists(tmp):  # the examples may exit 1 on purpose
            raise SystemExit("ttd record failed (%d): %s" % (r.returncode, r.stderr))
        os.replace(tmp, trace)
    return trace, binary


def line_of(args, example, text, occurrence=1):
    """1-based line of the n-th line of examples/<example>.c containing text."""
    path = os.path.join(args.sources, example + ".c")
    seen = 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                seen += 1
                if seen == occurrence:
                    return n
    raise SystemExit("'%s' not found in %s" % (text, path))


def source_path(args, example):
    return os.path.realpath(os.path.join(args.sources, example + ".c"))


def adapter(args):
    return DapClient([args.ttd, "dap"], stderr=sys.stderr)
