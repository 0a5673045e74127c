"""A fork's host pid equal to the recorded process's fixed pid (--pid 4242) is not
handed to the guest (docs/recording.md, "Processes"): in a fresh pid
namespace the program makes Linux's next pid 4242, forks a child, kills it
with SIGTERM and waits. Natively the child is 4242; under `ttd record` it
is not, and the kill reaches the child instead of the recorded process.
Skipped (77) where a pid namespace cannot be made."""
import subprocess
import sys
import tempfile
import os

ttd, prog = sys.argv[1], sys.argv[2]
unshare = ["unshare", "--pid", "--fork", "--mount-proc"]
try:
    native = subprocess.run(unshare + [prog, "kill-4242"], capture_output=True, timeout=120)
except (OSError, subprocess.TimeoutExpired):
    sys.exit(77)
if native.returncode != 0 or b"child pid 4242: 1\n" not in native.stdout:
    print("no pid namespace here:", native)
    sys.exit(77)
with tempfile.TemporaryDirectory() as work:
    trace = os.path.join(work, "t.ucir")
    rec = subprocess.run(unshare + [ttd, "record", "--pid", "4242", "-o", trace, "--", prog, "kill-4242"], capture_output=True,
                         timeout=300)
    want = b"child pid 4242: 0\nkill: 0\nwaitid: 0 pid same 1 code 2 (CLD_KILLED 2) status 15\n"
    assert rec.stdout == want, (rec.stdout, rec.stderr)
    assert b"program exited with status 0\n" in rec.stderr, rec.stderr
print("ok: the recorded process's child was not pid 4242 and the kill reached it")
