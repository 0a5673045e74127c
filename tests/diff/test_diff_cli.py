#!/usr/bin/env python3
"""ttd diff on recordings made here: threshold.c (compiled now) run with
two inputs diverges at check()'s branch (with the origin, in both runs, of
the compared value), check() is reported with its differing argument (rdi)
and return value, identical recordings diff as
identical (static, and dynamically linked with the loader's rdtsc), and
traces of other programs or architectures are refused.

Usage: test_diff_cli.py TTD SOURCE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TTD, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish, ttd_runner  # noqa: E402

run = ttd_runner(TTD)


def symbol(exe, name):
    out = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise SystemExit(f"no symbol {name} in {exe}")


def main():
    tmp = tempfile.mkdtemp(prefix="ttd-diff-test-")
    try:
        cc = shutil.which("musl-gcc") or shutil.which("gcc")
        static = os.path.join(tmp, "threshold")
        subprocess.run([cc, "-static", "-O0", "-g", "-o", static, os.path.join(SRC, "threshold.c")], check=True)

        def record(exe, arg, name):
            out = os.path.join(tmp, name)
            # The same folder and argv for every recording: only the input differs.
            r = run("record", "-o", out, "--", exe, arg, cwd=tmp)
            if r.returncode != 0:
                raise SystemExit(f"ttd record {exe} {arg} failed: {r.stderr}")
            return out

        a = record(static, "3", "a.ucir")
        a2 = record(static, "3", "a2.ucir")
        b = record(static, "7", "b.ucir")

        # Two inputs: the first divergence is check()'s branch.
        r = run("diff", a, b, "--json")
        check(r.returncode == 1, f"diff of two inputs exits 1 (got {r.returncode}: {r.stderr.strip()})")
        rep = json.loads(r.stdout)
        check(not rep["identical"], "the report says different")
        div = rep["first_divergence"]
        f_check, f_main = symbol(static, "check"), symbol(static, "main")
        br = div["branch"]
        pc = int(br["pc"], 16)
        check(f_check <= pc < f_main, f"the diverging branch {br['pc']} {br['instruction']} is in check()")
        check(br["instruction"].startswith("j"), f"the branch is a conditional jump ({br['instruction']})")
        check(any(v["what"] == "eflags" for v in br["differing_inputs"]), "the branch's flags differ")
        fs = div["flags_set_by"]
        check(fs is not None and fs["instruction"].startswith("cmp"), f"the flags were set by a compare ({fs and fs['instruction']})")
        check(fs is not None and fs["eid_a"] < br["eid_a"], "the compare comes before the branch")
        check(div["eid"] == br["eid_a"] + 1, "the divergence is the step after the branch")
        # check() returned 6 in A, -1 (eax 0xffffffff) in B.
        rv = [d for d in rep["calls"]["shown"] if d["kind"] == "return-value" and d["a"]["function"] == hex(f_check)]
        check(len(rv) == 1 and rv[0]["a"]["return_value"] == "0x6" and rv[0]["b"]["return_value"] == "0xffffffff",
              f"check()'s return values differ: 6 and -1 ({rv})")
        # The compare's differing input, traced back in both runs: the
        # stack slot check() stored its argument in (3 in A, 7 in B).
        origins = div.get("origins") or []
        check(len(origins) >= 1, f"the compare's differing inputs have origins ({len(origins)})")
        if origins:
            o = origins[0]
            ra, rb = o["a"].get("root") or {}, o["b"].get("root") or {}
            check(o["eid_a"] == fs["eid_a"] and "[" in o["what"], f"origin of the compare's memory operand {o['what']}")
            check(ra.get("value") == "0x3" and rb.get("value") == "0x7", f"its values: 3 in A, 7 in B ({ra.get('value')}, {rb.get('value')})")
            step_a = ra.get("step") or {}
            check(ra.get("origin") == "write" and step_a.get("function") == "check" and "edi" in (step_a.get("insn") or ""),
                  f"written in check() from edi ({ra.get('origin')} {step_a})")
            kids = [k for k in ra.get("inputs", []) if k["location"].get("reg") == "rdi"]
            check(len(kids) == 1 and kids[0]["value"] == "0x3", f"behind it, rdi = 3 in A ({kids[:1]})")
            check(o["a"]["limits"]["depth"] <= 4, "the chain is short (depth-limited)")
        # check(3) in A, check(7) in B: the argument register and both values.
        if rv:
            args = rv[0].get("arguments") or []
            check(rv[0]["a"].get("symbol") == "check", f"the call is named check ({rv[0]['a'].get('symbol')})")
            check({"index": 0, "register": "rdi", "a": "0x3", "b": "0x7"} in args, f"argument 1 (rdi): 3 and 7 ({args})")
        t = run("diff", a, b)
        check(t.returncode == 1 and "first divergence at EID" in t.stdout and "flags set by" in t.stdout,
              "text report names the divergence and the flag setter")
        check("argument 1 (rdi): A 0x3  B 0x7" in t.stdout and "check 0x" in t.stdout,
              "text report names check() and its differing argument")
        check("came from (A, EID" in t.stdout and "came from (B, EID" in t.stdout, "text report shows both origins")
        r = run("diff", a, b, "--json", "--no-arguments", "--no-origins")
        rep2 = json.loads(r.stdout)
        check(rep2["first_divergence"]["origins"] == [] and
              all(not d.get("arguments") for d in rep2["calls"]["shown"]), "--no-arguments --no-origins leave them out")

        # The same input recorded twice: identical.
        r = run("diff", a, a2)
        check(r.returncode == 0 and r.stdout.strip().endswith("identical"), f"same input twice: identical ({r.stdout[-200:]})")

        # Dynamically linked (the loader reads rdtsc): still identical.
        gcc = shutil.which("gcc")
        if gcc:
            dyn = os.path.join(tmp, "threshold-dyn")
            subprocess.run([gcc, "-O0", "-o", dyn, os.path.join(SRC, "threshold.c")], check=True)
            d1, d2 = record(dyn, "3", "d1.ucir"), record(dyn, "3", "d2.ucir")
            r = run("diff", d1, d2, "--json")
            check(r.returncode == 0 and json.loads(r.stdout)["identical"],
                  f"dynamically linked, same input twice: identical ({r.stdout[:300]} {r.stderr})")
            # Another program: refused.
            r = run("diff", a, d1)
            check(r.returncode == 2 and "different programs" in r.stderr, f"other program refused ({r.stderr.strip()})")

        # Another architecture: refused.
        acc = shutil.which("aarch64-linux-gnu-gcc")
        if acc:
            arm = os.path.join(tmp, "threshold-aarch64")
            subprocess.run([acc, "-static", "-O0", "-o", arm, os.path.join(SRC, "threshold.c")], check=True)
            c = record(arm, "3", "arm.ucir")
            r = run("diff", a, c)
            check(r.returncode == 2 and "different architectures" in r.stderr, f"other arch refused ({r.stderr.strip()})")
        else:
            print("skip: no aarch64-linux-gnu-gcc, the architecture check is not exercised")

        r = run("diff", a, os.path.join(tmp, "missing.ucir"))
        check(r.returncode == 2 and "missing.ucir" in r.stderr, "a missing trace is an error naming it")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
