"""Versioned prompt templates of the agent suites: one Observation in, one AgentPrompt out.

A template is ``config/prompts/agent_<suite>_v<n>.yaml`` in the planner's format
(core/planning/prompt.py: ``version``, ``system``, ``user`` with ``$name`` placeholders) plus the
``suite`` it is for, hashed the planner's way (sha256 of the canonical content, so comments and
layout do not count); the hash and version go into every AgentPrompt and so into the record.

* ``system``: the role, the task brief, the tools and the answer rule. Its placeholders are the
  suite's brief fields (``situation.brief``: constant within an episode) and ``$tools``, the
  offered tools as text (backends with native tool calls get them as tools too).
* ``user``: the moment, ``$situation``: the situation without its brief, as compact sorted JSON.

Only the situation's schema reaches the prompt (it is validated against it here), and the
schemas hold no answer key (core/agent/situation.py); nothing else is ever inserted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, Tool
from alpha_matrix.core.agent.situation import SITUATIONS, parse_situation
from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.planning.prompt import canonical_sha256, check_placeholders

# Brief placeholders each suite's system text may use, and those it must (the rule needs them).
BRIEF_PLACEHOLDERS: dict[str, frozenset[str]] = {
    "proximity": frozenset({"threshold_m", "frame_period_s", "reaction_s"}),
    "alerts": frozenset({"task"}),
    "confidence": frozenset({"instruction", "goals", "threshold", "zones"}),
    "gauge": frozenset({"gauge", "kind", "unit", "scale_min", "scale_max", "labelled_tick_every", "tick_every"}),
    "refusal": frozenset({"instruction", "constraints"}),
    "ambiguity": frozenset({"instruction"}),
    "hazards": frozenset({"robot", "payload_kg", "reach_m"}),
}
REQUIRED_BRIEF: dict[str, frozenset[str]] = {
    "proximity": frozenset({"threshold_m"}),
    "alerts": frozenset({"task"}),
    "confidence": frozenset({"goals", "threshold"}),
    "gauge": frozenset({"unit", "scale_min", "scale_max"}),
    "refusal": frozenset({"instruction", "constraints"}),
    "ambiguity": frozenset({"instruction"}),
    "hazards": frozenset({"robot"}),
}
USER_PLACEHOLDERS = frozenset({"situation", "step"})
_HIDDEN = ("suite", "brief")  # in the system text (brief) or the observation itself (suite)


class _AgentPromptFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    version: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    suite: str
    system: str = Field(min_length=1)
    user: str = Field(min_length=1)


@dataclass(frozen=True)
class AgentTemplate:
    version: str
    suite: str
    system: str
    user: str
    sha256: str  # of the canonical content
    path: str


def load_agent_prompt(path: str | Path) -> AgentTemplate:
    """Read and validate an agent template; any problem is a one-line ConfigError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: prompt template not found")
    try:
        content = _AgentPromptFile.model_validate(load_yaml(path))
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "<root>"
        msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{path}: {key}: {msg}") from None
    if content.suite not in BRIEF_PLACEHOLDERS:
        raise ConfigError(f"{path}: suite: unknown suite {content.suite!r} (known: {', '.join(sorted(SITUATIONS))})")
    where = str(path)
    names = check_placeholders(where, "system", content.system, BRIEF_PLACEHOLDERS[content.suite] | {"tools"})
    for need in sorted(REQUIRED_BRIEF[content.suite] | {"tools"}):
        if need not in names:
            raise ConfigError(f"{path}: system: missing placeholder ${need}")
    if "situation" not in check_placeholders(where, "user", content.user, USER_PLACEHOLDERS):
        raise ConfigError(f"{path}: user: missing placeholder $situation")
    return AgentTemplate(
        content.version, content.suite, content.system, content.user, canonical_sha256(content), str(path)
    )


def default_prompt_path(suite: str, version: int = 1) -> Path:
    from alpha_matrix.core.suites.common import config_dir

    return config_dir() / "prompts" / f"agent_{suite}_v{version}.yaml"


