"""The toy suite's offline runner: each scenario's readings as decision points for an agent.

It knows its suite, and passes it in: the agent is built here with the toy suite object (and the
reference given it too), so core/agent never needs to know the toy exists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from alpha_matrix.core.agent.agent import Agent
from alpha_matrix.core.agent.prompts import load_agent_prompt
from alpha_matrix.core.agent.protocol import AgentBackend
from alpha_matrix.core.agent.situation import observation
from alpha_matrix.core.agent.suite import SuiteSource, suite_lookup
from alpha_matrix.core.suites.suite import ScenarioRequest

TEMPLATE = Path(__file__).with_name("agent_toy_v1.yaml")


def agent_for(backend: AgentBackend, suites: SuiteSource) -> Agent:
    """The agent under test with the toy's own prompt template (its folder's, not config/)."""
    return Agent(backend, suites, seed=3, templates={"toy": load_agent_prompt(TEMPLATE, suites)})


def run_scenario(request: ScenarioRequest, agent: Agent, suites: SuiteSource) -> dict[str, Any]:
    """One kettle: every reading a decision, scored against the scenario's expected tools."""
    from toy_suite.situation import ToyBrief, ToySituation

    suite = suite_lookup(suites)("toy")
    scenario = json.loads(request.scenario_json)
    brief = ToyBrief(limit_c=scenario["limit_c"])
    decisions, prompts = [], []
    for i, t in enumerate(scenario["readings"]):
        sit = ToySituation(brief=brief, step=10 * i, temperature_c=t)
        obs = observation(sit, f"toy-{request.name}", i, suite.tools(sit))
        d = agent.decide(obs)
        decisions.append(d.call.name if d.kind == "tool_call" and d.call is not None else f"<{d.kind}>")
        prompts.append(d.provenance.template_version)
    right = sum(d == e for d, e in zip(decisions, scenario["expect"], strict=True))
    hot_carry = sum(
        d != "cool_down" and t > scenario["limit_c"] for d, t in zip(decisions, scenario["readings"], strict=True)
    )
    return {
        "decisions": decisions,
        "expect": scenario["expect"],
        "right": right,
        "overheated": hot_carry,
        "templates": prompts,
    }
