"""Time never breaks a suite: a slow agent is a normal case, a dead or silent one is still found.

An OpenAI-compatible *double* (a few lines of http.server, not a model) answers every decision
after ``DELAY_S``, far longer than the executive's own robot timeout (``service_timeout_s``, cut
here to 4 s so the test is short): before the waits derived from agent.decide_timeout_s,
alert_executive's move_to through alert_guard timed out while the agent thought ("NOT RUN: no
reply from robot/move_to within 60 s") and the suite still exited 0. Now the scenario runs, the
bag audits clean and the record carries every decision's latency; a deadline shorter than the
delay makes each decision an abort (not recorded, exit 1, named), and the same command with a
patient agent then runs it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from alpha_matrix.core.suites.records import SuiteStore
from conftest import SHORT_ALERTS, run_cli

DELAY_S = 5.0


class _SlowHandler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name; /v1/models: what it serves
        data = json.dumps({"object": "list", "data": [{"id": "slow", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self.server.stopped.wait(DELAY_S)  # thinking (ends early when the test stops the double)
        text = json.dumps({"message": "Carrying on."})  # a valid decision of every suite: a message
        data = json.dumps(
            {
                "model": "slow-double",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 8},
            }
        ).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the agent gave up on this attempt (its deadline)
            pass


@pytest.fixture(scope="module")
def slow_server() -> Iterator[ThreadingHTTPServer]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    srv.daemon_threads = True
    srv.requests, srv.stopped = [], threading.Event()  # type: ignore[attr-defined]
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.stopped.set()  # type: ignore[attr-defined]
    srv.shutdown()
    t.join(timeout=5)


def _suite(cell: Path, url: str, run_id: str, *sets: str) -> Any:
    flags = ["--set", f"agent.openai_base_url={url}/v1", "--set", "alert_executive.service_timeout_s=4",
             *(x for s in sets for x in ("--set", s))]  # fmt: skip
    args = ["suite", "alerts", "--scenarios", "short.yaml", "--agent", "openai:slow", "--run-id", run_id, *flags]
    return run_cli(args, cell, timeout=400)


@pytest.mark.long  # a minute of a slow server; deadlines and aborts are unit-tested (core/agent, ros/agent_progress)
def test_a_slow_agent_completes_the_scenario_and_a_missed_deadline_is_an_abort(
    tmp_path: Path, slow_server: ThreadingHTTPServer
) -> None:
    (tmp_path / "short.yaml").write_text(SHORT_ALERTS)
    url = f"http://127.0.0.1:{slow_server.server_address[1]}"

    # A deadline shorter than the agent's thinking: every decision is an abort, nothing recorded, exit 1.
    impatient = _suite(tmp_path, url, "slow", "agent.decide_timeout_s=1.0")
    out = impatient.stdout + impatient.stderr
    assert impatient.returncode == 1, out[-3000:]
    assert "estop_short: NOT RECORDED" in out and "not recorded after infrastructure aborts (estop_short)" in out, out[
        -3000:
    ]
    assert not (tmp_path / "runs" / "slow" / "episodes.jsonl").exists() or not list(
        SuiteStore.read_only(tmp_path / "runs" / "slow")
    )
    assert "Traceback" not in out, out[-3000:]

    # The same run id with a patient agent (another config: another run id here) runs it.
    t0 = time.monotonic()
    patient = _suite(tmp_path, url, "slow-ok", "agent.decide_timeout_s=60")
    out = patient.stdout + patient.stderr
    assert patient.returncode == 0, out[-3000:]
    assert "suite alerts: 1 of 1 scenarios recorded" in out and "Traceback" not in out, out[-3000:]
    (rec,) = SuiteStore.read_only(tmp_path / "runs" / "slow-ok")
    agent = rec.result["agent"]
    assert agent["model"] == "slow-double" and len(agent["latencies_s"]) >= 3
    assert min(agent["latencies_s"]) >= DELAY_S * 0.9  # every wait sat behind a slow decision
    assert time.monotonic() - t0 > len(agent["latencies_s"]) * DELAY_S  # ... and nothing timed out meanwhile
    audit = run_cli(["audit", str(tmp_path / "bags" / "slow-ok")], tmp_path, timeout=120)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
