"""Representative decision points of the shipped scenario files, for the agent's tests.

Proximity: the detector's frames along a run's path -- the person's true distance (from the
path, as the scorer has it) made into an estimate the way the depth detector errs: an offset for
the unseen feet, seeded noise, and missed frames -- at the frame steps of the run. The truth is
returned beside them so a test can check it never reaches the agent.

Alerts: the HardwareAlert messages of a scenario as the guard receives them (raised at
``at_step``, cleared at ``cleared_at_step``), in step order.

Confidence: a symbolic robot (a pick lifts the block, a place lands it on its target) and
the emulator's scores on a fixed start state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from alpha_matrix.core.agent.prompts import AgentTemplate
from alpha_matrix.core.agent.prompts import render as render_prompt
from alpha_matrix.core.agent.protocol import AgentPrompt, Observation
from alpha_matrix.core.agent.situation import observation as agent_observation
from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.human import HumanPath, path_state
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, Skill, SkillState, place_target
from alpha_matrix.core.suites.proximity.run import ProximityScenario
from alpha_matrix.core.suites.proximity.situation import BASE_XY, FrameEstimate
from alpha_matrix.core.suites.registry import suite


def observation(situation: Any, episode_id: str, decision_index: int) -> Observation:
    """The situation's observation with its suite's tools (its suite looked up in the registry)."""
    return agent_observation(situation, episode_id, decision_index, suite(situation.suite).tools(situation))


def render(obs: Observation, template: AgentTemplate | None = None) -> AgentPrompt:
    """The observation's prompt, its suite looked up in the registry."""
    return render_prompt(obs, suite(obs.suite), template)


FRAME_EVERY = 24
REFERENCE_FRAMES = 5  # the detector's calibration frames: no estimate
FEET = 0.12  # m the detector's nearest point is farther than the true nearest (feet unseen)


@dataclass(frozen=True)
class Frame:
    estimate: FrameEstimate
    true_distance: float  # the scorer's ground truth at the frame's step


def proximity_frames(sc: ProximityScenario, detection_range: float = 4.0) -> list[Frame]:
    """Every frame of the run after calibration, with its estimate and its truth."""
    path = HumanPath(**sc.path)
    noise = rng("agent-test", sc.seed, sc.run)
    out = []
    first = FRAME_EVERY * (REFERENCE_FRAMES + 1)
    for step in range(first, sc.end_step + 1, FRAME_EVERY):
        t = (step - sc.settle_steps) * sc.policy.timestep
        st = path_state(path, max(t, 0.0), BASE_XY)
        true = math.hypot(st.x - BASE_XY[0], st.y - BASE_XY[1]) - 0.3  # nearest body point
        est = round(true + FEET + float(noise.normal(0.0, 0.03)), 3)
        missed = float(noise.random()) < 0.06
        seen = est <= detection_range and not missed
        bearing = math.atan2(st.y - BASE_XY[1], st.x - BASE_XY[0])
        near = (BASE_XY[0] + est * math.cos(bearing), BASE_XY[1] + est * math.sin(bearing)) if seen else None
        conf = round(float(np.clip(0.6 + noise.normal(0.0, 0.1), 0.0, 1.0)), 3)
        e = FrameEstimate(step, seen, est if seen else math.inf, conf, int(seen), near)
        out.append(Frame(e, true))
    return out


def alert_events(sc: AlertScenario) -> list[AlertEvent]:
    """The scenario's alerts and clears as received, in step order (a raise before a clear)."""
    evs = [(a.at_step, 0, i, AlertEvent(a, a.at_step, False)) for i, a in enumerate(sc.alerts)]
    evs += [
        (a.cleared_at_step, 1, i, AlertEvent(a, a.cleared_at_step, True))
        for i, a in enumerate(sc.alerts)
        if a.cleared_at_step is not None
    ]
    return [e for *_, e in sorted(evs, key=lambda t: t[:3])]


START = {"red": (0.5, -0.1, 0.65), "green": (0.6, 0.05, 0.65), "blue": (0.45, 0.1, 0.65), "yellow": (0.65, -0.25, 0.65)}


def symbolic_effect(state: SkillState, skill: Skill, geo: SceneGeometry) -> SkillState:
    """What a perfect robot would do: picks lift, places land on the target."""
    pos = dict(state.positions)
    if skill.verb == "pick":
        x, y, _ = pos[skill.obj]
        pos[skill.obj] = (x, y, 0.80)
        return SkillState(pos, skill.obj, geo.size)
    target = place_target(skill, state, geo)
    assert target is not None
    pos[skill.obj] = target
    return SkillState(pos, None, 0.08)
