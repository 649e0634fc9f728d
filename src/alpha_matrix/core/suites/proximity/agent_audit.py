"""Audit of the agent's part of a proximity bag: what it saw, what it said, what the robot did.

From the recorded ``agent/observations`` and ``agent/decisions`` of one episode, with the
recorded estimates and truth:

1. **What it saw.** The link is replayed over the recorded estimates and the recorded decisions:
   every observation it builds must equal the recorded one (situation, tools, step, index; an
   attached image only by kind and step: the colour stream is not recorded), so
   the agent saw the detector's estimates and the robot's stop state, nothing else.
2. **What it said.** A decision whose backend answered in text is judged again from the recorded
   text against the recorded tools (core/agent/decide.py) and must come out the same; the
   reference agent is re-run on each recorded observation and must answer the same call.
3. **What the robot did.** Each stop the agent's decisions engaged is in effect L steps after
   its frame (the truth's ``stopped``).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.suites.agent_common import said_again
from alpha_matrix.core.suites.proximity.agent_link import AgentLink
from alpha_matrix.core.suites.proximity.situation import frame_estimate


def audit_agent(
    observations: Sequence[Any],
    decisions: Sequence[Any],
    estimates: Sequence[dict[str, Any]],
    stopped: np.ndarray,
    *,
    episode_id: str,
    threshold: float,
    latency: int,
    every: int,
    guards: bool,
    reference: Any = None,
    sorting: tuple[float | None, float | None] = (None, None),
) -> list[str]:
    """Problems found (empty: the agent's part is consistent). ``estimates``: the recorded
    estimates as dicts, by step; ``reference``: a ReferenceAgent when the agent was the reference."""
    problems: list[str] = []
    obs_by = {int(o.decision_index): o for o in observations}
    dec_by = {int(d.decision_index): d for d in decisions}
    if len(obs_by) != len(observations) or len(dec_by) != len(decisions):
        problems.append("the bag holds two observations or decisions with one index")
    if set(obs_by) != set(dec_by):
        missing = sorted(set(obs_by) ^ set(dec_by))[:3]
        problems.append(f"observations and decisions do not pair up (index {missing})")
    link = AgentLink(episode_id, threshold, every, latency, safe_pose_m=sorting[0], resume_after_s=sorting[1])
    link.frames = link.reference_frames  # the recorded estimates start after the detector's calibration
    last = len(stopped) - 1
    for e in estimates:
        est = frame_estimate(SimpleNamespace(**e))
        obs = link.on_estimate(est, e["action"] if guards else "none")
        if obs is None:
            continue
        i = obs.decision_index
        if i not in obs_by or i not in dec_by:
            if i in obs_by or i in dec_by or e["step"] <= last:
                problems.append(f"decision {i} (frame of step {e['step']}): not recorded")
            break
        recorded = observation_of(obs_by[i])
        if recorded.model_copy(update={"images": ()}) != obs:
            problems.append(f"decision {i} (step {e['step']}): the recorded observation differs from the link's replay")
            break
        if any(im.kind != "rgb" or im.step != e["step"] for im in recorded.images):  # the colour image is not recorded
            problems.append(f"decision {i} (step {e['step']}): an attached image is not the frame's colour image")
            break
        decision = decision_of(dec_by[i])
        if problem := said_again(recorded, decision, reference):
            problems.append(problem)
            break
        engage = link.on_decision(decision, e["step"])
        at = e["step"] + latency
        if engage and at <= last and not stopped[at]:
            problems.append(f"the agent's stop decided at step {e['step']} is not in effect at step {at}")
            break
    return problems
