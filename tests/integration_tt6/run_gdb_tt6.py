#!/usr/bin/env python3
"""gdb-multiarch attaches to `ttd serve` on a FULL PowerPC trace and steps
forwards and backwards.

The trace is the Unicorn-traced guest of tests/formats_tt6 (make_tt6_fixtures
writes it): _start is `lis r1,1` at 0x10000, then `addi r1,r1,0x1780` at
0x10004. `ttd serve` listens on 127.0.0.1 port 0 and prints the port; every
process started here is killed and reaped before exit, pass or fail.

Exit codes: 0 pass, 1 fail, 77 skip (gdb-multiarch not installed).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading

SKIP = 77
TIMEOUT = 90


def start_server(ttd, trace):
    proc = subprocess.Popen([ttd, "serve", trace], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, got = [], threading.Event()
    port = []

    def pump():
        for line in proc.stdout:
            lines.append(line)
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if m and not port:
                port.append(int(m.group(1)))
                got.set()
        got.set()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    got.wait(120)  # indexing a small trace is quick; the machine may be loaded
    return proc, t, (port[0] if port else None), lines


def stop_server(proc, thread):
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    thread.join(5)


def run_gdb(port):
    cmd = ["gdb-multiarch", "-batch", "-nx",
           "-ex", "set pagination off", "-ex", "set confirm off",
           "-ex", "set architecture powerpc:common", "-ex", "set endian big",
           "-ex", f"target remote 127.0.0.1:{port}",
           "-ex", "info registers pc",
           "-ex", "stepi",
           "-ex", "info registers pc",
           "-ex", "p/x $r1",
           "-ex", "reverse-stepi",
           "-ex", "info registers pc",
           "-ex", "x/i $pc",
           "-ex", "p/x $msr"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        out += f"\n<<gdb timed out after {TIMEOUT}s>>\n"
    return out


def expect_in_order(output, patterns):
    pos = 0
    for p in patterns:
        m = re.compile(p, re.M).search(output, pos)
        if not m:
            return f"expected /{p}/ after offset {pos}"
        pos = m.end()
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ttd", required=True)
    ap.add_argument("--make-fixtures", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if not shutil.which("gdb-multiarch"):
        print("gdb-multiarch is not installed: skipped")
        return SKIP
    os.makedirs(a.work, exist_ok=True)
    made = subprocess.run([a.make_fixtures, a.work], capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        print(made.stdout + made.stderr)
        return 1
    trace = os.path.join(a.work, "guest.full")
    for stale in os.listdir(a.work):  # a fresh index for the fresh trace
        if stale.endswith(".ttdidx"):
            os.remove(os.path.join(a.work, stale))
    proc, thread, port, server_lines = start_server(a.ttd, trace)
    try:
        if port is None:
            print("ttd serve did not print its port:\n" + "".join(server_lines))
            return 1
        out = run_gdb(port)
    finally:
        stop_server(proc, thread)
    problem = expect_in_order(out, [
        r"^pc\s+0x10000\b",                 # attached at EID 0: _start
        r"^pc\s+0x10004\b",                 # stepi
        r"^\$1 = 0x10000$",                 # lis r1,1 ran
        r"^pc\s+0x10000\b",                 # reverse-stepi
        r"=> 0x10000.*lis\s+r1,1",          # the code bytes the trace gave
        r"^\$2 = 0x2002040$",               # msr (srr1): FP, VEC, IP
    ])
    if problem:
        print("FAIL: " + problem + "\n--- gdb ---\n" + out + "\n--- ttd serve ---\n" + "".join(server_lines))
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
