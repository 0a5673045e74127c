#!/usr/bin/env python3
"""ttd convert IN --to ucir|tenet OUT from one source format (issue 20).

Each case either converts (exit 0, convert's own read-back verification
passed, and here: the output read back with the same step count and, at
sampled EIDs, the same pc, the same step thread and the same register
values; UCIR to UCIR also equal state digests) or is refused (exit 1, a
message naming what the target cannot hold, and nothing left in the output
folder: neither OUT nor a temporary file).

  tenet      tests/fuzz/corpus/tenet's arm32 and aarch64 traces: convert to
             UCIR and to Tenet; a 3-line x86-64 trace writing fop (no UCIR
             number) is refused naming the register
  rvnblock   tests/data/rvnblock's crc32 trace: converts to UCIR and Tenet
  xray       tests/data/xray's single-thread FDR log: refused (function
             events, no instructions)
  tt6 tt6e full
             the PowerPC guest's traces (make_tt6_fixtures writes them here):
             convert to UCIR (ttd's ppc32 extension); TT6 and TT6E hold sync
             markers, refused unless --drop-events; every register and memory
             write of the source is in the output, at the output step its
             source EID maps to. Tenet (ttd's ppc32 extension: gdb's register
             names, the pc as nip): the same, except the last step's effects
  umtrace    small traces (gen_umtrace writes them here): one thread converts
             to UCIR and Tenet with --drop-events (its thread-begin/end and
             app-end steps are events, refused without it); two threads (both
             alive before the first instruction) convert to UCIR with
             --drop-events, each source thread one output thread, every write
             at its mapped step; Tenet refuses them (one thread per file)
  ucir-threads
             tests/recorder/programs/threads.c (5 threads) compiled and
             recorded here: converts to UCIR with its threads

Usage: test_convert_formats.py CASE TTD REPO_ROOT [TOOL]
  TOOL: make_tt6_fixtures (tt6, tt6e, full) or gen_umtrace (umtrace)."""
import bisect
import collections
import csv
import io
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


EVENT_KINDS = {"thread-begin", "thread-end", "context-change", "interrupt", "marker", "enter", "exit",
               "tail-exit", "custom-event", "typed-event"}


def kept_eids(src):
    """The source EIDs that are not events: output EID k is kept[k] under --drop-events."""
    rows = csv.DictReader(io.StringIO(run("export", src, "--what", "steps", "--to", "csv").stdout))
    return [int(r["eid"]) for r in rows if r["kind"] not in EVENT_KINDS]


def effects_by_output_step(trace, kept=None):
    """Counter of (output EID, what) for every register write and memory write.

    With kept (the source's non-event EIDs), a source row at EID e counts for
    the last kept EID <= e, as the converter writes an event's effects with
    the step before it; rows before the first kept EID are in the keyframe."""
    out = collections.Counter()
    for what, key in (("regs", lambda r: ("reg", r["reg"], r["value"])),
                      ("mem", lambda r: ("mem", r["op"], r["addr"], r["size"], r["value"]))):
        rows = csv.DictReader(io.StringIO(run("export", trace, "--what", what, "--to", "csv").stdout))
        for r in rows:
            if what == "mem" and r["op"] != "w":
                continue  # UCIR's reads carry no value
            e = int(r["eid"])
            if kept is not None:
                k = bisect.bisect_right(kept, e) - 1
                if k < 0:
                    continue
                e = k
            out[(e,) + key(r)] += 1
    return out


def same_effects(src, out, kept, before=None):
    """before: only output EIDs below it (Tenet cannot carry the last step's effects)."""
    a, b = effects_by_output_step(src, kept), effects_by_output_step(out)
    if before is not None:
        a = collections.Counter({k: v for k, v in a.items() if k[0] < before})
    lost, extra = a - b, b - a
    check(not lost and not extra and sum(a.values()) > 0,
          f"{os.path.basename(src)}: all {sum(a.values())} register and memory writes are in the output at the "
          f"mapped step (lost {sorted(lost)[:3]}, extra {sorted(extra)[:3]})")


