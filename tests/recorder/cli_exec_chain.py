"""`ttd record` through execve and with --follow-fork, end to end
(docs/recording.md, "execve and --follow-fork").

1. `ttd record -o T -- /bin/sh -c 'exec PROG hello a b'`: dash execs PROG
   itself; T is sh up to its execve, T.1.ucir is PROG. stdout is the native
   run's, stderr says where the recording went on, the summary gives PROG's
   exit status 5, and `ttd info` / `ttd index` work on each trace alone,
   `ttd info` naming its program.
2. `--follow-fork` on `sh -c 'PROG hello one; PROG hello two'`: T is sh, each
   child has T.PID.ucir (sh's fork until its execve) and T.PID.1.ucir (PROG);
   stdout is the native run's and every trace indexes.
3. `--follow-fork` on a shell loop, then `(exit 3); echo $?`: the
   subshell's summary gives its own time, not its parent's."""
import glob
import os
import re
import subprocess
import sys
import tempfile

ttd, prog = sys.argv[1], sys.argv[2]
if not os.path.exists(prog) or not os.path.exists("/bin/sh"):
    print("skip: no test program or /bin/sh")
    sys.exit(77)
env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}


def info_program(trace):
    out = subprocess.run([ttd, "info", trace], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (trace, out.stderr)
    line = next(l for l in out.stdout.splitlines() if l.startswith("program:"))
    return line.split(None, 1)[1]


def index_ok(trace):
    out = subprocess.run([ttd, "index", trace], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (trace, out.stdout, out.stderr)


with tempfile.TemporaryDirectory() as work:
    # 1. exec in the recorded process
    script = f"exec '{prog}' hello a 'b c'"
    native = subprocess.run(["/bin/sh", "-c", script], capture_output=True, env=env)
    assert native.returncode == 5 and native.stdout == b"hello from exec_chain: a b c\n", native
    trace = os.path.join(work, "sh.ucir")
    rec = subprocess.run([ttd, "record", "-o", trace, "--", "/bin/sh", "-c", script], capture_output=True,
                         env=env, timeout=300)
    assert rec.returncode == 5, rec.stderr  # the last program's status, as natively
    assert rec.stdout == native.stdout, (rec.stdout, native.stdout)
    second = os.path.join(work, "sh.1.ucir")
    err = rec.stderr.decode()
    assert f"ttd record: execve {prog}: recording goes on in {second}\n" in err, err
    assert "program exited with status 5\n" in err, err
    assert "unsupported" not in err, err
    assert info_program(trace) == "/bin/sh", info_program(trace)
    assert info_program(second) == prog, info_program(second)
    index_ok(trace)
    index_ok(second)

    # 2. --follow-fork
    forked = os.path.join(work, "forks")
    os.mkdir(forked)
    script = f"'{prog}' hello one; '{prog}' hello two"
    native = subprocess.run(["/bin/sh", "-c", script], capture_output=True, env=env)
    trace = os.path.join(forked, "sh.ucir")
    rec = subprocess.run([ttd, "record", "--follow-fork", "-o", trace, "--", "/bin/sh", "-c", script],
                         capture_output=True, env=env, timeout=300)
    assert rec.returncode == native.returncode, rec.stderr
    assert rec.stdout == native.stdout == b"hello from exec_chain: one\nhello from exec_chain: two\n", rec.stdout
    err = rec.stderr.decode()
    assert err.count("ttd record: fork: child ") == 2, err
    assert "unsupported" not in err, err
    traces = sorted(glob.glob(os.path.join(forked, "*.ucir")))
    assert len(traces) == 5, traces
    progs = [t for t in traces if t.endswith(".1.ucir")]
    assert len(progs) == 2, traces
    for t in traces:
        index_ok(t)
        assert info_program(t) == (prog if t in progs else "/bin/sh"), (t, info_program(t))
    # 3. A followed child that ends without an exec (a subshell), after its
    # parent ran ~13 M steps: the child's summary counts from its fork
    # (its wall time was once the parent's since the start, and its CPU
    # time the parent's subtracted: "emulator thread -0.00 s CPU").
    sub = os.path.join(work, "subshell")
    os.mkdir(sub)
    script = "i=0; while [ $i -lt 1000 ]; do i=$((i+1)); done; (exit 3); echo $?"
    rec = subprocess.run([ttd, "record", "--follow-fork", "-o", os.path.join(sub, "sh.ucir"), "--",
                          "/bin/sh", "-c", script], capture_output=True, env=env, timeout=300)
    err = rec.stderr.decode()
    assert rec.returncode == 0 and rec.stdout == b"3\n", (rec.stdout, err)
    child = [l for l in err.splitlines() if l.startswith("ttd record: child ")]
    parent = [l for l in err.splitlines() if l.startswith("recorded ")]
    assert len(child) == 1 and len(parent) == 1, err
    seconds = lambda line: float(re.search(r" in ([0-9.]+) s ", line).group(1))
    assert "emulator thread -" not in child[0], err
    assert seconds(child[0]) < seconds(parent[0]) / 2, err
    print("ok: exec chain and --follow-fork traces, stdout identical, every trace indexed; a subshell's summary")
