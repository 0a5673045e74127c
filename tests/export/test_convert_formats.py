#!/usr/bin/env python3
"""ttd convert IN --to ucir|tenet OUT from one source format (issue 20).

Each case either converts (exit 0, convert's own read-back verification
passed, and here: the output read back with the same step count and, at
sampled EIDs, the same pc, the same step thread and the same register
values; UCIR to UCIR also equal state digests) or is refused (exit 1, a
message naming what the target cannot hold, and nothing left in the output
folder: neither OUT nor a temporary file).

  tenet      tests/fuzz/corpus/tenet's arm32 and aarch64 traces: convert to
             UCIR and to Tenet
  rvnblock   tests/data/rvnblock's crc32 trace: converts to UCIR and Tenet
  xray       tests/data/xray's single-thread FDR log: refused (function
             events, no instructions)
  tt6 tt6e full
             the PowerPC guest's traces (make_tt6_fixtures writes them here):
             refused, naming ppc32 (UCIR has no Unicorn 1.x register numbers
             for it, Tenet holds x86/arm only)
  umtrace    a small two-thread trace (gen_umtrace writes it here): refused
             (its thread-begin and context-change steps are events)
  ucir-threads
             tests/recorder/programs/threads.c (5 threads) compiled and
             recorded here: converts to UCIR with its threads

Usage: test_convert_formats.py CASE TTD REPO_ROOT [TOOL]
  TOOL: make_tt6_fixtures (tt6, tt6e, full) or gen_umtrace (umtrace)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CASE, TTD, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
TOOL = sys.argv[4] if len(sys.argv) > 4 else None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish, ttd_runner  # noqa: E402

run = ttd_runner(TTD, timeout=600)


def steps_of(trace):
    info = run("info", trace).stdout
    return int(next(l for l in info.splitlines() if l.startswith("steps:")).split()[1])


def state(trace, eid, digest):
    r = run("query", trace, "--at", str(eid), "--json", *(["--digest"] if digest else []))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def converts(src, to, outdir, digests=False, samples=24):
    """Converts src; checks exit 0 and compares the output with the source."""
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, os.path.basename(src) + "." + to)
    r = run("convert", src, "--to", to, out)
    verified = to != "ucir" or "read back and compared at" in r.stderr
    check(r.returncode == 0 and os.path.isfile(out) and verified,
          f"{os.path.basename(src)} -> {to}: exit 0{', verified by convert' if to == 'ucir' else ''} ({r.stderr.strip()[-300:]})")
    if r.returncode != 0:
        return None
    n = steps_of(src)
    check(steps_of(out) == n, f"{os.path.basename(src)} -> {to}: {n} steps read back")
    thread_map, compared = {}, 0
    # Tenet has no effects of the last step: its end position is not compared.
    last = n if to == "ucir" else n - 1
    for eid in sorted(set(list(range(0, n, max(1, n // samples))) + [last])):
        a, b = state(src, eid, digests), state(out, eid, digests)
        if a.get("pc") != b.get("pc"):
            check(False, f"{to} EID {eid}: pc {a.get('pc')} vs {b.get('pc')}")
            return r
        if a.get("thread") is not None:
            # The same renumbering at every EID: one output thread per source thread.
            t = thread_map.setdefault(a["thread"], b.get("thread"))
            if t != b.get("thread") or list(thread_map.values()).count(t) != 1:
                check(False, f"{to} EID {eid}: source thread {a['thread']} is output thread {b.get('thread')}, "
                             f"earlier {t} ({thread_map})")
                return r
        if digests and a["digest"] != b["digest"]:
            check(False, f"{to} EID {eid}: state digests differ")
            return r
        bad = [k for k, v in a["regs"].items() if v is not None and k in b["regs"] and b["regs"][k] != v]
        if bad:
            check(False, f"{to} EID {eid}: registers differ: {bad[:4]}")
            return r
        compared += 1
    check(compared >= min(n, samples) // 2,
          f"{os.path.basename(src)} -> {to}: pc, step thread{', digest' if digests else ''} and registers equal at "
          f"{compared} sampled EIDs ({len(thread_map)} thread(s))")
    return r


def refused(src, to, outdir, *needles):
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "out." + to)
    r = run("convert", src, "--to", to, out)
    left = os.listdir(outdir)
    msg = r.stderr.strip()
    check(r.returncode == 1 and all(n in msg for n in needles) and left == [],
          f"{os.path.basename(src)} -> {to}: refused, exit 1, saying {needles}, nothing left "
          f"(exit {r.returncode}, {msg[:240]!r}, left {left})")


def main():
    tmp = tempfile.mkdtemp(prefix="ttd-convert-formats-")
    try:
        out = os.path.join(tmp, "out")
        if CASE == "tenet":
            for name in ["arm32_qemu_style.log", "aarch64.log"]:
                src = os.path.join(tmp, name)
                shutil.copy(os.path.join(ROOT, "tests", "fuzz", "corpus", "tenet", name), src)
                converts(src, "ucir", out)
                converts(src, "tenet", out)
        elif CASE == "rvnblock":
            src = os.path.join(tmp, "crc32.rvnblock.sqlite")
            shutil.copy(os.path.join(ROOT, "tests", "data", "rvnblock", "x86_64-gdb-stepi-crc32-static.rvnblock.sqlite"), src)
            converts(src, "ucir", out)
            converts(src, "tenet", out)
        elif CASE == "xray":
            src = os.path.join(tmp, "single.xray")
            shutil.copy(os.path.join(ROOT, "tests", "data", "xray", "fdr-v5-single-thread.xray"), src)
            refused(src, "ucir", os.path.join(tmp, "o1"), "cannot convert to UCIR", "EID 0 is an event", "instructions only")
            refused(src, "tenet", os.path.join(tmp, "o2"), "EID 0", "Tenet holds instructions only")
        elif CASE in ("tt6", "tt6e", "full"):
            fx = os.path.join(tmp, "fx")
            os.mkdir(fx)
            subprocess.run([TOOL, fx], check=True, capture_output=True, timeout=300)
            src = os.path.join(fx, "guest." + CASE)
            check(steps_of(src) > 500, f"guest.{CASE} opens")
            refused(src, "ucir", os.path.join(tmp, "o1"), "cannot convert to UCIR", "ppc32", "Unicorn 1.x")
            refused(src, "tenet", os.path.join(tmp, "o2"), "ppc32", "Tenet traces hold")
        elif CASE == "umtrace":
            src = os.path.join(tmp, "um")
            subprocess.run([TOOL, src, "1"], check=True, capture_output=True, timeout=300)
            check(steps_of(src) > 1000, "the generated UMTracer trace opens")
            refused(src, "ucir", os.path.join(tmp, "o1"), "cannot convert to UCIR", "thread-begin", "instructions only")
            refused(src, "tenet", os.path.join(tmp, "o2"), "one thread per file", "has 2")
        elif CASE == "ucir-threads":
            cc = shutil.which("gcc")
            exe = os.path.join(tmp, "threads")
            subprocess.run([cc, "-O1", "-static", "-pthread", "-o", exe,
                            os.path.join(ROOT, "tests", "recorder", "programs", "threads.c")], check=True)
            src = os.path.join(tmp, "threads.ucir")
            r = run("record", "-o", src, "--", exe, cwd=tmp)
            assert r.returncode == 0, r.stderr
            info = run("info", src).stdout
            check("threads:      5" in info, "the recording has 5 threads")
            r = converts(src, "ucir", out, digests=True)
            check(r is not None and "of 5 thread(s)" in r.stderr,
                  f"convert's verification compared the step thread and each thread's registers "
                  f"({r.stderr.strip()[-200:] if r else ''})")
            refused(src, "tenet", os.path.join(tmp, "o2"), "one thread per file", "has 5")
        else:
            print(f"unknown case {CASE}")
            sys.exit(2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
