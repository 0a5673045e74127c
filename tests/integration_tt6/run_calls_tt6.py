#!/usr/bin/env python3
"""`ttd calls` on the PowerPC guest's TT6 and FULL traces (issue 18).

The traces hold no (TT6) or few (FULL) code bytes. With `--program` (an ELF
of the guest image, written at test time) every call is found: as many
calls of guest_mutex_unlock as `ttd executions` counts entries of it, each
returning, the one inside guest_cond_wait one level deeper. Without it the
walk must say it is incomplete (stderr warning, a last JSON line
{"incomplete": ...}) instead of a silently short list. A --program that is
not the traced program is refused with its name.

Exit codes: 0 pass, 1 fail."""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import require as check  # noqa: E402  (stops at the first failure)
from ppc_guest_files import branch_sites, make_guest_files, read_image  # noqa: E402


def run(ttd, *args):
    r = subprocess.run([ttd, *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def json_lines(out):
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def check_python(module_dir, files, unlock_pc, n):
    """The Python module: ttd.open(program=) finds the calls; without it
    the iterator's stats name the gap and exhausting it warns."""
    import warnings
    sys.path.insert(0, module_dir)
    import ttd
    t = ttd.open(files["tt6"], program=files["elf"])
    it = t.calls(function=unlock_pc)
    calls = list(it)
    check(len(calls) == n and it.stats["incomplete"] is None, "python: ttd.open(program=) finds every call", it.stats)
    check(files["elf"] in t.code_source, "python: code_source names the program", t.code_source)
    bare = ttd.open(files["tt6"])
    it = bare.calls(function=unlock_pc)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list(it)
    check(isinstance(it.stats["incomplete"], str) and it.stats["unclassified_steps"] > 0,
          "python: stats say incomplete without the program", it.stats)
    check(any(issubclass(w.category, RuntimeWarning) and "incomplete" in str(w.message) for w in caught),
          "python: exhausting the iterator warns", [str(w.message) for w in caught])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ttd", required=True)
    p.add_argument("--make-fixtures", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--python-module", help="folder holding the ttd Python module (checks ttd.open(program=))")
    a = p.parse_args()
    work = os.path.join(a.work, "calls")
    shutil.rmtree(work, ignore_errors=True)
    try:
        files, syms = make_guest_files(a.make_fixtures, work)
        base, image, _ = read_image()
        unlock_pc, wait_pc = syms["kSymGuestMutexUnlock"], syms["kSymGuestCondWait"]
        unlock = "0x%x" % unlock_pc
        sites, bctrl = branch_sites(base, image, unlock_pc)
        calls_sites = [pc for pc, _, _, link in sites if link]    # bl guest_mutex_unlock
        tail_sites = [pc for pc, _, _, link in sites if not link]  # b guest_mutex_unlock: tail calls, not calls
        check(len(calls_sites) >= 2 and len(bctrl) == 1, "the image has bl sites and one bctrl", (sites, bctrl))

        def executions(trace, pc):
            rc, out, err = run(a.ttd, "executions", trace, "--pc", "0x%x" % pc, "--json", "--limit", "1000")
            check(rc == 0, "executions of 0x%x" % pc, err)
            # TT6 writes a synchronisation marker at the pc of the mutex
            # functions before they run: count the instructions only.
            return sum(1 for r in json_lines(out) if r["kind"] == "instruction")

        for kind in ("tt6", "full"):
            trace = files[kind]
            # Expected calls: the executions of the bl sites (ttd executions
            # needs no code bytes); entries = calls + tail jumps.
            n = sum(executions(trace, pc) for pc in calls_sites)
            tails = sum(executions(trace, pc) for pc in tail_sites)
            entries = executions(trace, unlock_pc)
            check(n >= 3 and entries == n + tails, kind + ": %d bl calls + %d tail jumps = %d entries" % (n, tails, entries))
            indirect = executions(trace, bctrl[0])

            rc, out, err = run(a.ttd, "calls", trace, "--program", files["elf"], "--function", unlock, "--json")
            check(rc == 0, kind + ": calls --program exits 0", err)
            rows = json_lines(out)
            check(not any("incomplete" in r for r in rows), kind + ": complete with --program", rows[-1:])
            check(len(rows) == n, kind + ": calls --program finds every call (%d)" % n, (len(rows), rows))
            check(all(r["exit"] == "return" for r in rows), kind + ": every call returns", rows)
            for r in rows:  # _start -> guest_main (depth 0) -> [guest_cond_wait] -> guest_mutex_unlock
                inside_wait = wait_pc < int(r["call_site"], 16) < wait_pc + 0x50  # guest_cond_wait's body
                check(r["depth"] == (2 if inside_wait else 1), kind + ": depth of the call at " + r["call_site"], r)
            check("code bytes from" in err and files["elf"] in err, kind + ": says where code bytes come from", err)

            rc, out, err = run(a.ttd, "calls", trace, "--program", files["elf"], "--json")
            rows = json_lines(out)
            via_ctr = [r for r in rows if r.get("call_site") == "0x%x" % bctrl[0]]
            check(rc == 0 and indirect == 6 and len(via_ctr) == indirect, kind + ": bctrl calls through the table", via_ctr)

            rc, out, err = run(a.ttd, "calls", trace, "--function", unlock, "--json")
            check(rc == 0, kind + ": calls without --program exits 0", err)
            rows = json_lines(out)
            inc = [r["incomplete"] for r in rows if "incomplete" in r]
            check(len(inc) == 1 and "incomplete" in rows[-1], kind + ": without --program the last JSON line says incomplete", rows)
            check(inc[0]["unclassified_steps"] > 0 and "--program" in inc[0]["reason"],
                  kind + ": names the unclassified steps and the remedy", inc[0])
            check("warning: incomplete" in err, kind + ": warns on stderr", err)

            rc, out, err = run(a.ttd, "calls", trace, "--function", unlock)
            check(rc == 0 and "incomplete" in err, kind + ": text output warns too", err)

        if a.python_module:
            check_python(a.python_module, files, unlock_pc, n)

        rc, out, err = run(a.ttd, "calls", files["tt6"], "--program", files["full"])
        check(rc != 0 and files["full"] in err and "ELF" in err, "a --program that is not an ELF is refused by name", err)
        rc, out, err = run(a.ttd, "calls", files["tt6"], "--program", os.path.join(work, "missing.elf"))
        check(rc != 0 and "missing.elf" in err, "a missing --program is refused by name", err)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("calls on TT6/FULL passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
