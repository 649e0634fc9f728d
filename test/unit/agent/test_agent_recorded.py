"""Replay from a bag: each recorded decision's raw answer, decoded with its backend's decoder,
judges again into the same decision (embedded text, Ollama and OpenAI native tool calls, an
invalid answer), labelled recorded; a recorded abort replays as the same abort; of an episode
recorded twice (interrupted, then rerun) the attempt with the result is replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.protocol import NO_PROMPT, AgentProvenance, Decision, InfrastructureAbort, Observation
from alpha_matrix.core.agent.recorded import answers_from_bag
from alpha_matrix.core.agent.replay import ReplayAgent
from alpha_matrix.core.backends.errors import ReplayError
from alpha_matrix.core.bag import SplitBagWriter, make_typestore
from alpha_matrix.core.suites.proximity.tools import PROXIMITY_TOOLS

TOPICS = {
    "/suite/request": "alpha_matrix_interfaces/msg/SuiteRequest",
    "/suite/result": "alpha_matrix_interfaces/msg/SuiteResult",
    "/agent/decisions": "alpha_matrix_interfaces/msg/AgentDecision",
}
EP = "proximity-a02-1m"

# (backend, raw_text as recorded, the decision it was judged into: kind, tool, arguments)
ANSWERS = [
    ("llamacpp", '{ "tool": "robot_stop", "arguments": { "reason": "close" } }', ("tool_call", "robot_stop", {"reason": "close"})),
    ("ollama", json.dumps({"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "continue_task", "arguments": {"distance_m": 2.5}}}]}), ("tool_call", "continue_task", {"distance_m": 2.5})),
    ("openai", json.dumps({"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "robot_stop", "arguments": "{\"reason\": \"x\"}"}}]}), ("tool_call", "robot_stop", {"reason": "x"})),
    ("llamacpp", "I think the robot is fine", ("invalid", "", {})),
]  # fmt: skip


def _decision(T, index: int, backend: str, raw: str, judged: tuple, abort: bool = False):
    kind, tool, args = ("abort", "", {}) if abort else judged
    prov = T["alpha_matrix_interfaces/msg/AgentProvenance"](
        backend=backend, model="m", digest="d", prompt_tokens=10, completion_tokens=5, latency_s=1.5, seed=0,
        template_sha256="s", template_version="v", attempts=4 if abort else 1, raw_text=raw, recorded=False,
    )  # fmt: skip
    attempts = [
        T["alpha_matrix_interfaces/msg/AgentAttempt"](attempt=i, outcome="refused", status=0, latency_s=0.1, detail="x")
        for i in range(1, 5 if abort else 1)
    ]
    return T["alpha_matrix_interfaces/msg/AgentDecision"](
        episode_id=EP, decision_index=index, step=144 + 24 * index, kind=kind, tool=tool,
        arguments_json=json.dumps(args) if kind == "tool_call" else "", message="no answer after 4 attempts" if abort else "",
        invalid="no_json" if kind == "invalid" else "", invalid_detail="", provenance=prov, attempts=attempts,
    )  # fmt: skip


def _write(bag: Path, interrupted: bool = False) -> None:
    store = make_typestore()
    T = store.types
    w = SplitBagWriter(bag, TOPICS)
    t = 0

    def put(topic: str, msg) -> None:
        nonlocal t
        t += 1000
        w.write(topic, t, store.serialize_cdr(msg, TOPICS[topic]))

    request = T[TOPICS["/suite/request"]](
        episode_id=EP, suite="proximity", index=0, seed=1, scenario_json="{}", context_json=""
    )
    if interrupted:  # a first attempt, killed after one decision that the rerun answers otherwise
        put("/suite/request", request)
        put(
            "/agent/decisions",
            _decision(
                T, 0, "llamacpp", '{"tool": "continue_task", "arguments": {}}', ("tool_call", "continue_task", {})
            ),
        )
    put("/suite/request", request)
    for i, (backend, raw, judged) in enumerate(ANSWERS):
        put("/agent/decisions", _decision(T, i, backend, raw, judged))
    put("/agent/decisions", _decision(T, len(ANSWERS), "ollama", "", ("abort", "", {}), abort=True))
    put(
        "/suite/result",
        T[TOPICS["/suite/result"]](
            episode_id=EP, ok=True, message="", result_json="{}", agent_decisions=len(ANSWERS) + 1, agent_episode_id=""
        ),
    )
    w.close()


def _obs(index: int) -> Observation:
    return Observation(suite="proximity", episode_id=EP, step=144 + 24 * index, decision_index=index,
                       situation={}, tools=PROXIMITY_TOOLS)  # fmt: skip


@pytest.mark.parametrize("interrupted", [False, True])
def test_recorded_answers_judge_again_into_the_recorded_decisions(tmp_path: Path, interrupted: bool) -> None:
    _write(tmp_path / "b", interrupted)
    answers = answers_from_bag(tmp_path / "b")
    assert [(e, i) for e, i, _ in answers] == [(EP, i) for i in range(len(ANSWERS) + 1)]
    agent = ReplayAgent(answers)
    for i, (_backend, raw, (kind, tool, args)) in enumerate(ANSWERS):
        d = _decide(agent, i)
        assert d.kind == kind, raw
        if kind == "tool_call":
            assert d.call is not None and (d.call.name, d.call.arguments) == (tool, args)
        assert d.provenance.recorded and d.provenance.latency_s == 1.5 and d.provenance.raw_text == raw
    abort = _decide(agent, len(ANSWERS))
    assert abort.kind == "abort" and len(abort.attempts) == 4 and "no answer" in abort.message


def _decide(agent: ReplayAgent, index: int) -> Decision:
    """As Agent.decide does, without a prompt (the replay reads none): answer, then judge."""
    obs = _obs(index)
    try:
        raw = agent.answer(obs, NO_PROMPT, 0)
    except InfrastructureAbort as abort:
        return Decision(kind="abort", message=str(abort), provenance=AgentProvenance(backend="replay"),
                        attempts=abort.attempts)  # fmt: skip
    return decide(obs.tools, raw)


def test_a_bag_without_decisions_is_one_line(tmp_path: Path) -> None:
    store = make_typestore()
    w = SplitBagWriter(tmp_path / "b", TOPICS)
    w.write("/suite/request", 1, store.serialize_cdr(store.types[TOPICS["/suite/request"]](
        episode_id=EP, suite="proximity", index=0, seed=1, scenario_json="{}", context_json=""), TOPICS["/suite/request"]))  # fmt: skip
    w.close()
    with pytest.raises(ReplayError, match="no recorded agent decisions"):
        answers_from_bag(tmp_path / "b")
