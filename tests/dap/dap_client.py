"""A small Debug Adapter Protocol client for tests and benchmarks.

Speaks DAP's base protocol (Content-Length framing) to `ttd dap` over its
stdin/stdout or a TCP socket. A reader thread sorts incoming messages into
responses (by request_seq) and events (in arrival order), so a test can wait
for "the response to request N" or "the next stopped event".
"""
import json
import queue
import socket
import subprocess
import threading
import time


class DapError(Exception):
    pass


class DapClient:
    def __init__(self, argv=None, port=None, stderr=None):
        self.proc = None
        self.sock = None
        if argv is not None:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr if stderr is not None else subprocess.DEVNULL)
            self._rfile = self.proc.stdout
            self._wfile = self.proc.stdin
        else:
            self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sock.settimeout(None)
            self._rfile = self.sock.makefile("rb")
            self._wfile = self.sock.makefile("wb")
        self.seq = 1
        self.responses = {}
        self.events = queue.Queue()
        self.event_log = []
        self.cond = threading.Condition()
        self.closed = False
        self.reader = threading.Thread(target=self._read_loop, daemon=True)
        self.reader.start()

    # -- wire ---------------------------------------------------------------
    def send_raw(self, data: bytes):
        self._wfile.write(data)
        self._wfile.flush()

    def send_body(self, body: bytes):
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _read_loop(self):
        f = self._rfile
        try:
            while True:
                length = None
                while True:
                    line = f.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        if length is not None:
                            break
                        continue
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v.strip())
                body = f.read(length)
                if len(body) < length:
                    raise EOFError
                msg = json.loads(body)
                with self.cond:
                    if msg.get("type") == "response":
                        self.responses[msg["request_seq"]] = msg
                    else:
                        self.event_log.append(msg)
                        self.events.put(msg)
                    self.cond.notify_all()
        except (EOFError, ValueError, OSError):
            pass
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    # -- requests -------------------------------------------------------------
    def request(self, command, arguments=None):
        seq = self.seq
        self.seq += 1
        msg = {"seq": seq, "type": "request", "command": command}
        if arguments is not None:
            msg["arguments"] = arguments
        self.send_body(json.dumps(msg).encode())
        return seq

    def response(self, seq, timeout=60):
        deadline = time.monotonic() + timeout
        with self.cond:
            while seq not in self.responses:
                if self.closed:
                    raise DapError("adapter closed the connection before answering request %d" % seq)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DapError("no response to request %d within %ss" % (seq, timeout))
                self.cond.wait(left)
            return self.responses.pop(seq)

    def call(self, command, arguments=None, timeout=60):
        """Sends a request and returns its response body; raises on failure."""
        r = self.response(self.request(command, arguments), timeout)
        if not r.get("success"):
            raise DapError("%s failed: %s" % (command, r.get("message")))
        return r.get("body") or {}

    def call_raw(self, command, arguments=None, timeout=60):
        """Sends a request and returns the whole response (success or not)."""
        return self.response(self.request(command, arguments), timeout)

    def event(self, name, timeout=60, pred=None):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DapError("no '%s' event within %ss" % (name, timeout))
            try:
                e = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if e.get("event") == name and (pred is None or pred(e)):
                return e

    def drain_events(self):
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def close(self):
        try:
            self._wfile.close()
        except OSError:
            pass
        if self.proc:
            try:
                return self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return self.proc.wait()
        if self.sock:
            self.sock.close()
        return 0

    # -- conveniences -----------------------------------------------------------
    def start(self, trace, program=None, **extra):
        """initialize + launch + wait for initialized; returns capabilities."""
        caps = self.call("initialize", {"clientID": "ttd-tests", "adapterID": "ttd", "linesStartAt1": True,
                                        "columnsStartAt1": True, "supportsMemoryReferences": True})
        args = {"trace": trace}
        if program:
            args["program"] = program
        args.update(extra)
        self.call("launch", args, timeout=600)
        self.event("initialized")
        return caps

    def stop_after(self, command, arguments=None, timeout=120):
        """Runs a resuming request and returns the stopped event it caused."""
        self.call(command, arguments)
        return self.event("stopped", timeout=timeout)

    def top_frame(self, thread_id):
        frames = self.call("stackTrace", {"threadId": thread_id, "startFrame": 0, "levels": 20})["stackFrames"]
        return frames[0], frames

    def evaluate(self, expression, frame_id=None, context="watch"):
        args = {"expression": expression, "context": context}
        if frame_id is not None:
            args["frameId"] = frame_id
        return self.call("evaluate", args)["result"]
