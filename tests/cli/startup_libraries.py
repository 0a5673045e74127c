#!/usr/bin/env python3
"""Unicorn, Capstone, SQLite and libdw are opened on first use
(state/unicorn_library.h, capstone_library.h, sqlite_library.h,
dw_library.h), never at start-up.

1. `ttd query`, `ttd info` and `ttd --version` map none of libunicorn,
   libcapstone, libsqlite3 (ld.so's LD_DEBUG=files lists every object it
   loads, dlopen included); `ttd calls`, which classifies instructions,
   does map libcapstone, which shows the check sees a library opened on
   first use.
2. With the library missing ($TTD_UNICORN_LIBRARY / $TTD_CAPSTONE_LIBRARY /
   $TTD_SQLITE_LIBRARY naming a file that does not exist) `ttd record`
   fails with an error naming the library and writes no trace, and `ttd
   calls` says on stderr which library it could not open. `ttd export --to
   sqlite` writes SQLite's file format itself (docs/export.md): it needs
   no libsqlite3, maps none, and works with the library missing.
3. libdw is mapped only when a file with DWARF is read: `ttd --version`,
   `info`, and `query` symbolizing a pc with a copy of ELF whose DWARF was
   stripped (objcopy --strip-debug, made here) map no libdw; the same
   query with ELF itself does. With libdw missing ($TTD_DW_LIBRARY) that
   query still answers (same registers, the symbol from the ELF symbol
   table) and says once on stderr which library it could not open.
4. With STATIC_RUNTIME given (the build linked ttd with TTD_STATIC_RUNTIME),
   `ttd --version` and `query` map no libstdc++, libsnappy or libxxhash.
Usage: startup_libraries.py TTD TRACE ELF OBJCOPY [STATIC_RUNTIME]
  TRACE: a UCIR trace with calls; ELF: a static program with DWARF whose
  PT_LOAD segments cover the pc at EID 5 of TRACE (examples/x86_64/loop)."""
import os
import sqlite3
import subprocess
import sys
import tempfile

import json
import shutil

ttd, trace, elf_with_dwarf, objcopy = sys.argv[1:5]
static_runtime = sys.argv[5:6] == ["STATIC_RUNTIME"]
failures = []


