"""`ttd record -- /bin/sh -c 'echo a; ls DIR | sort -r; exit 3'` end to end
(docs/recording.md, "Processes"): the shell is recorded, its children run
natively; stdout is byte for byte the native run's, the summary gives the
shell's exit status 3, and `ttd info` reads the trace back."""
import os
import subprocess
import sys
import tempfile

ttd = sys.argv[1]
with tempfile.TemporaryDirectory() as listed, tempfile.TemporaryDirectory() as work:
    for name in "bac":
        with open(os.path.join(listed, name), "w") as f:
            f.write(name)
    script = f"echo a; ls {listed} | sort -r; exit 3"
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
    native = subprocess.run(["/bin/sh", "-c", script], capture_output=True, env=env)
    assert native.returncode == 3 and native.stdout == b"a\nc\nb\na\n", native
    trace = os.path.join(work, "sh.ucir")
    rec = subprocess.run([ttd, "record", "-o", trace, "--", "/bin/sh", "-c", script],
                         capture_output=True, env=env, timeout=300)
    assert rec.returncode == 3, rec.stderr  # the program's status, as natively
    assert rec.stdout == native.stdout, (rec.stdout, native.stdout)
    assert b"program exited with status 3\n" in rec.stderr, rec.stderr
    assert b"unsupported" not in rec.stderr, rec.stderr
    info = subprocess.run([ttd, "info", trace], capture_output=True, timeout=300)
    assert info.returncode == 0 and b"program:      /bin/sh" in info.stdout, info
    print("ok: stdout identical, status 3, trace readable")
