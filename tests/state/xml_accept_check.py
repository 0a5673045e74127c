#!/usr/bin/env python3
"""Serves each architecture's generated target.xml to the real gdb (13,
gdb-multiarch for non-x86) and lldb-16 through a minimal mock RSP stub, and
checks that both accept it: no XML/register warnings, the pc reads back with
the value we put in the 'g' reply, and gdb's remote register numbers and
'g' offsets equal our table's.

usage: xml_accept_check.py TEST_STATE_BINARY [arch ...]
Exit 0 on success, 1 on failure, 77 (skip) when neither debugger exists.
"""
import os
import shutil
import socket
import subprocess
import sys
import threading

ARCHES = ["x86_64", "i386", "aarch64", "arm", "mips", "ppc32"]
PC_VALUE = {"x86_64": 0x401000, "i386": 0x8048000, "aarch64": 0x400000,
            "arm": 0x10000, "mips": 0x400120, "ppc32": 0x10000100}


def dump(binary, arch, what):
    return subprocess.run([binary, "--dump-target-xml", arch, what], check=True,
                          capture_output=True, text=True).stdout


def escape(data):
    out = bytearray()
    for b in data:
        if b in b"#$}*":
            out += bytes([0x7D, b ^ 0x20])
        else:
            out.append(b)
    return bytes(out)


class Stub:
    """One-connection RSP server: just enough for a debugger to attach and
    read registers. Unknown packets get the empty reply."""

    def __init__(self, xml, layout, g_hex, triple, endian, ptrsize):
        self.xml, self.layout, self.g_hex = xml.encode(), layout, g_hex
        self.triple, self.endian, self.ptrsize = triple, endian, ptrsize
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def reply(self, p):
        if p.startswith(b"qSupported"):
            return b"PacketSize=4000;qXfer:features:read+;QStartNoAckMode+;multiprocess+"
        if p.startswith(b"qXfer:features:read:target.xml:"):
            off, ln = (int(x, 16) for x in p.split(b":")[4].split(b","))
            chunk = self.xml[off:off + ln]
            return (b"l" if off + ln >= len(self.xml) else b"m") + escape(chunk)
        if p.startswith(b"qProcessInfo") or p.startswith(b"qHostInfo"):
            # What the real stub must send for lldb to know ppc32 (its
            # <architecture> "powerpc:common" is gdb's spelling, not lldb's).
            return (b"pid:1;triple:" + self.triple.encode().hex().encode() + b";ostype:linux;endian:" +
                    self.endian.encode() + b";ptrsize:%d;" % self.ptrsize)
        if p == b"?":
            return b"T05thread:p1.1;"
        if p == b"g" or p.startswith(b"g;"):
            return self.g_hex.encode()
        if p.startswith(b"p"):
            regnum = int(p[1:].split(b";")[0], 16)
            if regnum not in self.layout:
                return b"E45"
            off, size = self.layout[regnum]
            return self.g_hex[2 * off:2 * (off + size)].encode()
        if p.startswith(b"qfThreadInfo"):
            return b"mp1.1"
        if p.startswith(b"qsThreadInfo"):
            return b"l"
        if p.startswith(b"qAttached"):
            return b"1"
        if p.startswith(b"qC"):
            return b"QCp1.1"
        if p.startswith(b"H") or p == b"QStartNoAckMode":
            return b"OK"
        if p.startswith(b"m"):
            return b"E14"
        return b""

    def serve(self):
        conn, _ = self.sock.accept()
        buf, noack = b"", False
        with conn:
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while True:
                    buf = buf.lstrip(b"+-")
                    if buf.startswith(b"\x03"):
                        buf = buf[1:]
                        self.send(conn, b"T02thread:p1.1;")
                        continue
                    i = buf.find(b"$")
                    j = buf.find(b"#", i)
                    if i < 0 or j < 0 or len(buf) < j + 3:
                        break
                    p, buf = buf[i + 1:j], buf[j + 3:]
                    if not noack:
                        conn.sendall(b"+")
                    if p.startswith(b"D") or p.startswith(b"vKill") or p == b"k":
                        self.send(conn, b"OK")
                        return
                    self.send(conn, self.reply(p))
                    if p == b"QStartNoAckMode":
                        noack = True

    @staticmethod
    def send(conn, payload):
        conn.sendall(b"$" + payload + b"#%02x" % (sum(payload) & 0xFF))