def run(args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([ttd] + args, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def loaded_objects(args):
    p = run(args, {"LD_DEBUG": "files"})
    if p.returncode != 0:
        failures.append("ttd %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-400:]))
    names = set()
    for line in p.stderr.splitlines():
        if "file=" in line:
            names.add(line.split("file=", 1)[1].split()[0].rstrip(";"))
    if not any(n.startswith("libc.so") for n in names):
        failures.append("ttd %s: LD_DEBUG=files listed no libc; the check cannot see loads: %r"
                        % (" ".join(args), sorted(names)))
    return names


for args in (["--version"], ["info", trace], ["query", trace, "--at", "5", "--json"]):
    names = loaded_objects(args)
    heavy = sorted(n for n in names if "unicorn" in n or "capstone" in n or "sqlite" in n)
    if heavy:
        failures.append("ttd %s maps %s at start-up (link ttd_unicorn / ttd_capstone / ttd_sqlite, not the libraries)"
                        % (" ".join(args), ", ".join(heavy)))

names = loaded_objects(["calls", trace, "--json"])
if not any("capstone" in n for n in names):
    failures.append("ttd calls did not open libcapstone (LD_DEBUG=files: %r)" % sorted(names))

missing_uc = "/nonexistent-ttd-test/libunicorn.so.2"
with tempfile.TemporaryDirectory() as work:
    out = os.path.join(work, "t.ucir")
    p = run(["record", "-o", out, "--", "/bin/true"], {"TTD_UNICORN_LIBRARY": missing_uc})
    if p.returncode == 0 or missing_uc not in p.stderr or "cannot load" not in p.stderr:
        failures.append("ttd record without libunicorn: exit %d, stderr %r (want non-zero and '%s ... cannot load')"
                        % (p.returncode, p.stderr[-400:], missing_uc))
    if os.listdir(work):
        failures.append("ttd record without libunicorn left %r" % os.listdir(work))

missing_cs = "/nonexistent-ttd-test/libcapstone.so.4"
p = run(["calls", trace, "--json"], {"TTD_CAPSTONE_LIBRARY": missing_cs})
if missing_cs not in p.stderr or "cannot load" not in p.stderr:
    failures.append("ttd calls without libcapstone: exit %d, stderr %r (want '%s ... cannot load')"
                    % (p.returncode, p.stderr[-400:], missing_cs))

missing_sql = "/nonexistent-ttd-test/libsqlite3.so.0"
with tempfile.TemporaryDirectory() as work:
    out = os.path.join(work, "calls.db")
    p = run(["export", trace, "--what", "calls", "--to", "sqlite", "-o", out], {"TTD_SQLITE_LIBRARY": missing_sql})
    if p.returncode != 0:
        failures.append("ttd export --to sqlite without libsqlite3: exit %d, stderr %r (want 0: it needs no libsqlite3)"
                        % (p.returncode, p.stderr[-400:]))
    else:
        con = sqlite3.connect(out)
        check = con.execute("PRAGMA integrity_check").fetchall()
        rows = con.execute("SELECT count(*) FROM calls").fetchone()[0]
        con.close()
        if check != [("ok",)] or rows == 0:
            failures.append("ttd export --to sqlite without libsqlite3 wrote a bad database: %r, %d rows" % (check, rows))
    if os.listdir(work) != ["calls.db"]:
        failures.append("ttd export --to sqlite left %r" % os.listdir(work))
    if os.path.exists(out):
        os.remove(out)
    names = loaded_objects(["export", trace, "--what", "calls", "--to", "sqlite", "-o", out])
    if any("sqlite" in n for n in names):
        failures.append("ttd export --to sqlite maps libsqlite3: %r" % sorted(n for n in names if "sqlite" in n))

# 3. libdw only for DWARF.
for args in (["--version"], ["info", trace], ["query", trace, "--at", "5", "--json"]):
    if any("libdw" in n for n in loaded_objects(args)):
        failures.append("ttd %s maps libdw at start-up (link ttd_dw, not libdw)" % " ".join(args))
with tempfile.TemporaryDirectory() as work:
    stripped = os.path.join(work, "no-dwarf")
    shutil.copyfile(elf_with_dwarf, stripped)
    p = subprocess.run([objcopy, "--strip-debug", stripped], capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("objcopy --strip-debug failed: %s" % p.stderr[-300:])
    query = ["query", trace, "--at", "5", "--json", "--symbols"]
    names = loaded_objects(query + [stripped])
    if any("libdw" in n for n in names):
        failures.append("ttd query with a program without DWARF maps libdw: %r" % sorted(names))
    names = loaded_objects(query + [elf_with_dwarf])
    if not any("libdw" in n for n in names):
        failures.append("ttd query with a program with DWARF did not open libdw (LD_DEBUG=files: %r)" % sorted(names))

    missing_dw = "/nonexistent-ttd-test/libdw.so.1"
    with_dw = run(query + [elf_with_dwarf])
    without_dw = run(query + [elf_with_dwarf], {"TTD_DW_LIBRARY": missing_dw})
    if without_dw.returncode != 0 or missing_dw not in without_dw.stderr or "cannot load" not in without_dw.stderr:
        failures.append("ttd query without libdw: exit %d, stderr %r (want 0 and '%s ... cannot load')"
                        % (without_dw.returncode, without_dw.stderr[-400:], missing_dw))
    elif sum(missing_dw in line for line in without_dw.stderr.splitlines()) != 1:
        failures.append("ttd query without libdw: want one line naming it, got %r" % without_dw.stderr[-400:])
    else:
        a, b = json.loads(with_dw.stdout), json.loads(without_dw.stdout)
        if a["regs"] != b["regs"] or a.get("sym") != b.get("sym"):
            failures.append("ttd query without libdw answered differently: %r vs %r" % (b, a))
    # The stripped copy needs no libdw, so a missing one goes unmentioned.
    p = run(query + [stripped], {"TTD_DW_LIBRARY": missing_dw})
    if p.returncode != 0 or "libdw" in p.stderr:
        failures.append("ttd query of a program without DWARF, libdw missing: exit %d, stderr %r (want 0, silent)"
                        % (p.returncode, p.stderr[-400:]))

# 4. The static runtime.
if static_runtime:
    for args in (["--version"], ["query", trace, "--at", "5", "--json"]):
        shared = sorted(n for n in loaded_objects(args) if n.startswith(("libstdc++", "libsnappy", "libxxhash")))
        if shared:
            failures.append("ttd %s maps %s (TTD_STATIC_RUNTIME links them statically)" % (" ".join(args), shared))

for f in failures:
    print("FAIL:", f)
print("startup_libraries: %s" % ("FAILED" if failures else "ok"))
sys.exit(1 if failures else 0)
