"""gdb/MI cases: `gdb --interpreter=mi` driven the way IDEs drive it (VS Code's
C/C++ extension, CLion, Eclipse CDT): one tokenized command at a time, an
execution command being complete at its *stopped record. The checks are on
the MI records themselves (reason, bkptno, frame addr / func / line, watch
values), not on console text.

gdb 13 prints the start or end of history as a *stopped record *without* a
reason (gdb bug 29260, fixed in gdb 14, where it is reason="no-history");
the console stream still says "No more reverse-execution history.", so the
checks accept both.
"""
import os
import queue
import re
import signal
import subprocess
import threading

from harness import DEBUGGER_TIMEOUT, SKIP


class MiSession:
    """One `gdb --interpreter=mi` process, its own process group; stop() kills
    and reaps it. The transcript has a `### COMMAND` header per command, then
    every record gdb printed for it (prompts left out)."""

    def __init__(self):
        self.proc = subprocess.Popen(["gdb", "--interpreter=mi", "-nx", "-q"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                                     start_new_session=True)
        self.lines = queue.Queue()
        self.transcript = []
        self.token = 0
        self.reader = threading.Thread(target=self._pump, daemon=True)
        self.reader.start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # gdb exited

    def _next_line(self, timeout):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"gdb printed nothing for {timeout}s")
        if line is None:
            raise EOFError("gdb exited")
        if line != "(gdb) ":
            self.transcript.append(line)
        return line

    def command(self, text, timeout=DEBUGGER_TIMEOUT):
        """Sends one MI command and waits for its result record; for ^running
        also for the *stopped record that ends the run, as an IDE would before
        it sends the next one. Failures end up in the transcript, where the
        pattern check reports them."""
        self.token += 1
        self.transcript.append(f"### {text}")
        try:
            self.proc.stdin.write(f"{self.token}{text}\n")
            self.proc.stdin.flush()
            result = f"{self.token}^"
            while True:
                line = self._next_line(timeout)
                if line.startswith(result):
                    # the token only pairs reply and command; checks read ^done...
                    self.transcript[-1] = line[len(result) - 1:]
                    break
            if line.startswith(result + "running"):
                while not self._next_line(timeout).startswith("*stopped"):
                    pass
        except (TimeoutError, EOFError, BrokenPipeError) as e:
            self.transcript.append(f"<<{text}: {e}>>")

    def output(self):
        return "\n".join(self.transcript) + "\n"

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("-gdb-exit\n")
                self.proc.stdin.flush()
                self.proc.wait(10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.reader.join(5)


def after(command, record):
    """A regex: `record` at the start of one of the lines printed for `command` (the next
    `### COMMAND` section in the transcript), not in a later section."""
    return r"^### " + re.escape(command) + r"\n(?:(?!### ).*\n)*?" + record


def stopped(reason, addr=None, func=None, line=None, extra=""):
    """A regex for a *stopped record. reason None = the history boundary,
    which gdb 13 reports without a reason (see the module comment)."""
    r = r"\*stopped,"
    r += r'(?:reason="no-history",)?' if reason is None else f'reason="{reason}",'
    r += extra
    r += r".*?frame=\{"
    if addr is not None:
        r += f'addr="0x{addr:016x}",'
    if func is not None:
        r += f'.*?func="{func}"'
    if line is not None:
        r += f'.*?line="{line}"'
    return r


def history_boundary(command, addr=None, func=None):
    """The console notice and then the reasonless (gdb 13) *stopped record."""
    return after(command, r'~"\\nNo more reverse-execution history\.\\n"\n(?:(?!### ).*\n)*?'
                 + stopped(None, addr, func))


def mi_session(ctx, address, exe=None):
    mi = ctx.debugger(MiSession())
    mi.command("-gdb-set confirm off")
    if exe:
        mi.command(f"-file-exec-and-symbols {exe}")
    mi.command(f"-target-select remote {address}")
    return mi


# --- cases --------------------------------------------------------------
# The loop trace of make_loop_trace.cpp: 0x401014 (cmp rax,5) runs at eids
# 4, 8, 12, ...; 0x401011 writes rax to 0x402000 at eids 3, 7, 11, ...

def gdb_mi_reverse_instructions(ctx):
    """-exec-continue --reverse back to a breakpoint and to a watchpoint,
    -exec-step-instruction --reverse (also with --thread, as CDT sends it),
    and both ends of history."""
    s = ctx.server(["--once"])
    mi = mi_session(ctx, s.address)
    for c in ["-break-insert *0x401014", "-exec-continue", "-exec-continue", "-exec-continue",
              "-exec-continue --reverse", "-data-evaluate-expression $rax",
              "-exec-step-instruction --reverse", "-data-evaluate-expression $rax",
              "-exec-step-instruction --thread 1 --reverse", "-exec-step-instruction", "-exec-step-instruction",
              "-break-delete 1", "-break-watch *(long*)0x402000", "-exec-continue --reverse",
              "-data-list-register-values x 0 16", "-exec-continue --reverse", "-exec-continue --reverse",
              "-exec-step-instruction --reverse", "-break-delete 2", "-exec-continue", "-target-detach"]:
        mi.command(c)
    bp = 'disp="keep",bkptno="1",'
    return mi.output(), [
        after("-exec-continue", stopped("breakpoint-hit", 0x401014, extra=bp)),
        # third hit (rax 3), then back to the second (rax 2): the hit at the
        # starting pc is not reported
        after("-exec-continue --reverse", stopped("breakpoint-hit", 0x401014, extra=bp)),
        after("-data-evaluate-expression $rax", r'\^done,value="2"'),
        after("-exec-step-instruction --reverse", stopped("end-stepping-range", 0x401011)),
        after("-data-evaluate-expression $rax", r'\^done,value="2"'),
        after("-exec-step-instruction --thread 1 --reverse", stopped("end-stepping-range", 0x40100e)),
        after("-exec-step-instruction", stopped("end-stepping-range", 0x401011)),
        # forward onto the breakpoint's address: gdb reports the breakpoint
        after("-exec-step-instruction", stopped("breakpoint-hit", 0x401014, extra=bp)),
        # reverse watch: stops before the write at eid 7, old value 2 -> 1
        after("-exec-continue --reverse",
              stopped("watchpoint-trigger", 0x401011,
                      extra=r'wpt=\{number="2",exp="\*\(long\*\)0x402000"\},value=\{old="2",new="1"\},')),
        after("-data-list-register-values x 0 16",
              r'\^done,register-values=\[\{number="0",value="0x2"\},\{number="16",value="0x401011"\}\]'),
        after("-exec-continue --reverse", stopped("watchpoint-trigger", 0x401011, extra=r'.*value=\{old="1",new="0"\},')),
        history_boundary("-exec-continue --reverse", 0x401000),
        history_boundary("-exec-step-instruction --reverse", 0x401000),
        history_boundary("-exec-continue", 0x40101b),
        after("-target-detach", r"\^done"),
    ]


def gdb_mi_reverse_source(ctx):
    """Source level on examples/loop.c recorded by `ttd record`: a line
    breakpoint hit going backwards, then -exec-next --reverse line by line
    and -exec-step-instruction --reverse across a line boundary."""
    recorded = ctx.recorded_loop()
    if not recorded:
        return SKIP
    exe, trace = recorded
    s = ctx.server(["--once"], trace)
    mi = mi_session(ctx, s.address, exe)
    for c in ["-break-insert loop.c:19", "-exec-continue", "-exec-continue", "-exec-continue",
              "-exec-continue --reverse", "-data-evaluate-expression counter", "-exec-next --reverse",
              "-data-evaluate-expression counter", "-exec-next --reverse", "-exec-step-instruction --reverse",
              "-exec-next --reverse", "-data-evaluate-expression counter", "-break-delete 1",
              "-exec-continue --reverse", "-target-detach"]:
        mi.command(c)
    bp = 'disp="keep",bkptno="1",'
    return mi.output(), [
        after("-break-insert loop.c:19", r'\^done,bkpt=\{number="1".*func="main".*line="19"'),
        after("-exec-continue", stopped("breakpoint-hit", func="main", line=19, extra=bp)),
        # third iteration (counter 3), back to the second
        after("-exec-continue --reverse", stopped("breakpoint-hit", func="main", line=19, extra=bp)),
        after("-data-evaluate-expression counter", r'\^done,value="2"'),
        # line 19 -> the start of line 18, before counter++ ran
        after("-exec-next --reverse", stopped("end-stepping-range", func="main", line=18)),
        after("-data-evaluate-expression counter", r'\^done,value="1"'),
        # line 18 -> the loop's i++ / i < n (line 17)
        after("-exec-next --reverse", stopped("end-stepping-range", func="main", line=17)),
        # one instruction back: the end of the previous iteration's line 19
        after("-exec-step-instruction --reverse", stopped("end-stepping-range", func="main", line=19)),
        # to the start of that line 19, where the breakpoint is
        after("-exec-next --reverse", stopped("breakpoint-hit", func="main", line=19, extra=bp)),
        after("-data-evaluate-expression counter", r'\^done,value="1"'),
        history_boundary("-exec-continue --reverse", func="_start"),
        after("-target-detach", r"\^done"),
    ]


CASES = {f.__name__: f for f in [gdb_mi_reverse_instructions, gdb_mi_reverse_source]}
