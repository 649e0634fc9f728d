"""Fixtures shared by unit and graph tests.

``ollama_server`` is ``OllamaTransportDouble``: a few lines of ``http.server`` on 127.0.0.1
speaking the two Ollama API endpoints the backend uses (/api/tags, /api/chat). It is a test
double for the *transport* (request shape, provenance, error mapping) and returns a canned
reply; it is not a model and says nothing about planning quality.

``model_server`` is the opposite: ``model_server("tools")`` / ``model_server("text")`` is a real
``llama_cpp.server`` serving the embedded Gemma 3 270M over the OpenAI API on 127.0.0.1
(test/model_server.py), started on first use and stopped when the session ends.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from alpha_matrix.ros.transport import use_localhost_udp
from model_server import ModelServer, ModelServers

use_localhost_udp()  # the test process's own participants (probes) on the graphs' transport

DIGEST = "sha256:" + "ab" * 32


@dataclass
class DoubleState:
    """Behaviour and request log of the transport double."""

    tags: list[dict[str, Any]] = field(default_factory=lambda: [{"model": "llama3:latest", "digest": DIGEST}])
    reply_text: str = "{}"
    reply_tool_calls: list[dict[str, Any]] | None = None  # native tool calls in the chat message (agents)
    chat_status: int = 200
    chat_error: str = ""
    hold_chat: bool = False  # block /api/chat until released (the timeout case)
    release: threading.Event = field(default_factory=threading.Event)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        state: DoubleState = self.server.state
        state.requests.append(("GET", self.path, None))
        if self.path == "/api/tags":
            self._send(200, {"models": state.tags})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        state: DoubleState = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
        state.requests.append(("POST", self.path, body))
        if self.path != "/api/chat":
            self._send(404, {"error": "not found"})
            return
        if state.hold_chat:
            state.release.wait(timeout=10.0)  # bounded; the fixture releases it on teardown
            return
        if state.chat_status != 200:
            self._send(state.chat_status, {"error": state.chat_error})
            return
        self._send(
            200,
            {
                "model": body["model"],
                "created_at": "2025-01-01T00:00:00Z",
                "message": {
                    "role": "assistant",
                    "content": state.reply_text,
                    **({"tool_calls": state.reply_tool_calls} if state.reply_tool_calls is not None else {}),
                },
                "done": True,
                "done_reason": "stop",
                "total_duration": 2_500_000_000,
                "load_duration": 100_000_000,
                "prompt_eval_count": 412,
                "prompt_eval_duration": 400_000_000,
                "eval_count": 95,
                "eval_duration": 1_900_000_000,
            },
        )


@dataclass
class OllamaTransportDouble:
    host: str
    state: DoubleState


@pytest.fixture
def ollama_server() -> Iterator[OllamaTransportDouble]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.state = DoubleState()  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield OllamaTransportDouble(f"http://127.0.0.1:{server.server_address[1]}", server.state)  # type: ignore[attr-defined]
    finally:
        server.state.release.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()
        thread.join(timeout=5.0)


@pytest.fixture(scope="session")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], ModelServer]]:
    """``model_server(form)``: the session's real OpenAI-compatible server of that form (one model
    load per form; its log under the session's tmp dir, ``ModelServer.log``)."""
    servers = ModelServers(tmp_path_factory.mktemp("model-server"))
    try:
        yield servers
    finally:
        servers.stop_all()


@pytest.fixture(scope="session")
def written_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """kind -> the run directory of the matrix report and each suite's report (report.md,
    report.html, plots/), written as its command writes it from the synthetic runs of
    test/report/report_runs.py: once for the session (test/report's reading and page tests). The
    tests that take it read it (the page test's image check is a file it writes next to a page and
    removes again)."""
    from report_runs import ALL_SUITE_RUNS, matrix_run  # test/report/ (on the path of the tests that ask)

    from alpha_matrix.core.matrix.report import write_report as write_matrix_report
    from alpha_matrix.core.suites.report import write_report as write_suite_report

    root = tmp_path_factory.mktemp("reports")
    out = {"matrix": write_matrix_report(matrix_run(root / "matrix")).parent}
    for suite, make in ALL_SUITE_RUNS.items():
        out[suite] = write_suite_report(suite, make(root / suite)).parent
    return out
