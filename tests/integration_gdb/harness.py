"""Shared plumbing of the debugger integration tests: `ttd serve` on a
free port, debuggers run with a timeout in their own process group, the
in-order output check, and the per-case Context (traces, recorded
programs, debugger lookup). Every process started here is killed and
reaped by Context.cleanup, pass or fail."""
import os
import re
import shutil
import subprocess
import threading

SKIP = 77
DEBUGGER_TIMEOUT = 60


class Server:
    """`ttd serve` on a free port; always killed on exit."""

    def __init__(self, ttd, trace, extra=()):
        self.proc = subprocess.Popen([ttd, "serve", *extra, trace], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.stdout_lines = []
        self.stderr_lines = []
        self.port = None
        got_port = threading.Event()

        def pump(stream, sink, watch_port):
            for line in stream:
                sink.append(line)
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line) if watch_port else None
                if m:
                    self.port = int(m.group(1))
                    got_port.set()
            got_port.set()

        self.threads = [threading.Thread(target=pump, args=(self.proc.stdout, self.stdout_lines, True), daemon=True),
                        threading.Thread(target=pump, args=(self.proc.stderr, self.stderr_lines, False), daemon=True)]
        for t in self.threads:
            t.start()
        got_port.wait(60)  # indexing the tiny trace takes milliseconds; be generous on a loaded machine
        if self.port is None:
            self.stop()
            raise RuntimeError("ttd serve did not print its port:\n" + "".join(self.stdout_lines + self.stderr_lines))

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def wait_exit(self, timeout=15):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for t in self.threads:
            t.join(5)

    def log(self):
        return "".join(self.stderr_lines)


def run(cmd, timeout=DEBUGGER_TIMEOUT, stdin=None):
    """Runs a debugger; its own process group so a hang can be killed whole."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        out += f"\n<<timed out after {timeout}s>>\n"
    return out


def gdb(address, *commands, pre=()):
    cmd = ["gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off"]
    for c in pre:
        cmd += ["-ex", c]
    cmd += ["-ex", f"target remote {address}"]
    for c in commands:
        cmd += ["-ex", c]
    return run(cmd)


def lldb(binary, address, *commands, on_crash=(), exe=None, before=()):
    """lldb in batch mode, attached to address; exe: the program to load
    first; before: settings run before the file is loaded (-O)."""
    cmd = binary + ["-b", "-x"] + ([exe] if exe else [])
    for c in before:
        cmd += ["-O", c]
    cmd += ["-o", f"gdb-remote {address}"]
    for c in commands:
        cmd += ["-o", c]
    for c in on_crash:
        cmd += ["-k", c]
    return run(cmd)


def expect_in_order(output, patterns):
    """Each regex must match, each after the previous match."""
    pos = 0
    for p in patterns:
        m = re.compile(p, re.M).search(output, pos)
        if not m:
            return f"expected /{p}/ after offset {pos}"
        pos = m.end()
    return None


class Context:
    def __init__(self, args):
        self.ttd = args.ttd
        self.make_trace = args.make_trace
        self.work = os.path.join(args.work, args.case)
        self.source_dir = args.source_dir
        self.servers = []
        self.debuggers = []  # long-lived debugger sessions (gdb/MI), anything with stop()

    def trace(self):
        os.makedirs(self.work, exist_ok=True)
        path = os.path.join(self.work, "loop.ucir")
        if not os.path.exists(path):
            subprocess.run([self.make_trace, path], check=True, timeout=60)
        return path

    def long_trace(self, iterations):
        """The loop trace with `iterations` iterations (4 steps each)."""
        os.makedirs(self.work, exist_ok=True)
        path = os.path.join(self.work, f"loop-{iterations}.ucir")
        if not os.path.exists(path):
            subprocess.run([self.make_trace, path, str(iterations)], check=True, timeout=120)
        return path

    def recorded_loop(self, compiler="gcc", name="loop"):
        """examples/loop.c built static with -g and recorded with `ttd record`;
        None when the compiler or the recorder is not available."""
        return self.recorded_example("loop", ["300"], compiler, name)

    def recorded_example(self, example, args, compiler, name):
        """examples/<example>.c built static with -g -O0 by `compiler` (gcc:
        glibc, musl-gcc: musl, like the bundled examples) and recorded with
        `ttd record` running it with `args`: (executable, trace), or None
        when the compiler or the recorder is not available."""
        source = os.path.join(self.source_dir, "examples", example + ".c")
        return self.recorded_program(source, args, compiler, name)

    def recorded_program(self, source, args, compiler, name, cflags=(), record_flags=()):
        """`source` built static with -g -O0 (plus `cflags`) and recorded with
        `ttd record` (plus `record_flags`) running it with `args`."""
        if not shutil.which(compiler) or not os.path.exists(source):
            return None
        probe = subprocess.run([self.ttd, "record", "--help"], capture_output=True, timeout=60)
        if probe.returncode != 0:
            return None
        os.makedirs(self.work, exist_ok=True)
        exe = os.path.join(self.work, name)
        trace = os.path.join(self.work, "-".join([name, *args]) + ".ucir")
        subprocess.run([compiler, "-static", "-g", "-O0", "-fno-omit-frame-pointer", *cflags, "-o", exe, source],
                       check=True, timeout=120)
        rec = subprocess.run([self.ttd, "record", "-q", *record_flags, "-o", trace, "--", exe, *args],
                             capture_output=True, text=True, timeout=300)
        # `ttd record` exits with the program's status; a failed recording
        # leaves no trace.
        if not os.path.exists(trace):
            print("ttd record failed:\n" + rec.stdout + rec.stderr)
            return None
        return exe, trace

    def server(self, extra, trace=None):
        s = Server(self.ttd, trace or self.trace(), extra)
        self.servers.append(s)
        return s

    def lldb16(self):
        path = shutil.which("lldb-16")
        return [path] if path else None

    def lldb22(self):
        root = os.path.join(self.source_dir, ".deps", "lldb-22", "usr", "lib", "llvm-22", "bin", "lldb")
        wrapper = os.path.join(self.source_dir, "scripts", "lldb-22")
        if os.path.exists(root) and os.path.exists(wrapper):
            return ["bash", wrapper]
        path = shutil.which("lldb-22")
        return [path] if path else None

    def debugger(self, session):
        """Registers a long-lived debugger session so cleanup stops it."""
        self.debuggers.append(session)
        return session

    def cleanup(self):
        # Debuggers first: a debugger that still holds a connection would
        # otherwise see its server die under it.
        for d in self.debuggers:
            d.stop()
        for s in self.servers:
            s.stop()

