"""A scripted HTTP server on 127.0.0.1 for the served-model backends: real sockets, real HTTP.

Each path has a script of replies, consumed in order; the last one repeats (so "500 until the
retries run out" is one entry). Every request is logged with its headers and JSON body. It is a
double for the *transport* (request shape, retries, error mapping), not a model.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD_LIMIT_S = 10.0  # a held reply is released by the test's teardown long before this


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = field(default_factory=dict)  # JSON-encoded, unless bytes (sent as they are)
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False  # wait for release (the client's timeout fires first)


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def _serve(self, method: str) -> None:
        double: ScriptedServer = self.server.double
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        double.seen(Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw))
        reply = double.next_reply(self.path)
        if reply.hold:
            double.release.wait(HOLD_LIMIT_S)
        data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) and closed the socket
            pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")


class ScriptedServer:
    """``with ScriptedServer() as s: s.script("/api/chat", Reply(429), Reply(200, {...}))``."""

    def __init__(self) -> None:
        self._scripts: dict[str, list[Reply]] = {}
        self._lock = threading.Lock()
        self.requests: list[Seen] = []
        self.release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.double = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})

    def script(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self._scripts[path] = list(replies)

    def next_reply(self, path: str) -> Reply:
        with self._lock:
            script = self._scripts.get(path)
            if not script:
                return Reply(404, {"error": f"no script for {path}"})
            return script.pop(0) if len(script) > 1 else script[0]

    def seen(self, request: Seen) -> None:
        with self._lock:
            self.requests.append(request)

    def to(self, path: str) -> list[Seen]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5.0)


def closed_port_url() -> str:
    """A URL nothing listens on (the port was bound, then released): connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


class FakeTime:
    """Injected sleep and clock: sleeping advances the clock, nothing waits."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now
