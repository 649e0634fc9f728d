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
schemas hold no answer key (core/agent/situation.py); nothing else is ever inserted. Which brief
placeholders a suite's template may (and must) use, and their values, are the suite's own
(``AgentSuite``: core/agent/suite.py), given to the functions here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, Tool
from alpha_matrix.core.agent.situation import parse_situation
from alpha_matrix.core.agent.suite import AgentSuite, SuiteSource, suite_lookup
from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.templates import canonical_sha256, check_placeholders

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


def load_agent_prompt(path: str | Path, suites: SuiteSource) -> AgentTemplate:
    """Read and validate an agent template for its suite (looked up in ``suites``); any problem is a
    one-line ConfigError naming the file."""
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
    try:
        suite = suite_lookup(suites)(content.suite)
    except ConfigError as err:
        raise ConfigError(f"{path}: suite: {err}") from None
    where = str(path)
    names = check_placeholders(where, "system", content.system, suite.brief_placeholders | {"tools"})
    for need in sorted(suite.required_brief | {"tools"}):
        if need not in names:
            raise ConfigError(f"{path}: system: missing placeholder ${need}")
    if "situation" not in check_placeholders(where, "user", content.user, USER_PLACEHOLDERS):
        raise ConfigError(f"{path}: user: missing placeholder $situation")
    return AgentTemplate(
        content.version, content.suite, content.system, content.user, canonical_sha256(content), str(path)
    )


def default_prompt_path(suite: str, version: int = 1) -> Path:
    from alpha_matrix.core.graph import default_config_dir  # lazy: only when a default file is read

    return default_config_dir() / "prompts" / f"agent_{suite}_v{version}.yaml"


_DEFAULTS: dict[str, AgentTemplate] = {}  # by suite name: read once per process


def default_prompt(suite: AgentSuite) -> AgentTemplate:
    """The shipped template of ``suite`` (config/prompts/agent_<suite>_v1.yaml)."""
    template = _DEFAULTS.get(suite.name)
    if template is None:
        template = _DEFAULTS[suite.name] = load_agent_prompt(default_prompt_path(suite.name), suite)
    return template


# ----------------------------------------------------------------------------- rendering
def num(v: Any) -> str:
    return f"{float(v):g}"


def vec(v: Any) -> str:
    return "(" + ", ".join(f"{float(c) + 0.0:.3f}" for c in v) + ")"


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


def render_agent_prompt(template: AgentTemplate, obs: Observation, suite: AgentSuite) -> AgentPrompt:
    """The template filled from ``obs``: its brief, its tools and its situation (schema-checked
    against ``suite``'s, whose brief values fill the system text)."""
    if obs.suite != template.suite:
        raise ConfigError(f"{template.path}: a {template.suite} template cannot render a {obs.suite} observation")
    try:
        situation = parse_situation(obs, suite).model_dump(mode="json", by_alias=True)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise ConfigError(f"{obs.suite} situation: {key}: {first['msg']}") from None
    values = {**suite.brief_values(situation["brief"]), "tools": tools_text(obs.tools)}
    system = Template(template.system).substitute(values)
    user = Template(template.user).substitute(situation=situation_text(situation), step=str(obs.step))
    return AgentPrompt(
        system=system.strip(),
        user=user.strip() + "\n",
        template_sha256=template.sha256,
        template_version=template.version,
    )


def render(obs: Observation, suite: AgentSuite, template: AgentTemplate | None = None) -> AgentPrompt:
    """``obs`` rendered with ``template``, or with its suite's shipped template."""
    return render_agent_prompt(template or default_prompt(suite), obs, suite)
