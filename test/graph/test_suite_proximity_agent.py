"""The proximity suite with an agent under test, through real node processes.

One approach (a person walks in to 0.7 m of a 1 m threshold and out again), six runs:

* no agent: the detector (the guard) stops the robot, as the suite has always run;
* a study of two agents with the guard off (``--agent reference,always:continue_task``): a run
  each, and the pair compared decision by decision;
* the reference agent with the guard off reproduces that run's physical result exactly: the
  reference's decisions are the guard's, now taken through the agent protocol and the link;
* ``always:continue_task`` with the guard off: its unsafe decisions reach the robot (harms,
  a missed breach); with the guard on: the same decisions are guard catches, and the robot's
  result is the no-agent run's;
* the embedded model (Gemma 3 270M, llama.cpp) decides every tenth frame: its raw text and
  provenance reach the record, and the bag audits clean (its decisions re-judged from the text);
  compared with the reference on the frames both decided on; replayed from its bag (no model)
  it gives the same record but for the agent's label.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.agent.images import rgb_pixels
from alpha_matrix.core.agent.protocol import Image
from alpha_matrix.core.sim.camera import CameraConfig
from alpha_matrix.core.suites.records import SuiteStore
from conftest import PROXIMITY_A02, run_cli

APPROACH = PROXIMITY_A02  # the session's no-agent run (conftest.proximity_a02) is of this file too
PHYSICAL = ("metrics", "stop_requests", "task", "rows", "last_step")  # what the robot and the detector did


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("agent")
    (d / "a.yaml").write_text(APPROACH)
    return d


def _result(cell: Path, run_id: str) -> dict:
    """The run's one record, after its bag audits clean."""
    (rec,) = SuiteStore.read_only(cell / "runs" / run_id)
    assert rec.ok, rec.message
    audit = run_cli(["audit", str(cell / "bags" / run_id)], cell, timeout=120)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
    return rec.result


