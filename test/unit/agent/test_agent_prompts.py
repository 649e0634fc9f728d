"""Agent prompt templates: the planner's format and hashing, validated at load, rendered from an
Observation alone (system: role, brief, tools, the answer rule; user: the situation as JSON)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from alpha_matrix.core.agent.prompts import (
    default_prompt,
    default_prompt_path,
    load_agent_prompt,
    render_agent_prompt,
    situation_text,
)
from alpha_matrix.core.agent.prompts import render as render_prompt
from alpha_matrix.core.agent.protocol import AgentPrompt, Observation
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.proximity.plugin import SUITE as PROXIMITY
from alpha_matrix.core.suites.proximity.situation import (
    FrameEstimate,
    ProximityRobotView,
    observation,
    proximity_situation,
)
from alpha_matrix.core.suites.proximity.tools import PROXIMITY_TOOLS
from alpha_matrix.core.suites.registry import suite as suite_named

SUITES = ("proximity", "alerts", "confidence")


def render(obs: Observation) -> AgentPrompt:
    return render_prompt(obs, PROXIMITY)


def _obs(threshold: float = 2.0) -> Observation:
    frames = [FrameEstimate(144 + 24 * k, True, 2.5 - 0.2 * k, 0.8, 1, (-2.4 + 0.2 * k, 0.1)) for k in range(3)]
    return observation(proximity_situation(frames, ProximityRobotView(stopped=False), threshold), "ep", 2)


@pytest.mark.parametrize("suite", SUITES)
def test_shipped_templates_load_with_version_and_hash(suite: str) -> None:
    t = default_prompt(suite_named(suite))
    assert t.suite == suite and t.version == f"agent_{suite}_v1" and len(t.sha256) == 64
    assert Path(t.path) == default_prompt_path(suite)


def test_the_hash_is_of_the_content_not_the_comments(tmp_path: Path) -> None:
    src = default_prompt_path("proximity")
    copy = tmp_path / "p.yaml"
    copy.write_text("# another comment\n" + src.read_text())
    assert load_agent_prompt(copy, suite_named).sha256 == default_prompt(suite_named("proximity")).sha256
    copy.write_text(src.read_text().replace("safety supervisor", "safety officer"))
    assert load_agent_prompt(copy, suite_named).sha256 != default_prompt(suite_named("proximity")).sha256
    assert (
        default_prompt(suite_named("proximity")).sha256 != hashlib.sha256(src.read_bytes()).hexdigest()
    )  # canonical, as the planner's


def test_the_prompt_carries_brief_tools_and_situation() -> None:
    obs = _obs()
    p = render(obs)
    t = default_prompt(suite_named("proximity"))
    assert (p.template_sha256, p.template_version) == (t.sha256, t.version)
    assert "within 2 m of the robot base axis" in p.system
    for tool in PROXIMITY_TOOLS:
        assert f"- {tool.name}(" in p.system
    assert "exactly one" in p.system and '{"tool": "<tool name>"' in p.system
    body = p.user.split("\n", 1)[1]
    shown = json.loads(body)
    assert shown == {k: v for k, v in obs.situation.items() if k not in ("suite", "brief")}
    assert p.user.startswith("Frame at step 192:")


def test_rendering_does_not_depend_on_key_order() -> None:
    obs = _obs()
    shuffled = obs.model_copy(update={"situation": json.loads(json.dumps(obs.situation, sort_keys=True))})
    reversed_keys = obs.model_copy(update={"situation": dict(reversed(list(obs.situation.items())))})
    assert render(obs) == render(shuffled) == render(reversed_keys)
    assert situation_text(obs.situation) == situation_text(reversed_keys.situation)


def test_a_situation_off_its_schema_is_refused() -> None:
    obs = _obs()
    leaky = obs.model_copy(update={"situation": {**obs.situation, "expect": "stop"}})
    with pytest.raises(ConfigError, match="expect"):
        render(leaky)
    with pytest.raises(ConfigError, match="cannot render"):
        render_agent_prompt(default_prompt(suite_named("alerts")), obs, PROXIMITY)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda s: s.replace("$tools", "tools"), r"missing placeholder \$tools"),
        (lambda s: s.replace("$threshold_m", "two"), r"missing placeholder \$threshold_m"),
        (lambda s: s.replace("$situation", "nothing"), r"missing placeholder \$situation"),
        (lambda s: s.replace("$reaction_s", "$margin"), r"unknown placeholder \$margin"),
        (lambda s: s.replace("suite: proximity", "suite: lidar"), "unknown suite"),
        (lambda s: s + "expect: stop\n", "unknown key"),
    ],
)
def test_template_problems_are_one_line_config_errors(tmp_path: Path, edit, match: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(edit(default_prompt_path("proximity").read_text()))
    with pytest.raises(ConfigError, match=match):
        load_agent_prompt(path, suite_named)


def test_a_missing_template_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_agent_prompt(tmp_path / "none.yaml", suite_named)
    shutil.copy(default_prompt_path("alerts"), tmp_path / "a.yaml")
    assert load_agent_prompt(tmp_path / "a.yaml", suite_named).suite == "alerts"
