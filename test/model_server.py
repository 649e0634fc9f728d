"""A real OpenAI-compatible model server for the tests: ``python -m llama_cpp.server`` (the
``[server]`` extra of the pinned llama-cpp-python, requirements-dev.txt) serving the project's
embedded Gemma 3 270M GGUF on 127.0.0.1, started and stopped by the test session.

Two forms (``FORMS``), each its own process, the model loaded once per form and session:

* ``tools``: ``--chat_format chatml-function-calling``: native tool calls (``tools`` and
  ``tool_choice`` are honoured; ``message.tool_calls`` with arguments as a JSON string).
* ``text``: ``--chat_format gemma``: Gemma's own turns, plain text answers. The packaged GGUF
  has no ``tokenizer.chat_template``, so llama-cpp-python cannot use the model's own template;
  its default for such a file is a fallback to ``llama-2`` turns, under which this model answered
  nothing at all (``finish_reason: stop``, 0 tokens) or echoed the prompt, and the same request
  twice got both (docs/real-model-server.md). ``gemma`` drops the system message.

It is not a test double: what it answers is what a user with this server gets. A server that
does not come up fails the test that asked for it, with the end of its log; it is never skipped.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

MODEL_ID = "gemma3-270m"  # --model_alias: the id /v1/models lists and every answer names
FORMS: dict[str, tuple[str, ...]] = {
    "tools": ("--chat_format", "chatml-function-calling"),
    "text": ("--chat_format", "gemma"),
}
# One thread: the tests share 2 cores with the graph's nodes (and other test runs); a second
# llama.cpp thread spin-waits whenever the first is descheduled and slowed answers several-fold.
N_THREADS = 1
# llama-cpp-python keeps a float32 row of logits per context position (n_ctx x 262,144 vocab):
# resident memory grows by about 1 MB per token evaluated. 2048 (its default) holds the longest
# agent prompt here (about 1,450 tokens with the tools) and a 64-token answer, and bounds a server
# at about 2.5 GB.
N_CTX = 2048
READY_TIMEOUT_S = 180.0  # loading takes seconds; a loaded machine may take much longer
STOP_WAIT_S = 10.0  # after SIGTERM, then SIGKILL
SERVER_PACKAGES = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """The server gets SIGTERM if the test process dies without its teardown (Linux)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def missing_packages() -> list[str]:
    """The server's packages that are not installed (llama-cpp-python's ``[server]`` extra)."""
    return [name for name in ("llama_cpp", *SERVER_PACKAGES) if importlib.util.find_spec(name) is None]


def gguf_path() -> Path:
    """The packaged Gemma 3 270M the project's embedded backends load (assembled on first use)."""
    from alpha_matrix.core.backends.llamacpp import default_gguf

    return default_gguf()


@dataclass
class ModelServer:
    """One running ``llama_cpp.server``; ``base_url`` is what ``--set agent.openai_base_url`` takes."""

    form: str
    port: int
    log: Path
    proc: subprocess.Popen[bytes]
    started_s: float = 0.0  # from start to /v1/models answering
    args: tuple[str, ...] = field(default_factory=tuple)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def model_ids(self) -> list[str]:
        """The ids ``GET /v1/models`` lists."""
        reply = httpx.get(f"{self.base_url}/models", timeout=5.0)
        reply.raise_for_status()
        return [m["id"] for m in reply.json()["data"]]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not ended within STOP_WAIT_S."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_WAIT_S)


def _ready(server: ModelServer) -> bool:
    try:
        return MODEL_ID in server.model_ids()
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return False


def start(
    form: str, log_dir: Path, n_threads: int = N_THREADS, ready_timeout_s: float = READY_TIMEOUT_S
) -> ModelServer:
    """Start the server of ``form`` on a free port and wait until ``GET /v1/models`` lists the
    model (no fixed sleep). Fails the test, with the end of the server's log, if it exits or is
    not ready within ``ready_timeout_s``; a port taken between choosing and binding is retried."""
    if form not in FORMS:
        raise ValueError(f"model server form {form!r}: expected one of {', '.join(FORMS)}")
    if missing := missing_packages():
        pytest.fail(
            f"the real model server needs {', '.join(missing)} (llama-cpp-python[server], pinned in "
            "requirements-dev.txt): run `make setup`",
            pytrace=False,
        )
    model = gguf_path()
    log_dir.mkdir(parents=True, exist_ok=True)
    for attempt in range(3):
        port = _free_port()
        args = (
            "--model", str(model), "--model_alias", MODEL_ID, "--host", "127.0.0.1", "--port", str(port),
            "--n_threads", str(n_threads), "--n_ctx", str(N_CTX), *FORMS[form],
        )  # fmt: skip
        log = log_dir / f"llama-server-{form}-{port}.log"
        t0 = time.monotonic()
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "llama_cpp.server", *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                preexec_fn=_die_with_parent,  # one prctl call in the child, nothing else
            )
        server = ModelServer(form, port, log, proc, args=args)
        deadline = t0 + ready_timeout_s
        while server.alive() and not _ready(server) and time.monotonic() < deadline:
            time.sleep(0.1)  # the poll interval of the wait on /v1/models, not a wait in itself
        if server.alive() and _ready(server):
            server.started_s = time.monotonic() - t0
            return server
        server.stop()
        if "address already in use" in server.log_tail().lower() and attempt < 2:
            continue
        why = "exited" if proc.returncode not in (None, -signal.SIGTERM) else f"not ready in {ready_timeout_s:.0f} s"
        pytest.fail(
            f"llama_cpp.server ({form}) {why} (rc {proc.returncode}); log {log}:\n{server.log_tail()}", pytrace=False
        )
    raise AssertionError("unreachable")


class ModelServers:
    """The session's servers, one per form, started on first use and stopped at the end."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._running: dict[str, ModelServer] = {}

    def __call__(self, form: str) -> ModelServer:
        server = self._running.get(form)
        if server is not None and not server.alive():
            pytest.fail(f"llama_cpp.server ({form}) died (rc {server.proc.returncode}):\n{server.log_tail()}")
        if server is None:
            server = self._running[form] = start(form, self.log_dir)
        return server

    def stop_all(self) -> None:
        for server in self._running.values():
            server.stop()
        self._running.clear()
