#!/usr/bin/env python3
"""ttd convert --to tenet on a program recorded here (tests/diff/threshold.c):
the Tenet file read back by ttd's Tenet reader has the same steps, and at
sampled EIDs the same pc, the same value of every register the original
knows, and the same value of every stack byte it knows (Tenet carries only
memory that was accessed: bytes it does not know are not compared, bytes it
knows must be equal). Errors: an unknown --to, an unwritable output.

ttd convert --to ucir of every kind of trace the tests have that UCIR can
hold (a recording, the same as Tenet, tests/data's rvnblock trace): read
back (by convert itself, and here) with the same step count, equal state
digests at sampled EIDs for UCIR to UCIR, the same pc and registers for the
others; XRay (function events) is refused naming why; a write that fails
(file size limit, as a full disk) leaves neither the output nor a temporary
file behind.

Usage: test_convert_cli.py TTD SOURCE_DIR(tests/diff)"""
import glob
import json
import os
import resource
import signal
import shutil
import subprocess
import sys
import tempfile

TTD, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish, ttd_runner  # noqa: E402

run = ttd_runner(TTD)


def query(trace, eid, mem):
    r = run("query", trace, "--at", str(eid), "--json", "--mem", mem)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def digest(trace, eid):
    r = run("query", trace, "--at", str(eid), "--json", "--digest")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def steps_of(trace):
    info = run("info", "--verbose", trace).stdout
    return int(next(l for l in info.splitlines() if l.startswith("steps:")).split()[1])


