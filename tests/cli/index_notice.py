#!/usr/bin/env python3
"""When stderr is not a terminal, a command that has to build the index of
a large trace says so on stderr, once before and once after (no progress
bar there): a script's log then explains a quiet minute. Small traces and
reused indexes print nothing; stdout is untouched (JSON stays JSON).
TTD_INDEX_NOTICE_BYTES lowers the size from which the notice is printed.
Usage: index_notice.py TTD TRACE"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd, trace = sys.argv[1], sys.argv[2]


def run(args, notice_bytes=None):
    env = dict(os.environ)
    env.pop("TTD_INDEX_NOTICE_BYTES", None)
    if notice_bytes is not None:
        env["TTD_INDEX_NOTICE_BYTES"] = str(notice_bytes)
    return subprocess.run([ttd, *args], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


with tempfile.TemporaryDirectory() as work:
    index = os.path.join(work, "t.ttdidx")
    p = run(["info", trace, "--index", index], notice_bytes=0)
    check(p.returncode == 0, "info builds the index", p.stderr)
    check("ttd: indexing " + trace in p.stderr and "ttd: indexed in " in p.stderr,
          "a build from the notice size on is announced before and after", p.stderr)
    check("indexing" not in p.stdout, "the notice is on stderr only", p.stdout)

    p = run(["info", trace, "--index", index], notice_bytes=0)
    check(p.returncode == 0 and p.stderr == "", "a reused index prints nothing", p.stderr)

    p = run(["info", trace, "--index", index, "--rebuild"])
    check(p.returncode == 0 and "indexing" not in p.stderr,
          "a trace under the default size (256 MiB) builds without a notice", p.stderr)

    p = run(["query", trace, "--index", os.path.join(work, "q.ttdidx"), "--at", "0", "--json"], notice_bytes=0)
    try:
        json.loads(p.stdout)
        parsed = True
    except ValueError:
        parsed = False
    check(p.returncode == 0 and parsed and "ttd: indexing" in p.stderr,
          "query --json: the notice on stderr, stdout still one JSON object", p.stdout + p.stderr)
finish()
