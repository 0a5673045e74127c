#!/usr/bin/env python3
"""pkey_alloc fails as on a CPU without protection keys (V8 asks). Requests every Linux file takes, on the recorder's standard streams and
on pipes: FIONBIO (libuv makes stdout non-blocking with it; node died with
"Error: open ENOTTY" when the recorder refused it), FIOCLEX/FIONCLEX; and
capget (node asks which capabilities it holds). Recorded, a Python program
prints what it prints natively.
Usage: record_stdio_ioctls.py TTD"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

ttd = sys.argv[1]
python3 = "/usr/bin/python3"
if not os.path.exists(python3):
    print("no /usr/bin/python3: skipped")
    sys.exit(77)

program = r"""
import ctypes, fcntl, os, struct, termios
def ioctl(fd, req, arg=None):
    try:
        fcntl.ioctl(fd, req, arg) if arg is not None else fcntl.ioctl(fd, req)
        return "ok"
    except OSError as e:
        return os.strerror(e.errno)
print("FIONBIO stdout", ioctl(1, termios.FIONBIO, struct.pack("i", 1)))
print("FIOCLEX stdout", ioctl(1, termios.FIOCLEX), fcntl.fcntl(1, fcntl.F_GETFD))
print("FIONCLEX stdout", ioctl(1, termios.FIONCLEX), fcntl.fcntl(1, fcntl.F_GETFD))
r, w = os.pipe()
print("FIONBIO pipe", ioctl(r, termios.FIONBIO, struct.pack("i", 1)), os.get_blocking(r))
try:
    os.read(r, 1)
except BlockingIOError:
    print("empty non-blocking pipe: EAGAIN")
print("FIONBIO off", ioctl(r, termios.FIONBIO, struct.pack("i", 0)), os.get_blocking(r))
libc = ctypes.CDLL(None, use_errno=True)
header = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)()
print("capget", libc.capget(header, data), list(data) == list(data))
mine = (ctypes.c_uint32 * 6)()
libc.capget((ctypes.c_uint32 * 2)(0x20080522, 0), mine)
print("capget again same", list(mine) == list(data))
libc.syscall.restype = ctypes.c_long
# Only on a host without protection keys is the native answer the recorder's.
if " pku " not in open("/proc/cpuinfo").read().replace("\n", " "):
    print("pkey_alloc", libc.syscall(330, 0, 0), os.strerror(ctypes.get_errno()))
bad = (ctypes.c_uint32 * 2)(0x1234, 0)
print("capget bad version", libc.capget(bad, None), hex(bad[0]))
"""
env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
with tempfile.TemporaryDirectory() as work:
    # Native stdout is a pipe too (capture), as the recorder's streams are.
    native = subprocess.run([python3, "-S", "-c", program], capture_output=True, text=True, env=env)
    p = subprocess.run([ttd, "record", "-o", os.path.join(work, "t.ucir"), "--", python3, "-S", "-c", program],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, env=env)
    check(native.returncode == 0 and "FIONBIO stdout ok" in native.stdout, "the program runs natively",
          native.stdout + native.stderr)
    check(p.returncode == 0 and p.stdout == native.stdout, "recorded, it prints what it prints natively",
          f"native {native.stdout!r}\nrecorded {p.stdout!r} {p.stderr[-300:]!r}")
    check("unsupported" not in p.stderr, "no unsupported call", p.stderr[-300:])
finish()