def check_ucir(tmp, src, name, compare_digests):
    out = os.path.join(tmp, name)
    r = run("convert", src, "--to", "ucir", out)
    check(r.returncode == 0 and os.path.exists(out) and "read back and compared at" in r.stderr,
          f"{name}: convert --to ucir exits 0 and verified itself ({r.stderr.strip()})")
    if r.returncode != 0:
        return
    check("format:       ucir" in run("info", "--verbose", out).stdout, f"{name}: read back as UCIR")
    n = steps_of(src)
    check(steps_of(out) == n, f"{name}: same step count ({n}, {steps_of(out)})")
    compared = 0
    for eid in sorted(set(list(range(0, n, max(1, n // 25))) + [n - 1, n])):
        a, b = digest(src, eid), digest(out, eid)
        if a.get("pc") != b.get("pc"):
            check(False, f"{name} EID {eid}: pc {a.get('pc')} vs {b.get('pc')}")
            break
        if compare_digests and a["digest"] != b["digest"]:
            check(False, f"{name} EID {eid}: state digests differ ({a['digest']} vs {b['digest']})")
            break
        bad = [k for k, v in a["regs"].items() if v is not None and k in b["regs"] and b["regs"][k] != v]
        if bad:
            check(False, f"{name} EID {eid}: registers differ: {bad[:4]}")
            break
        compared += 1
    check(compared > 20, f"{name}: {'digests, ' if compare_digests else ''}pcs and registers equal at {compared} sampled EIDs")


def check_ucir_refusals(tmp, src):
    xray = os.path.join(tmp, "x.xray")
    shutil.copy(os.path.join(SRC, "..", "data", "xray", "fdr-v5-single-thread.xray"), xray)
    out = os.path.join(tmp, "x.ucir")
    r = run("convert", xray, "--to", "ucir", out)
    check(r.returncode == 1 and "cannot convert to UCIR" in r.stderr and "instructions only" in r.stderr
          and not os.path.exists(out), f"XRay refused clearly ({r.stderr.strip()})")
    # A full disk: the file size limit makes the writes fail (EFBIG).
    out = os.path.join(tmp, "full", "t.ucir")
    os.mkdir(os.path.dirname(out))

    def limit():  # SIGXFSZ at its default (kill): convert must ignore it itself
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
    r = run("convert", src, "--to", "ucir", out, preexec_fn=limit)
    left = os.listdir(os.path.dirname(out))
    check(r.returncode == 1 and "t.ucir: writing failed" in r.stderr and "partial file was removed" in r.stderr and left == [],
          f"a failing write: exit 1, an error, no file left ({r.returncode}, {r.stderr.strip()[:200]}, {left})")
    r = run("convert", src, "--to", "ucir", "-")
    check(r.returncode == 1 and "standard output" in r.stderr, f"ucir to stdout refused ({r.stderr.strip()})")


def main():
    tmp = tempfile.mkdtemp(prefix="ttd-convert-test-")
    try:
        cc = shutil.which("musl-gcc") or shutil.which("gcc")
        exe = os.path.join(tmp, "threshold")
        subprocess.run([cc, "-static", "-O0", "-o", exe, os.path.join(SRC, "threshold.c")], check=True)
        src = os.path.join(tmp, "t.ucir")
        assert run("record", "-o", src, "--", exe, "7", cwd=tmp).returncode == 0
        out = os.path.join(tmp, "t.tenet")
        r = run("convert", src, "--to", "tenet", out)
        check(r.returncode == 0 and os.path.exists(out), f"convert exits 0 ({r.stderr.strip()})")
        info_a, info_b = run("info", "--verbose", src).stdout, run("info", "--verbose", out).stdout
        steps = lambda s: next(l for l in s.splitlines() if l.startswith("steps:")).split()[1]
        check("format:       tenet" in info_b, "read back as Tenet")
        check(steps(info_a) == steps(info_b), f"same step count ({steps(info_a)}, {steps(info_b)})")
        n = int(steps(info_a))
        compared_regs = compared_bytes = 0
        # Sampled EIDs; the last step's effects are not in a Tenet file, so
        # the end position is not compared.
        for eid in sorted(set(list(range(0, n, max(1, n // 40))) + [n - 1])):
            a = query(src, eid, "0x7fffffffe400:0x300")
            b = query(out, eid, "0x7fffffffe400:0x300")
            if a["pc"] != b["pc"]:
                check(False, f"EID {eid}: pc {a['pc']} vs {b['pc']}")
                continue
            bad = [k for k, v in a["regs"].items() if v is not None and b["regs"].get(k) != v]
            if bad:
                check(False, f"EID {eid}: registers differ: {[(k, a['regs'][k], b['regs'].get(k)) for k in bad[:4]]}")
            compared_regs += sum(1 for v in a["regs"].values() if v is not None)
            ha, hb = a["mem"][0]["hex"], b["mem"][0]["hex"]
            for i in range(0, len(hb), 2):
                if hb[i:i + 2] != "??":
                    compared_bytes += 1
                    if ha[i:i + 2] != hb[i:i + 2]:
                        check(False, f"EID {eid}: stack byte {i // 2} differs ({ha[i:i+2]} vs {hb[i:i+2]})")
                        break
        check(compared_regs > 1000 and compared_bytes > 1000,
              f"compared {compared_regs} register values and {compared_bytes} stack bytes at sampled EIDs")

        # UCIR: a recording, the Tenet file just written, tests/data's rvnblock trace.
        check_ucir(tmp, src, "t-from-ucir.ucir", True)
        check_ucir(tmp, out, "t-from-tenet.ucir", False)
        rvn = os.path.join(tmp, "crc32.rvnblock.sqlite")
        shutil.copy(os.path.join(SRC, "..", "data", "rvnblock", "x86_64-gdb-stepi-crc32-static.rvnblock.sqlite"), rvn)
        check_ucir(tmp, rvn, "t-from-rvnblock.ucir", False)
        check_ucir_refusals(tmp, src)

        r = run("convert", src, "--to", "xml", os.path.join(tmp, "x"))
        check(r.returncode == 2 and "expected tenet" in r.stderr, "unknown --to refused")
        r = run("convert", src, "--to", "tenet", os.path.join(tmp, "no-such-dir", "x.tenet"))
        check(r.returncode == 1 and "no-such-dir" in r.stderr, "unwritable output: an error naming it")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