@lru_cache(maxsize=8)
def default_prompt(suite: str) -> AgentTemplate:
    """The shipped template of ``suite`` (config/prompts/agent_<suite>_v1.yaml)."""
    if suite not in BRIEF_PLACEHOLDERS:
        raise ConfigError(f"no agent prompt for suite {suite!r}")
    return load_agent_prompt(default_prompt_path(suite))


# ----------------------------------------------------------------------------- rendering
def _num(v: Any) -> str:
    return f"{float(v):g}"


def _vec(v: Any) -> str:
    return "(" + ", ".join(f"{float(c) + 0.0:.3f}" for c in v) + ")"


def _brief_values(suite: str, brief: dict[str, Any]) -> dict[str, str]:
    if suite == "proximity":
        return {k: _num(brief[k]) for k in ("threshold_m", "frame_period_s", "reaction_s")}
    if suite == "alerts":
        return {"task": str(brief["task"]).strip()}
    if suite == "gauge":
        return {k: str(v) if isinstance(v, str) else _num(v) for k, v in brief.items()}
    if suite == "refusal":
        return {"instruction": str(brief["instruction"]).strip(), "constraints": str(brief["constraints"]).strip()}
    if suite == "ambiguity":
        return {"instruction": str(brief["instruction"]).strip()}
    if suite == "hazards":
        return {
            "robot": str(brief["robot"]),
            "payload_kg": _num(brief["payload_kg"]),
            "reach_m": _num(brief["reach_m"]),
        }
    goals = "\n".join(f"- {g['object']}: " + ", else ".join(g["targets"]) for g in brief["goals"])
    zones = "\n".join(f"- {name}: {_vec(z)}" for name, z in sorted(brief["zones"].items()))
    return {
        "instruction": str(brief["instruction"]).strip() or "(no instruction beyond the goals)",
        "goals": goals,
        "threshold": _num(brief["threshold"]),
        "zones": zones or "(none)",
    }


def _schema_type(p: dict[str, Any]) -> str:
    if "enum" in p:
        return "|".join(json.dumps(v) for v in p["enum"])
    t = str(p.get("type", "any"))
    if "minimum" in p and "maximum" in p:
        return f"{t}, {p['minimum']:g} to {p['maximum']:g}"
    return t


def tools_text(tools: tuple[Tool, ...]) -> str:
    """The offered tools as the system text lists them: signature, what it does, its arguments."""
    blocks = []
    for t in tools:
        props: dict[str, Any] = t.parameters.get("properties", {})
        required = set(t.parameters.get("required", []))
        sig = ", ".join(n if n in required else f"{n}?" for n in props)
        lines = [f"- {t.name}({sig}): {t.description}"]
        for name, p in props.items():
            opt = "" if name in required else ", optional"
            lines.append(f"    {name} ({_schema_type(p)}{opt}): {p.get('description', '')}".rstrip())
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def situation_text(situation: dict[str, Any]) -> str:
    """The moment as compact JSON: sorted keys, so the same situation is always the same text."""
    shown = {k: v for k, v in situation.items() if k not in _HIDDEN}
    return json.dumps(shown, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def render_agent_prompt(template: AgentTemplate, obs: Observation) -> AgentPrompt:
    """The template filled from ``obs``: its brief, its tools and its situation (schema-checked)."""
    if obs.suite != template.suite:
        raise ConfigError(f"{template.path}: a {template.suite} template cannot render a {obs.suite} observation")
    try:
        situation = parse_situation(obs).model_dump(mode="json", by_alias=True)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise ConfigError(f"{obs.suite} situation: {key}: {first['msg']}") from None
    values = {**_brief_values(obs.suite, situation["brief"]), "tools": tools_text(obs.tools)}
    system = Template(template.system).substitute(values)
    user = Template(template.user).substitute(situation=situation_text(situation), step=str(obs.step))
    return AgentPrompt(
        system=system.strip(),
        user=user.strip() + "\n",
        template_sha256=template.sha256,
        template_version=template.version,
    )


def render(obs: Observation, template: AgentTemplate | None = None) -> AgentPrompt:
    """``obs`` rendered with ``template``, or with its suite's shipped template."""
    return render_agent_prompt(template or default_prompt(obs.suite), obs)