def converts(src, to, outdir, digests=False, samples=24, extra=(), kept=None):
    """Converts src; checks exit 0 and compares the output with the source.

    kept: the source's non-event EIDs when events are dropped (output EID k
    is source EID kept[k]; the end maps to the end)."""
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, os.path.basename(src) + "." + to)
    r = run("convert", src, "--to", to, *extra, out)
    verified = to != "ucir" or "read back and compared at" in r.stderr
    check(r.returncode == 0 and os.path.isfile(out) and verified,
          f"{os.path.basename(src)} -> {to}: exit 0{', verified by convert' if to == 'ucir' else ''} ({r.stderr.strip()[-300:]})")
    if r.returncode != 0:
        return None
    n = steps_of(src) if kept is None else len(kept)
    check(steps_of(out) == n, f"{os.path.basename(src)} -> {to}: {n} steps read back")
    src_eid = (lambda e: e) if kept is None else (lambda e: kept[e] if e < n else steps_of(src))
    thread_map, compared = {}, 0
    # Tenet has no effects of the last step: its end position is not compared.
    last = n if to == "ucir" else n - 1
    if kept is not None and last == n and kept[-1] + 1 < steps_of(src):
        # The source's end comes after dropped events; when the first of
        # them is another thread's (UMTracer's thread ends), the source names
        # that thread and the event's pc there, for which the output has no
        # step: the end is not compared.
        a, b = state(src, kept[-1], False), state(src, kept[-1] + 1, False)
        if a.get("thread") != b.get("thread"):
            last = n - 1
    for eid in sorted(set(list(range(0, n, max(1, n // samples))) + [last])):
        a, b = state(src, src_eid(eid), digests), state(out, eid, digests)
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
    r.out = out
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
            # x87's fop has no UCIR register number: refused naming it, not
            # left out (the Tenet reader takes any register x86-64 has).
            fop = os.path.join(tmp, "fop.log")
            with open(fop, "w") as f:
                f.write("rip=0x1000,rax=0x1,rsp=0x8000\nrip=0x1004,fop=0x5\nrip=0x1008,rax=0x2\n")
            refused(fop, "ucir", os.path.join(tmp, "o1"), "cannot convert to UCIR", "EID 0 writes the register fop",
                    "no number for on x86_64")
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
            kept = kept_eids(src)
            if CASE == "full":
                check(len(kept) == steps_of(src), "guest.full has no event steps")
                r = converts(src, "ucir", out, samples=200)
                kept = None
            else:
                # TT6's sync records are markers: refused without --drop-events.
                refused(src, "ucir", os.path.join(tmp, "o1"), "cannot convert to UCIR", "is an event (marker)",
                        "--drop-events")
                r = converts(src, "ucir", out, samples=200, extra=["--drop-events"], kept=kept)
                check(r is not None and f"{steps_of(src) - len(kept)} event steps left out" in r.stderr,
                      "convert says how many events it dropped")
            if r is not None:
                same_effects(src, r.out, kept)
            # Tenet with ttd's PowerPC extension (the pc named nip on every
            # line tells a reader the architecture even without registers).
            if CASE != "full":
                refused(src, "tenet", os.path.join(tmp, "o2"), "is a marker event", "--drop-events")
            r = converts(src, "tenet", out, samples=200, extra=[] if CASE == "full" else ["--drop-events"], kept=kept)
            if r is not None:
                with open(r.out) as f:
                    first = f.readline()
                check(first.startswith("nip=") or ",nip=" in first, f"guest.{CASE} -> tenet: the pc is nip ({first[:80]!r})")
                check("architecture: ppc32" in run("info", r.out).stdout, f"guest.{CASE} -> tenet reads back as ppc32")
                n = len(kept) if kept is not None else steps_of(src)
                same_effects(src, r.out, kept, before=n - 1)
        elif CASE == "umtrace":
            src = os.path.join(tmp, "um")
            subprocess.run([TOOL, src, "1"], check=True, capture_output=True, timeout=300)
            check(steps_of(src) > 1000, "the generated UMTracer trace opens")
            refused(src, "ucir", os.path.join(tmp, "o1"), "cannot convert to UCIR", "thread-begin", "instructions only")
            refused(src, "tenet", os.path.join(tmp, "o2"), "one thread per file", "has 2")
            # Two threads, both begun by events before the first instruction:
            # thread keyframes before the first step, threads kept apart.
            kept2 = kept_eids(src)
            r = converts(src, "ucir", os.path.join(tmp, "o3"), samples=100, extra=["--drop-events"], kept=kept2)
            check(r is not None and "of 2 thread(s)" in r.stderr and "with the source EID they map to" in r.stderr,
                  f"two threads: convert's verification compared both threads' registers ({r.stderr.strip()[-200:] if r else ''})")
            if r is not None and hasattr(r, "out"):
                info = run("info", r.out).stdout
                check("threads:      2" in info, "the UCIR output has 2 threads")
                st0 = state(r.out, 0, False)
                check(st0.get("thread") is not None, "output EID 0 names its thread")
                same_effects(src, r.out, kept2)
            refused(src, "tenet", os.path.join(tmp, "o6"), "one thread per file", "has 2", "convert --to ucir keeps them")
            one = os.path.join(tmp, "um1")
            subprocess.run([TOOL, one, "1", "1"], check=True, capture_output=True, timeout=300)
            refused(one, "ucir", os.path.join(tmp, "o4"), "cannot convert to UCIR", "EID 0 is an event (thread-begin)",
                    "--drop-events")
            kept = kept_eids(one)
            check(0 < steps_of(one) - len(kept) < 10, f"the one-thread trace has a few events ({steps_of(one) - len(kept)})")
            r = converts(one, "ucir", out, samples=100, extra=["--drop-events"], kept=kept)
            check(r is not None and f"{steps_of(one) - len(kept)} event steps left out" in r.stderr
                  and "with the source EID they map to" in r.stderr, "convert says how many events it dropped and "
                  "compared output EIDs with the source EIDs they map to")
            if r is not None:
                same_effects(one, r.out, kept)
            refused(one, "tenet", os.path.join(tmp, "o5"), "EID 0 is a thread-begin event", "--drop-events")
            r = converts(one, "tenet", out, samples=100, extra=["--drop-events"], kept=kept)
            check(r is not None and f"{steps_of(one) - len(kept)} event steps left out" in r.stderr,
                  "convert --to tenet says how many events it dropped")
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