def make_stub(binary, arch):
    xml = dump(binary, arch, "xml")
    rows = [line.split() for line in dump(binary, arch, "layout").splitlines()]
    triple, endian, ptrsize, pc_name = dump(binary, arch, "triple").split()
    table = {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows}
    size = sum(int(r[3]) for r in rows)
    g = ["xx"] * size
    _, pc_off, pc_size = table[pc_name]
    for i, b in enumerate(PC_VALUE[arch].to_bytes(pc_size, "big" if endian == "big" else "little")):
        g[pc_off + i] = "%02x" % b
    layout = {regnum: (off, n) for regnum, off, n in table.values()}
    return Stub(xml, layout, "".join(g), triple, endian, int(ptrsize)), table, endian


def check_gdb(binary, arch, gdb):
    stub, table, endian = make_stub(binary, arch)
    cmd = [gdb, "-batch", "-nx"]
    if endian == "big":
        cmd += ["-ex", "set endian big"]  # a target description cannot say it
    cmd += ["-ex", "target remote 127.0.0.1:%d" % stub.port, "-ex", "info registers",
            "-ex", "maint print remote-registers"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    errors = []
    for line in out.splitlines():
        low = line.lower()
        if ("warning" in low and "no executable" not in low) or "could not" in low or "truncated" in low:
            errors.append("gdb said: " + line.strip())
    if "0x%x in ?? ()" % PC_VALUE[arch] not in out and "%#010x in ?? ()" % PC_VALUE[arch] not in out \
            and "0x%016x in ?? ()" % PC_VALUE[arch] not in out:
        errors.append("gdb did not stop at pc %#x" % PC_VALUE[arch])
    by_regnum = {regnum: (name, off) for name, (regnum, off, _) in table.items()}
    seen = 0
    for line in out.splitlines():
        f = line.split()
        if len(f) != 8 or not f[6].isdigit():
            continue
        # gdb's MIPS hides the raw registers (named '') behind pseudo ones
        # carrying the names; the raw ones keep gdb's number = our regnum.
        name = f[0] if f[0] in table else by_regnum.get(int(f[1]), ("?",))[0] if f[0] == "''" else None
        if name in table:
            regnum, off, _ = table[name]
            if int(f[6]) != regnum or int(f[7]) != off:
                errors.append("gdb puts %s at remote %s offset %s, we at %d/%d" % (name, f[6], f[7], regnum, off))
            seen += 1
    if seen != len(table):
        errors.append("gdb listed %d of our %d registers as remote" % (seen, len(table)))
    return errors


def check_lldb(binary, arch, lldb):
    stub, table, endian = make_stub(binary, arch)
    out = subprocess.run([lldb, "-b", "-o", "gdb-remote 127.0.0.1:%d" % stub.port, "-o", "register read pc"],
                         capture_output=True, text=True, timeout=60).stdout
    width = 16 if arch in ("x86_64", "aarch64") else 8
    want = "= 0x%0*x" % (width, PC_VALUE[arch])
    return [] if want in out else ["lldb register read pc: expected '%s' in:\n%s" % (want, out)]


def main():
    binary = sys.argv[1]
    arches = sys.argv[2:] or ARCHES
    gdb = shutil.which("gdb")
    gdb_multi = shutil.which("gdb-multiarch")
    lldb = shutil.which("lldb-16") or shutil.which("lldb")
    if not (gdb or gdb_multi or lldb):
        print("no gdb or lldb found; skipping")
        return 77
    failed = False
    for arch in arches:
        runs = []
        g = gdb if arch in ("x86_64", "i386") and gdb else gdb_multi
        if g:
            runs.append(("gdb", lambda: check_gdb(binary, arch, g)))
        if lldb:
            runs.append(("lldb", lambda: check_lldb(binary, arch, lldb)))
        for name, run in runs:
            errors = run()
            print("%-8s %-5s %s" % (arch, name, "ok" if not errors else "FAILED"))
            for e in errors:
                print("    " + e)
            failed |= bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
