"""A Debian program talking to a server over TCP under `ttd record`
(docs/recording.md, "Sockets"): the test serves a directory over HTTP on
127.0.0.1 (a port the kernel picks, natively, in this process) and records
`curl` and `/usr/bin/python3 -c 'urllib.request...'` fetching a file from
it; each recorded stdout must be the native run's. A client that is not
installed is skipped with a message; with neither, the test is skipped
(77)."""
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading

ttd = sys.argv[1]
BODY = "".join(f"line {i}: sockets under the recorder\n" for i in range(200))


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


with tempfile.TemporaryDirectory() as served, tempfile.TemporaryDirectory() as work:
    with open(os.path.join(served, "page.txt"), "w") as f:
        f.write(BODY)
    handler = lambda *a, **k: Quiet(*a, directory=served, **k)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/page.txt"

    clients = []
    curl = shutil.which("curl", path="/usr/bin:/bin")
    if curl:
        clients.append(("curl", [curl, "-s", "-S", url]))
    else:
        print("skipped: no curl in /usr/bin or /bin")
    if os.access("/usr/bin/python3", os.X_OK):
        script = f"import urllib.request,sys; sys.stdout.write(urllib.request.urlopen({url!r}).read().decode())"
        clients.append(("python3", ["/usr/bin/python3", "-S", "-c", script]))
    else:
        print("skipped: no /usr/bin/python3")
    if not clients:
        sys.exit(77)

    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "HOME": work, "no_proxy": "*"}
    for name, argv in clients:
        native = subprocess.run(argv, capture_output=True, env=env, timeout=120)
        assert native.returncode == 0 and native.stdout.decode() == BODY, (name, native)
        trace = os.path.join(work, f"{name}.ucir")
        rec = subprocess.run([ttd, "record", "-o", trace, "--"] + argv, capture_output=True, env=env, timeout=600)
        assert rec.returncode == 0, (name, rec.stderr)
        assert rec.stdout == native.stdout, (name, rec.stdout[:300], rec.stderr)
        assert b"program exited with status 0\n" in rec.stderr, (name, rec.stderr)
        assert b"unsupported" not in rec.stderr, (name, rec.stderr)
        print(f"ok: {name} fetched {len(BODY)} bytes under the recorder, stdout identical")
    server.shutdown()
