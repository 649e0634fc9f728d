"""The llm arm through the graph: the real embedded model, replay byte for byte, Ollama over HTTP.

The Ollama runs use ``ollama_server`` (test/conftest.py), a test double for the transport on
127.0.0.1 - not a model. The embedded runs use the real Gemma 3 270M through llama.cpp.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.planning.prompt import load_prompt
from conftest import run_cli

CONFIG = Path(__file__).resolve().parents[2] / "config"
GEMMA_DIGEST = "sha256:a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


def _records(cwd: Path) -> dict[str, dict]:
    (run_dir,) = (cwd / "runs").iterdir()
    rows = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]
    return {r["episode_id"]: r for r in rows}


def _same_run(rec: dict) -> dict:
    """What a replay must reproduce: everything but run identity, wall clock and the replay label."""
    rec = {k: v for k, v in rec.items() if k not in ("run_id", "timing", "provenance")}
    rec["planner"] = {k: v for k, v in rec["planner"].items() if k != "recorded"}
    return rec


def test_embedded_model_end_to_end_and_replay_reproduces_it(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    args = ["run", "--arms", "llm", "--episodes", "1", "--fault", "F4", "--intensity", "1.0"]
    r = run_cli([*args, "--llm-backend", "llamacpp"], live, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    (rec,) = _records(live).values()
    p = rec["planner"]
    assert (p["backend"], p["model"], p["digest"]) == ("llamacpp", "gemma-3-270m-q4_k_m.gguf", GEMMA_DIGEST)
    assert p["prompt_tokens"] > 100 and p["completion_tokens"] > 0 and p["text"] and not p["recorded"]
    assert p["template_sha256"] == load_prompt(CONFIG / "prompts" / "pick_place_v1.yaml").sha256
    assert rec["timing"]["llm_latency_s"] > 0
    # F4 acted on the raw text: the record keeps the model's own text and what the executive got.
    assert [f["fault"] for f in rec["faults"]] == ["F4"] and rec["plan_text"] is not None
    # The validation outcome is recorded (a 270M model's plan rarely survives the guards).
    assert rec["outcome"]["success"] or rec["abort_kind"] in ("json", "schema", "semantic", "rejected", "cancelled")
    (bag,) = (live / "bags").iterdir()
    published = [m for topic, _, m in read_bag(bag) if topic == "/llm/replies"]
    assert [(m.episode_id, m.text, m.provenance.digest) for m in published] == [
        (rec["episode_id"], p["text"], GEMMA_DIGEST)
    ]

    for source in ((live / "runs").iterdir().__next__(), bag):
        again = tmp_path / f"replay-{source.parent.name}"
        again.mkdir()
        r = run_cli([*args, "--replay-from", str(source)], again, timeout=300)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr
        (replayed,) = _records(again).values()
        assert replayed["planner"]["recorded"] is True
        assert _same_run(replayed) == _same_run(rec)


def test_ollama_backend_through_the_graph_and_malformed_output_is_an_outcome(tmp_path, ollama_server):
    ollama_server.state.reply_text = '{"object": "red", "steps": ['  # cut short: invalid JSON
    r = run_cli(
        ["run", "--arms", "oracle,llm", "--episodes", "1", "--llm-backend", "ollama"]
        + ["--set", f"llm_planner.ollama_host={ollama_server.host}"],
        tmp_path,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    recs = _records(tmp_path)
    llm = recs["llm-0000"]
    assert llm["abort_kind"] == "json" and not llm["outcome"]["success"] and recs["oracle-0000"]["outcome"]["success"]
    p = llm["planner"]
    assert (p["backend"], p["model"], p["digest"]) == ("ollama", "llama3", ollama_server.state.tags[0]["digest"])
    assert (p["prompt_tokens"], p["completion_tokens"]) == (412, 95) and llm["timing"]["llm_eval_s"] == 1.9
    (chat,) = [body for method, path, body in ollama_server.state.requests if path == "/api/chat"]
    assert (
        chat["options"] == {"temperature": 0, "seed": llm["seed"], "num_predict": 400}
        and chat["format"]["type"] == "object"
    )
    assert "(0.600, 0.350, 0.650)" in chat["messages"][1]["content"]


@pytest.mark.long
def test_several_models_in_one_run_are_arms_paired_by_seed(tmp_path, ollama_server):
    """``--arms oracle,llm:A,llm:B``: each model is an arm of one run, asked by name, recorded with
    its own digest, and the report compares every pair; a model that is not pulled stops the run."""
    other = "sha256:" + "cd" * 32
    ollama_server.state.tags.append({"model": "qwen2.5:7b", "digest": other})
    ollama_server.state.reply_text = '{"object": "red", "steps": ['  # the transport is under test, not a plan
    host = ["--llm-backend", "ollama", "--set", f"llm_planner.ollama_host={ollama_server.host}"]
    r = run_cli(["run", "--arms", "oracle,llm:llama3,llm:qwen2.5:7b", "--episodes", "1", *host], tmp_path)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    recs = _records(tmp_path)
    assert sorted(recs) == ["llm:llama3-0000", "llm:qwen2.5:7b-0000", "oracle-0000"]
    assert len({rec["seed"] for rec in recs.values()}) == 1  # paired: one seed, one scene
    assert (recs["llm:llama3-0000"]["planner"]["model"], recs["llm:llama3-0000"]["planner"]["digest"]) == (
        "llama3",
        ollama_server.state.tags[0]["digest"],
    )
    assert (recs["llm:qwen2.5:7b-0000"]["planner"]["model"], recs["llm:qwen2.5:7b-0000"]["planner"]["digest"]) == (
        "qwen2.5:7b",
        other,
    )
    chats = [body["model"] for method, path, body in ollama_server.state.requests if path == "/api/chat"]
    assert sorted(chats) == ["llama3", "qwen2.5:7b"]
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("oracle+llm-llama3+llm-qwen2.5-7b-")
    md = (run_dir / "report.md").read_text()
    assert "### llm:llama3 and llm:qwen2.5:7b" in md and "### llm:qwen2.5:7b and oracle" in md
    # A model the server does not have: one line naming it, before any episode.
    cwd = tmp_path / "missing"
    cwd.mkdir()
    _fails_cleanly(
        run_cli(["run", "--arms", "oracle,llm:nope", "--episodes", "1", *host], cwd, timeout=120), cwd, "nope"
    )


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fails_cleanly(r, tmp_path: Path, needle: str) -> None:
    assert r.returncode != 0
    out = r.stdout + r.stderr  # node lines come through the launcher's prefixed log
    assert any(needle in line and "error" in line for line in out.splitlines()), out[-2000:]
    assert "Traceback" not in out
    assert not list((tmp_path / "runs").glob("*/episodes.jsonl")) if (tmp_path / "runs").exists() else True


def test_planner_failures_stop_the_run_with_one_line(tmp_path, ollama_server):
    base = ["run", "--arms", "llm", "--episodes", "1"]
    cases = {
        "unreachable": (
            ["--llm-backend", "ollama", "--set", f"llm_planner.ollama_host=http://127.0.0.1:{_closed_port()}"],
            "Ollama not reachable",
        ),
        "missing_gguf": (["--llm-backend", "llamacpp", "--set", "llm_planner.gguf_path=/no/such.gguf"], "not found"),
    }
    for name, (extra, needle) in cases.items():
        cwd = tmp_path / name
        cwd.mkdir()
        _fails_cleanly(run_cli(base + extra, cwd, timeout=120), cwd, needle)
    # A model server that stops answering mid-run: the run stops, no episode is recorded for it.
    ollama_server.state.hold_chat = True
    cwd = tmp_path / "timeout"
    cwd.mkdir()
    extra = ["--llm-backend", "ollama", "--set", f"llm_planner.ollama_host={ollama_server.host}"]
    r = run_cli(base + extra + ["--set", "llm_planner.timeout_s=1.0"], cwd, timeout=120)
    _fails_cleanly(r, cwd, "llm planner unavailable")