def _suite(cell: Path, run_id: str, *flags: str) -> str:
    proc = run_cli(["suite", "proximity", "--scenarios", "a.yaml", "--run-id", run_id, *flags], cell, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def _run(cell: Path, run_id: str, *flags: str) -> dict:
    _suite(cell, run_id, *flags)
    return _result(cell, run_id)


@pytest.fixture(scope="module")
def baseline(proximity_a02: Path) -> dict:
    """No agent: the session's run of the same approach (conftest.proximity_a02, audited clean)."""
    (rec,) = SuiteStore.read_only(proximity_a02 / "runs" / "a02")
    assert rec.ok, rec.message
    res = rec.result
    assert "agent" not in res and res["guards"] is True and res["metrics"]["missed_breaches"] == 0
    return res


@pytest.fixture(scope="module")
def study(cell: Path) -> dict[str, dict]:
    """Two agents, guards off, in one command: a run each, and the pair compared."""
    out = _suite(cell, "st", "--agent", "reference,always:continue_task", "--guards", "off")
    assert "study: " in out and (cell / "runs" / "st" / "study.md").exists()
    return {agent: _result(cell, f"st.{agent}") for agent in ("reference", "always-continue_task")}


@pytest.fixture(scope="module")
def reference(study: dict[str, dict]) -> dict:
    return study["reference"]


@pytest.mark.long
def test_the_reference_through_the_protocol_reproduces_the_scripted_run(baseline: dict, reference: dict) -> None:
    res = reference
    assert {k: res[k] for k in PHYSICAL} == {k: baseline[k] for k in PHYSICAL}
    a = res["agent"]
    assert (a["agent"], a["backend"], a["guards"]) == ("reference", "reference", False)
    assert a["decisions"] == len(baseline["rows"]) and a["aborts"] == a["invalid"] == a["harms"] == 0
    # Never unsafe; its wrong calls are its margin and hold time: stopped while the person is just outside.
    assert a["unsafe"] == 0 and a["needless_stops"] == a["scored"] - a["correct"] > 0


def test_an_agent_that_never_stops_harms_without_guards_and_is_caught_with_them(
    cell: Path, baseline: dict, study: dict[str, dict]
) -> None:
    off = study["always-continue_task"]
    assert off["metrics"]["missed_breaches"] == 1 and off["agent"]["harms"] > 0
    assert off["agent"]["guard_catches"] == 0 and off["stop_requests"] == baseline["stop_requests"]  # decided, not sent
    on = _run(cell, "never-on", "--agent", "always:continue_task")
    assert on["agent"]["harms"] == 0 and on["agent"]["guard_catches"] == off["agent"]["harms"]
    assert {k: on[k] for k in PHYSICAL} == {k: baseline[k] for k in PHYSICAL}
    # The study compared the two, decision by decision (both decided on every frame).
    text = (cell / "runs" / "st" / "study.md").read_text()
    assert f"McNemar on {off['agent']['decisions']} paired decisions" in text and "`always:continue_task`" in text


@pytest.mark.long
def test_the_embedded_model_decides_end_to_end(cell: Path, reference: dict) -> None:
    res = _run(cell, "gemma", "--agent", "llm", "--decide-every", "10")
    a = res["agent"]
    assert a["backend"] == "llamacpp" and a["model"] and a["digest"] and a["template_version"] == "agent_proximity_v1"
    assert a["decisions"] == len(a["raw"]) >= 3 and all(text for _, text, _ in a["raw"])
    assert a["prompt_tokens"] > 0 and all(x > 0 for x in a["latencies_s"])
    assert a["scored"] + a["aborts"] == a["decisions"]
    report = (cell / "runs" / "gemma" / "report.md").read_text()
    assert "### The agent under test" in report and "llamacpp" in report
    # Next to the reference: paired on the frames both decided on (the model's every tenth).
    paired = run_cli(["compare", "runs/st.reference", "runs/gemma"], cell, timeout=60)
    assert paired.returncode == 0, paired.stderr
    assert f"McNemar on {a['decisions']} paired decisions" in paired.stdout
    assert (cell / "runs" / "st.reference" / "compare-gemma.md").exists()
    # Replayed from its bag (no model): the same record, but for the label; each decision re-judged.
    again = _run(cell, "gemma-replay", "--agent", "replay:gemma", "--decide-every", "10")
    assert again["agent"]["agent"] == "replay:gemma" and again["agent"]["backend"] == "llamacpp"
    assert {**again, "agent": {**again["agent"], "agent": a["agent"]}} == res


@pytest.mark.long
def test_an_ollama_model_over_http_reaches_the_record(cell: Path, ollama_server) -> None:  # noqa: ANN001
    """Through the graph against the transport double (not a model): its native tool call is the
    decision, its message the recorded raw text, each frame's colour image goes with the chat (a
    multimodal model's input); a model that is not pulled is one line, exit 1."""
    ollama_server.state.reply_tool_calls = [{"function": {"name": "robot_stop", "arguments": {"reason": "close"}}}]
    host = ["--set", f"agent.ollama_host={ollama_server.host}"]
    images = ["--set", "proximity_agent_link.images=true"]
    res = _run(cell, "olla", "--agent", "llm:llama3", "--decide-every", "20", *host, *images)
    a = res["agent"]
    assert (a["backend"], a["model"], a["digest"]) == ("ollama", "llama3", ollama_server.state.tags[0]["digest"])
    assert a["decisions"] >= 2 and {r[3] for r in a["rows"]} == {"robot_stop"} and a["invalid"] == 0
    assert all(json.loads(text)["tool_calls"][0]["function"]["name"] == "robot_stop" for _, text, _ in a["raw"])
    chats = [body for method, path, body in ollama_server.state.requests if path == "/api/chat"]
    assert len(chats) == a["decisions"] and all(c["tools"] and c["options"]["temperature"] == 0 for c in chats)
    frames = [rgb_pixels(Image(kind="rgb", png_base64=c["messages"][-1]["images"][0], step=0)) for c in chats]
    cam = CameraConfig()
    assert all(f.shape == (cam.height, cam.width, 3) and f.std() > 0 for f in frames)  # a real render each time
    assert all(len(c["messages"][-1]["images"]) == 1 for c in chats)
    # The model server fails every call (HTTP 500 through every retry): infrastructure aborts, never
    # the model's error. The scenario is not recorded (exit 1, one line); the same command re-runs it.
    ollama_server.state.chat_status, ollama_server.state.chat_error = 500, "server error"
    args = ["suite", "proximity", "--scenarios", "a.yaml", "--run-id", "olla-down", "--agent", "llm:llama3"]
    args += ["--decide-every", "40", *host]
    down = run_cli(args, cell, timeout=600)
    # The runner's own lines (the launcher repeats a failed node's last lines after the stop).
    said = [ln for ln in down.stdout.splitlines() if "infrastructure abort" in ln and ln.startswith("[suite_runner]")]
    assert down.returncode == 1 and len(said) == 2, down.stdout[-3000:]  # the progress line, the run's last word
    assert "NOT RECORDED" in said[0] and "1 scenario(s) not recorded after infrastructure aborts (a02-1m)" in said[1]
    assert (
        "Traceback" not in down.stdout + down.stderr and not (cell / "runs" / "olla-down" / "episodes.jsonl").exists()
    )
    audit = run_cli(["audit", str(cell / "bags" / "olla-down")], cell, timeout=120)
    assert audit.returncode == 1 and "infrastructure abort" in audit.stdout, audit.stdout
    ollama_server.state.chat_status = 200
    again = _run(cell, "olla-down", "--agent", "llm:llama3", "--decide-every", "40", *host)
    assert again["agent"]["aborts"] == 0 and again["agent"]["decisions"] >= 1
    missing = run_cli(["suite", "proximity", "--scenarios", "a.yaml", "--agent", "llm:qwen9", *host], cell, timeout=120)
    lines = [ln for ln in missing.stderr.splitlines() if not ln.startswith("pybullet build time")]
    assert missing.returncode == 1 and len(lines) == 1 and "not pulled" in lines[0], missing.stderr
