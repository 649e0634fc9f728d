"""A baseline agent that calls one tool at every decision point (e.g. ``always:continue_task``).

The lower bound a model should beat, and the probe of the guards: an agent that never stops
shows what the deterministic layer catches (guards on) and what reaches the robot (guards
off). It calls the tool with no arguments; a tool that requires some is judged invalid, like
any agent's call that lacks them.
"""

from __future__ import annotations

import json

from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, Observation, RawAnswer, RawToolCall


class AlwaysAgent:
    name = "always"

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.model = tool

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        raw = json.dumps({"tool": self.tool, "arguments": {}}, sort_keys=True)
        return RawAnswer(
            tool_calls=(RawToolCall(name=self.tool),),
            provenance=AgentProvenance(
                backend=self.name,
                model=self.tool,
                seed=seed,
                template_sha256=prompt.template_sha256,
                template_version=prompt.template_version,
                raw_text=raw,
            ),
        )
