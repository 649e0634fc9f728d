"""The prompt a model backend reads for one ambiguity observation (the reference reads none).

Kept in the suite until the suite is registered with core/agent/prompts.py (which knows only
registered suites' briefs): the same shape, a system text (role, tools, answer rule) and a user
text (the situation as compact sorted JSON), hashed the same way so the record can name it.
"""

from __future__ import annotations

import hashlib
import json

from alpha_matrix.core.agent.prompts import tools_text
from alpha_matrix.core.agent.protocol import AgentPrompt, Observation

VERSION = "ambiguity_v1"
SYSTEM = """You control a robot arm at a table. An operator gave you an instruction about the blocks in the scene.
Blocks have a colour and a shape; places are bins (by colour), the slots of the tray (numbered) and pads next to a bin.
x_m grows to the operator's right: the leftmost block has the smallest x_m.
If the instruction says exactly what to move and where, do it: one pick_and_place call per decision, then task_done.
If it leaves anything open (which block, how many, where, how to sort), ask the operator first with ask_clarification;
the answer appears in the dialogue at your next decision.
Answer with exactly one tool call, as JSON: {"tool": <name>, "arguments": {...}}.

Tools:
$tools"""
USER = "Situation (step $step):\n$situation"


def template_sha256() -> str:
    return hashlib.sha256(
        json.dumps({"version": VERSION, "system": SYSTEM, "user": USER}, sort_keys=True).encode()
    ).hexdigest()


def prompt_of(obs: Observation) -> AgentPrompt:
    situation = json.dumps(obs.situation, sort_keys=True, separators=(",", ":"))
    return AgentPrompt(
        system=SYSTEM.replace("$tools", tools_text(obs.tools)),
        user=USER.replace("$step", str(obs.step)).replace("$situation", situation) + "\n",
        template_sha256=template_sha256(),
        template_version=VERSION,
    )


__all__ = ["SYSTEM", "USER", "VERSION", "prompt_of", "template_sha256"]
