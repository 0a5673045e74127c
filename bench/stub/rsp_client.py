"""A minimal GDB remote-protocol client for timing `ttd serve` without a
debugger in between: framing, no-ack mode, qRcmd (monitor) with its O
output packets. Only what the benchmark needs; not a general client."""
import socket


def checksum(payload: bytes) -> bytes:
    return b"%02x" % (sum(payload) & 0xFF)


class RspError(RuntimeError):
    pass


class RspClient:
    def __init__(self, host, port, timeout=600):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.ack = True
        self.sock.sendall(b"+")
        self.request("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+")
        if self.request("QStartNoAckMode") == "OK":
            self.ack = False

    def close(self):
        self.sock.close()

    def _read_more(self):
        data = self.sock.recv(65536)
        if not data:
            raise RspError("ttd serve closed the connection")
        self.buffer += data

    def _read_packet(self) -> str:
        while True:
            start = self.buffer.find(b"$")
            if start >= 0:
                end = self.buffer.find(b"#", start)
                if end >= 0 and len(self.buffer) >= end + 3:
                    payload = self.buffer[start + 1:end]
                    sent = self.buffer[end + 1:end + 3]
                    self.buffer = self.buffer[end + 3:]
                    if sent != checksum(payload):
                        raise RspError(f"bad checksum on {payload[:60]!r}")
                    if self.ack:
                        self.sock.sendall(b"+")
                    return payload.decode("latin-1")
            self._read_more()

    def send(self, payload: str):
        data = payload.encode("latin-1")
        self.sock.sendall(b"$" + data + b"#" + checksum(data))

    def request(self, payload: str) -> str:
        """Sends one packet and returns the reply (acks are skipped)."""
        self.send(payload)
        return self._read_packet()

    def monitor(self, command: str) -> str:
        """qRcmd: the text of the O packets, then OK (or an error)."""
        self.send("qRcmd," + command.encode().hex())
        text = ""
        while True:
            reply = self._read_packet()
            if reply.startswith("O") and reply != "OK":
                text += bytes.fromhex(reply[1:]).decode(errors="replace")
            elif reply == "OK":
                return text
            else:
                raise RspError(f"monitor {command}: {reply}")
