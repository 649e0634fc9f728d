"""The openai backends through the graph against a real OpenAI-compatible server: the session's
``llama_cpp.server`` serving the embedded Gemma 3 270M on 127.0.0.1 (``model_server``,
test/model_server.py), in both its forms (native tool calls, plain text).

Per form: one short scenario of the alerts suite with the agent on the server
(``--agent openai:gemma3-270m``, ``agent.max_tokens=64``), and two matrix episodes with the
llm arm's planner on it (``--llm-backend openai``). The records carry the server's model id and
its token counts within the cap; both runs' bags audit clean; no node printed a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.suites.records import SuiteStore
from conftest import SHORT_ALERTS, run_cli
from model_server import FORMS, MODEL_ID

# tools in make test; the text form (the same path, another server form) in make test-long
GRAPH_FORMS = [pytest.param(f, marks=pytest.mark.long) if f == "text" else f for f in FORMS]
# The agent's scenario on the server is a long run (a minute and more on a busy machine) in make
# test-long only: make test meets the server through the graph with the planner (below), and the
# agent's path to it in test/unit/agent/test_real_server.py.

CAP = 64


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("real-model-server")
    (d / "short.yaml").write_text(SHORT_ALERTS)
    return d


def _ran_clean(proc, cell: Path, run_id: str) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "Traceback" not in out, out[-4000:]
    audit = run_cli(["audit", str(cell / "bags" / run_id)], cell, timeout=180)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]


@pytest.mark.long
@pytest.mark.parametrize("form", GRAPH_FORMS)
def test_an_alerts_scenario_decided_by_the_real_server(cell: Path, model_server, form: str) -> None:
    server = model_server(form)
    run_id = f"alerts-{form}"
    args = ["suite", "alerts", "--scenarios", "short.yaml", "--run-id", run_id, "--agent", f"openai:{MODEL_ID}"]
    args += ["--set", f"agent.openai_base_url={server.base_url}", "--set", f"agent.max_tokens={CAP}"]
    _ran_clean(run_cli(args, cell, timeout=600), cell, run_id)
    (rec,) = SuiteStore.read_only(cell / "runs" / run_id)
    assert rec.ok, rec.message
    a = rec.result["agent"]
    assert (a["agent"], a["backend"], a["model"], a["digest"]) == (f"openai:{MODEL_ID}", "openai", MODEL_ID, "")
    assert a["template_version"] == "agent_alerts_v1" and a["aborts"] == 0
    assert a["decisions"] == a["scored"] == len(a["raw"]) >= 3 and a["prompt_tokens"] > 0
    assert 0 < a["completion_tokens"] <= CAP * a["decisions"]
    assert all(latency > 0 for latency in a["latencies_s"])
    messages = [json.loads(raw) for _, raw, _ in a["raw"]]
    if form == "tools":
        # A native call (content null, arguments a JSON string, whole or not), or, where the model
        # chose to write a message, an empty one: chatml-function-calling decodes the message under
        # its tool-name grammar, which leaves nothing but the end of turn (no_decision).
        calls = [m for m in messages if m.get("tool_calls")]
        assert calls and all(m["content"] is None and len(m["tool_calls"]) == 1 for m in calls), messages
        assert all(isinstance(m["tool_calls"][0]["function"]["arguments"], str) for m in calls)
        assert all(m["content"] == "" for m in messages if not m.get("tool_calls")), messages
        assert a["invalid"] < a["decisions"]
    else:  # text the base model runs on with: every answer cut at the cap, each an invalid decision
        assert all(m["content"] and "tool_calls" not in m for m in messages), messages
        assert a["invalid"] == a["decisions"]
        assert all(f"cut at max_tokens={CAP}" in detail for _, _, detail in a["raw"]), a["raw"]


@pytest.mark.parametrize("form", GRAPH_FORMS)
def test_two_matrix_episodes_planned_by_the_real_server(tmp_path: Path, model_server, form: str) -> None:
    server = model_server(form)
    run_id = f"llm-{form}"
    args = ["run", "--arms", "llm", "--episodes", "2", "--run-id", run_id, "--llm-backend", "openai"]
    args += ["--set", f"llm_planner.openai_base_url={server.base_url}", "--set", f"llm_planner.openai_model={MODEL_ID}"]
    # llama_cpp.server refuses the default json_schema response_format (HTTP 500): json_object it takes.
    args += ["--set", "llm_planner.openai_response_format=json_object", "--set", f"llm_planner.max_tokens={CAP}"]
    _ran_clean(run_cli(args, tmp_path, timeout=600), tmp_path, run_id)
    rows = [json.loads(line) for line in (tmp_path / "runs" / run_id / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["episode_id"] for r in rows) == ["llm-0000", "llm-0001"]
    for rec in rows:
        p = rec["planner"]
        assert (p["backend"], p["model"], p["digest"], p["recorded"]) == ("openai", MODEL_ID, "", False)
        assert p["prompt_tokens"] > 0 and 0 < p["completion_tokens"] <= CAP and p["text"].lstrip().startswith("{")
        assert rec["timing"]["llm_latency_s"] > 0
        # A 64-token plan of a 270M model: a recorded outcome either way, never a missing episode.
        assert rec["outcome"]["success"] or rec["abort_kind"] in ("json", "schema", "semantic", "rejected"), rec
