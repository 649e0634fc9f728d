"""A new suite is one folder and one registry line: the toy suite (toy_suite/) runs through the
registry and the generic agent path -- scenarios, situations, the reference's decisions judged by
core/agent/decide.py, the summary, the headline and the report -- with no file outside its folder
touched (the registry's one mapping is patched for the test)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, Observation, RawAnswer
from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.records import Provenance
from alpha_matrix.core.suites import registry, report
from alpha_matrix.core.suites.records import SuiteRecord, SuiteTiming

TOY = "toy_suite.plugin:SUITE"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy registered: one line in the registry's one mapping; its modules not yet imported."""
    for name in [m for m in sys.modules if m == "toy_suite" or m.startswith("toy_suite.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(registry.SUITES, "toy", TOY)


def test_unregistered_the_toy_is_an_unknown_suite() -> None:
    with pytest.raises(ConfigError, match=r"^unknown suite 'toy' \(known: confidence, alerts"):
        registry.suite("toy")
    with pytest.raises(ValueError, match="unknown suite 'toy'"):
        _record("steady", 0, {})


def test_the_registry_loads_the_toy_object_lightly(toy) -> None:
    s = registry.suite("toy")
    assert s.name == "toy" and registry.spec("toy") is s and s.audit_unit == "decisions"
    assert "toy_suite.plugin" in sys.modules and "toy_suite.situation" not in sys.modules  # pieces: when called
    assert registry.suite_of_topics({"/suite/request", "/toy/readings"}) == "toy"
    with pytest.raises(ConfigError, match="no graph"):
        registry.graph_context("toy", None)  # type: ignore[arg-type]


def _run(backend_of) -> list[dict]:
    from toy_suite.run import agent_for, run_scenario

    requests = registry.scenario_requests("toy", None, None)
    assert [r.name for r in requests] == ["steady", "boils_over", "low_limit"]
    # the layer that knows the suite by name passes it in: here the registry's lookup
    agent = agent_for(backend_of(registry.suite), registry.suite)
    return [run_scenario(r, agent, registry.suite) for r in requests]


def _record(name: str, index: int, result: dict) -> SuiteRecord:
    prov = Provenance(code_revision="x", code_dirty=False, config_hash="h", packages={}, python="3.11")
    return SuiteRecord(
        suite="toy", run_id="r1", episode_id=f"toy-{name}", index=index, scenario=name, seed=index, ok=True,
        message="", result=result, provenance=prov, timing=SuiteTiming(started_at="t", wall_s=1.0),
    )  # fmt: skip


def test_the_reference_decides_the_toy_through_the_generic_agent_and_the_report_reads_it(toy) -> None:
    results = _run(lambda suites: ReferenceAgent(suites))
    # the reference's own memory: 79 C after boiling over is still cooled (2 C hysteresis)
    assert [r["decisions"] for r in results] == [
        ["carry_on", "carry_on", "carry_on"],
        ["carry_on", "cool_down", "cool_down", "carry_on"],
        ["cool_down", "carry_on"],
    ]
    assert all(r["templates"] == ["agent_toy_v1"] * len(r["decisions"]) for r in results)
    records = [
        _record(name, i, r)
        for i, (name, r) in enumerate(zip(("steady", "boils_over", "low_limit"), results, strict=True))
    ]
    summary = report.summarize_records("toy", records)
    assert (summary["decisions"], summary["right"], summary["overheated"]) == (9, 9, 0)
    line = report.headline("toy", records)
    assert line.startswith("suite toy: kettle decisions right: 9/9 = 100") and line.endswith(
        "0 overheats (kept heating above the limit)"
    )
    text = report.render_report("toy", "r1", records)
    assert "Tested: 3 kettles" in text and "| boils_over | carry_on, cool_down, cool_down, carry_on | 4 |" in text
    assert "| overheats | readings above the limit" in text.split("## Glossary")[1]  # the toy's term
    assert registry.progress_line("toy", results[1]) == "4/4 right"


class _Says:
    """A model that answers one fixed text, and keeps the prompts it was shown."""

    name = "scripted"

    def __init__(self, text: str) -> None:
        self.text, self.prompts = text, []

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        self.prompts.append(prompt)
        return RawAnswer(text=self.text, provenance=AgentProvenance(backend=self.name, seed=seed, raw_text=self.text))


def test_a_model_sees_the_toy_brief_and_is_judged_against_the_toy_tools(toy) -> None:
    said = _Says('{"tool": "cool_down", "arguments": {}}')  # the toy's tool, its required reason missing
    results = _run(lambda suites: said)
    assert {d for r in results for d in r["decisions"]} == {"<invalid>"}
    system = said.prompts[0].system
    assert "hotter than 80 degrees" in system and "- cool_down(reason): Switch the heater off" in system
    assert said.prompts[-1].system.startswith("You watch a kettle. Cool it down whenever the water is hotter than 40 ")
    said.text = '{"tool": "cool_down", "arguments": {"reason": "too hot"}}'
    assert _run(lambda suites: said)[2]["decisions"] == ["cool_down", "cool_down"]  # valid: a toy tool
    said.text = '{"tool": "robot_stop", "arguments": {"reason": "too hot"}}'  # another suite's tool
    assert {d for r in _run(lambda suites: said) for d in r["decisions"]} == {"<invalid>"}


def test_the_toy_is_all_in_its_folder() -> None:
    folder = Path(__file__).with_name("toy_suite")
    assert sorted(p.name for p in folder.iterdir() if p.suffix in (".py", ".yaml")) == [
        "__init__.py", "agent_toy_v1.yaml", "plugin.py", "reference_agent.py", "report.py", "run.py", "situation.py",
    ]  # fmt: skip
    assert "toy" not in registry.SUITES  # registered by the test only
