#!/usr/bin/env python3
"""ttd export on a program recorded here (tests/diff/threshold.c): every
--what in JSON Lines, CSV and SQLite agrees with the others and with the
trace; windows; and output that cannot be completed - a file over the size
limit (RLIMIT_FSIZE), a full tmpfs when one can be mounted, /dev/full as
stdout, a closed pipe - stops with an error naming the output and leaves
no file (and no temporary file) behind.

Usage: test_export_cli.py TTD SOURCE_DIR(tests/diff)"""
import csv
import io
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile

TTD, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish, ttd_runner  # noqa: E402

run = ttd_runner(TTD, text=False)


def main():
    tmp = tempfile.mkdtemp(prefix="ttd-export-test-")
    mounted = None
    try:
        cc = shutil.which("musl-gcc") or shutil.which("gcc")
        exe = os.path.join(tmp, "threshold")
        subprocess.run([cc, "-static", "-O0", "-o", exe, os.path.join(SRC, "threshold.c")], check=True)
        trace = os.path.join(tmp, "t.ucir")
        r = run("record", "-o", trace, "--", exe, "7", cwd=tmp)
        assert r.returncode == 0, r.stderr
        info = run("info", trace, text=True).stdout
        steps = int(next(l for l in info.splitlines() if l.startswith("steps:")).split()[1])

        rows = {}
        for what in ["steps", "mem", "regs", "calls", "syscalls"]:
            j = run("export", trace, "--what", what, "--to", "jsonl", text=True)
            check(j.returncode == 0, f"{what} jsonl exits 0 ({j.stderr.strip()})")
            jrows = [json.loads(l) for l in j.stdout.splitlines()]
            c = run("export", trace, "--what", what, "--to", "csv", text=True)
            crows = list(csv.DictReader(io.StringIO(c.stdout)))
            db = os.path.join(tmp, what + ".db")
            s = run("export", trace, "--what", what, "--to", "sqlite", "-o", db, text=True)
            check(s.returncode == 0, f"{what} sqlite exits 0 ({s.stderr.strip()})")
            con = sqlite3.connect(db)
            srows = con.execute(f"SELECT * FROM {what} ORDER BY rowid").fetchall()
            meta = dict(con.execute("SELECT key, value FROM export_info").fetchall())
            idx = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name=?", (what,))]
            pk = [r[1] for r in con.execute(f"PRAGMA table_info({what})") if r[5]]
            con.close()
            check(len(jrows) == len(crows) == len(srows) > 0, f"{what}: {len(jrows)} rows in each format")
            check(meta.get("complete") == "1" and meta.get("rows") == str(len(srows)), f"{what}: export_info says complete")
            check(len(idx) >= 1, f"{what}: SQLite has its indexes ({idx})")
            # steps and syscalls: eid is the rowid (lookups by EID need no index)
            check(pk == (["eid"] if what in ("steps", "syscalls") else []), f"{what}: primary key {pk}")
            # Every row, in order, holds what JSON Lines says (the writer
            # inserts rows in batches, the last one partial).
            def same(sv, jv):
                if isinstance(jv, (dict, list)):
                    return True  # nested JSON (attrs): text in SQLite
                if isinstance(jv, int) and isinstance(sv, int):
                    return (sv - jv) % (1 << 64) == 0  # unsigned above 2^63-1 is stored two's complement
                return sv == jv
            bad = next((i for i, (sr, jr) in enumerate(zip(srows, jrows))
                        if len(sr) != len(jr) or not all(same(sv, jv) for sv, jv in zip(sr, jr.values()))), None)
            check(bad is None, f"{what}: SQLite rows equal the JSON Lines rows" +
                  ("" if bad is None else f" (row {bad}: {srows[bad]} vs {jrows[bad]})"))
            if jrows and crows:
                first = jrows[0]
                check(all(str(first[k] if first[k] is not None else "") == crows[0][k] for k in first),
                      f"{what}: first row equal in JSON Lines and CSV")
            rows[what] = jrows

        check(len(rows["steps"]) == steps and rows["steps"][-1]["eid"] == steps - 1, "steps: one row per step")
        check(all(r["kind"] in ("instruction", "syscall") for r in rows["steps"]), "steps: kinds named")
        check(all(r["value"] is None or all(c in "0123456789abcdef" for c in r["value"]) for r in rows["mem"]),
              "mem: values are hex bytes or null")
        check(all(r["value"].startswith("0x") for r in rows["regs"]), "regs: values are hex numbers")
        sc = rows["syscalls"]
        check(any(r["number"] == 1 or r["number"] == 20 for r in sc), "syscalls: write/writev is there")
        check(all(r["result"] is None or isinstance(r["result"], int) for r in sc), "syscalls: signed results")
        check(any(r["return_i32"] == -1 for r in rows["calls"]), "calls: check() returned -1 (return_i32)")

        # Windows: --to EID / --until, --from.
        w = run("export", trace, "--what", "steps", "--from", "10", "--to", "20", "--to", "csv", text=True)
        wrows = list(csv.DictReader(io.StringIO(w.stdout)))
        check(w.returncode == 0 and [int(r["eid"]) for r in wrows] == list(range(10, 20)), "--from 10 --to 20: EIDs 10..19")
        w = run("export", trace, "--from", "5", "--until", "7", text=True)
        check([json.loads(l)["eid"] for l in w.stdout.splitlines()] == [5, 6], "--until is the end EID")
        bad = run("export", trace, "--to", "parquet", text=True)
        check(bad.returncode == 2 and "parquet" in bad.stderr, "unknown format refused")
        bad = run("export", trace, "--what", "pages", text=True)
        check(bad.returncode == 2 and "--what" in bad.stderr, "unknown --what refused")
        bad = run("export", trace, "--to", "sqlite", text=True)
        check(bad.returncode == 2 and "SQLite output needs a file" in bad.stderr, "sqlite to stdout refused")
        bad = run("export", trace, "--from", str(steps + 5), text=True)
        check(bad.returncode != 0 and bad.stderr, "a window past the end is an error")

        def leftovers(folder, stem):
            return [f for f in os.listdir(folder) if f.startswith(stem)]

        # A file that cannot be completed (RLIMIT_FSIZE: EFBIG, as a full disk
        # gives ENOSPC) is removed, temporary file included.
        def limited():
            resource.setrlimit(resource.RLIMIT_FSIZE, (8 * 1024, 8 * 1024))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        for fmt in ["jsonl", "csv", "sqlite"]:
            out = os.path.join(tmp, "big." + fmt)
            r = run("export", trace, "--what", "mem", "--to", fmt, "-o", out, text=True, preexec_fn=limited)
            check(r.returncode == 1 and out in r.stderr, f"{fmt} over the size limit: exit 1 naming the file ({r.stderr.strip()})")
            check(leftovers(tmp, "big.") == [], f"{fmt} over the size limit: no file left ({leftovers(tmp, 'big.')})")

        # A full tmpfs, when this machine lets us mount one.
        mnt = os.path.join(tmp, "small")
        os.mkdir(mnt)
        if os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                                                capture_output=True).returncode == 0:
            mounted = mnt
            for fmt in ["jsonl", "sqlite"]:
                out = os.path.join(mnt, "full." + fmt)
                r = run("export", trace, "--what", "mem", "--to", fmt, "-o", out, text=True)
                check(r.returncode == 1 and out in r.stderr, f"{fmt} on a full tmpfs: exit 1 naming the file ({r.stderr.strip()})")
                check(os.listdir(mnt) == [], f"{fmt} on a full tmpfs: nothing left ({os.listdir(mnt)})")
        else:
            print("skip: cannot mount a tmpfs here; the size-limit cases stand in for a full disk")

        # stdout on /dev/full, and a pipe closed by its reader.
        with open("/dev/full", "w") as full:
            r = run("export", trace, "--what", "mem", stdout=full, stderr=subprocess.PIPE, text=True)
        check(r.returncode == 1 and "stdout" in r.stderr and "No space" in r.stderr, f"/dev/full: exit 1 naming stdout ({r.stderr.strip()})")
        p = subprocess.Popen(f"'{TTD}' export '{trace}' --what mem | head -1 >/dev/null; echo ${{PIPESTATUS[0]}}",
                             shell=True, executable="/bin/bash", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = p.communicate(timeout=300)
        check(out.strip() == "1" and "Broken pipe" in err, f"closed pipe: exit 1, 'Broken pipe' ({out.strip()}, {err.strip()})")
        # An existing non-regular output is refused, not replaced.
        r = run("export", trace, "-o", tmp, text=True)
        check(r.returncode == 1 and "not a regular file" in r.stderr, "a folder as output is refused")
    finally:
        if mounted:
            subprocess.run(["umount", mounted])
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
