"""The sorting task's safe-pose transition (core/suites/proximity/sorting.py, transition.py): the
planner keeps away from the person, the protective stop is the fallback inside the stop limit, the
resume logic, the verdicts, the scenario file's sorting section, and old scenarios unchanged."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, Observation, ToolCall
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.proximity.agent_link import AgentLink, sorting_brief
from alpha_matrix.core.suites.proximity.reference_agent import ProximityReference
from alpha_matrix.core.suites.proximity.run import scenario_from_json
from alpha_matrix.core.suites.proximity.scenarios import load_scenarios, scenario_requests
from alpha_matrix.core.suites.proximity.situation import FrameEstimate, ProximityBrief, ProximitySituation
from alpha_matrix.core.suites.proximity.sorting import (
    ArmView,
    Seen,
    SortingConfig,
    SortingController,
    move_chunks,
    path_keeps_away,
    segment_distance,
)
from alpha_matrix.core.suites.proximity.transition import Sample, SortingRun, summarize_transitions, transition_part

SORTING = config_dir() / "scenarios" / "proximity_sorting.yaml"
BLOCKS = {"red": (0.5, -0.1, 0.651), "green": (0.6, 0.1, 0.651), "blue": (0.45, 0.05, 0.651)}
READY = (0.4, 0.0, 0.9)
DT = 1.0 / 240.0


def _ctrl(agent: bool = False) -> SortingController:
    return SortingController(SortingConfig(), stop_limit=1.25, agent=agent)


class KinematicArm:
    """Every move lands on its target, a grip holds the nearest block, a release sets it down."""

    def __init__(self, c: SortingController) -> None:
        self.c, self.grasp, self.objs, self.step = c, READY, dict(BLOCKS), 120
        self.held: str | None = None
        self.log: list[tuple[ArmView, Command]] = []

    def run(
        self,
        n: int,
        seen: Callable[[int], Seen | None] | None = None,
        calls: dict[int, str] | None = None,
        until: Callable[[], bool] | None = None,
    ) -> None:
        for _ in range(n):
            view = ArmView(self.step, self.grasp, dict(self.objs))
            f = seen(self.step - self.step % 24) if seen is not None else None
            cs = [(k, t) for k, t in (calls or {}).items() if view.step - 24 < k <= view.step]
            cmd = self.c.next_command(view, [f] if f is not None else [], cs)
            self.log.append((view, cmd))
            if cmd.kind == "move" and cmd.target is not None:
                self.grasp = cmd.target
                if self.held:
                    self.objs[self.held] = (self.grasp[0], self.grasp[1], self.grasp[2] + 0.005)
            elif cmd.kind == "gripper" and (cmd.width or 0) < 0.01:
                self.held = min(self.objs, key=lambda b: math.dist(self.objs[b], self.grasp))
            elif cmd.kind == "gripper":
                if self.held:
                    self.objs[self.held] = (self.grasp[0], self.grasp[1], 0.651)
                self.held = None
            self.step += cmd.steps
            if until is not None and until():
                return


def test_geometry_segment_distance_and_keep_away() -> None:
    assert segment_distance((0.0, 1.0), (-1.0, 0.0, 0.0), (1.0, 0.0, 0.0)) == pytest.approx(1.0)
    assert segment_distance((3.0, 0.0), (-1.0, 0.0, 0.0), (1.0, 0.0, 0.0)) == pytest.approx(2.0)
    person = (2.0, 0.0)
    assert path_keeps_away(person, (0.5, 0.0, 0.8), [(0.3, 0.3, 0.95)])
    assert not path_keeps_away(person, (0.5, 0.0, 0.8), [(0.7, 0.0, 0.8)])
    # both ends as far as the start, the middle of the segment nearer: refused
    assert not path_keeps_away((0.0, 1.0), (-0.5, 0.0, 0.8), [(0.5, 0.0, 0.8)])
    pieces = move_chunks((0.0, 0.0, 0.8), (0.3, 0.0, 0.8), 0.5, 24, DT)
    assert len(pieces) == 6 and pieces[-1].target == (0.3, 0.0, 0.8) and all(p.steps == 24 for p in pieces)


def test_task_sorts_every_block_with_nobody_about() -> None:
    c = _ctrl()
    KinematicArm(c).run(300)
    assert c.placed == ["red", "green", "blue"] and c.events == [] and c.mode == "done"


def _carrying_red(c: SortingController, arm: KinematicArm) -> None:
    arm.run(300, until=lambda: c._phase() == "carrying" and c.holding == "red")
    assert c.holding == "red"


def test_transition_puts_down_away_from_the_person_retracts_and_resumes() -> None:
    c = _ctrl()
    arm = KinematicArm(c)
    _carrying_red(c, arm)
    t0 = arm.step
    person = (0.1, 3.2)  # at +y, the bins' side: the carry goes toward them

    def seen(k: int) -> Seen:
        return Seen(k, 3.0, person) if t0 <= k < t0 + 2400 else Seen(k, math.inf, None)

    arm.run(400, seen)
    ev = c.events[0]
    assert ev.source == "guard" and ev.block == "red" and ev.plan == "ok" and ev.phase == "carrying"
    assert ev.spot is not None and ev.spot[1] < 0.0  # the far side from a person at +y
    assert ev.released_step is not None and ev.safe_step is not None and ev.resume_step is not None
    for view, cmd in arm.log:
        if ev.start_step <= view.step < ev.safe_step and cmd.kind == "move":
            assert cmd.target is not None  # no piece of the transition nears the measured person
            d0 = math.hypot(view.grasp[0] - person[0], view.grasp[1] - person[1])
            assert math.hypot(cmd.target[0] - person[0], cmd.target[1] - person[1]) >= d0 - 0.01
    assert c.placed == ["red", "green", "blue"]  # re-grasped where it was put down, then sorted


def test_inside_the_stop_limit_it_sends_no_motion_the_protective_stop_holds() -> None:
    """A person faster than the transition: inside the stop limit at the next boundary -> holds only."""
    c = _ctrl()
    arm = KinematicArm(c)
    _carrying_red(c, arm)
    t0 = arm.step - arm.step % 24 + 24
    arm.run(40, lambda k: Seen(k, 3.0 if k <= t0 else 1.0, (-1.0, 0.0)) if k >= t0 else None)
    assert c.events and c.events[0].waited_inside_stop > 0
    after = [cmd.kind for v, cmd in arm.log if v.step > t0 + 24]
    assert after and set(after) == {"hold"}


def test_behind_the_base_it_stays_where_it_is_farther_than_every_safe_posture() -> None:
    c = _ctrl()
    view = ArmView(2000, (0.75, 0.38, 0.8), dict(BLOCKS))
    c.placed, c.block_i = ["red", "green", "blue"], 3
    c.mode = "done"
    c.next_command(view, [Seen(2000, 3.0, (-2.0, 0.0))])
    ev = c.events[0]
    assert ev.plan == "ok" and ev.safe_pose is not None and math.dist(ev.safe_pose, (0.75, 0.38, 0.8)) < 1e-9


def test_agent_safe_pose_triggers_and_continue_task_resumes() -> None:
    c = _ctrl(agent=True)
    arm = KinematicArm(c)
    arm.run(10)
    v = ArmView(arm.step, arm.grasp, dict(arm.objs))
    c.next_command(ArmView(v.step + 24, v.grasp, v.objects), [Seen(v.step + 24, 3.0, (3.0, 0.0))])
    assert not c.events  # the guard does not trigger it when an agent decides
    c.next_command(ArmView(v.step + 48, v.grasp, v.objects), [], [(v.step + 48, "safe_pose")])
    assert c.events and c.events[0].source == "agent"


def test_verdicts_set_down_safe_in_time_and_person_too_fast() -> None:
    cfg = SortingConfig()
    ev = {"source": "guard", "trigger_step": 100, "start_step": 110, "phase": "carrying", "block": "red",
          "spot": [0.35, -0.38], "safe_pose": [0.3, -0.3, 0.95], "plan": "ok", "released_step": 300,
          "resume_step": 900}  # fmt: skip
    held = (0.6, 0.2, 0.8)
    samples = [
        Sample(110, held, {"red": (0.6, 0.2, 0.805)}),
        Sample(300, (0.35, -0.38, 0.657), {"red": (0.35, -0.38, 0.651)}),
        Sample(400, (0.3, -0.3, 0.95), {"red": (0.35, -0.38, 0.651)}),
        Sample(1000, (0.35, -0.38, 0.8), {"red": (0.35, -0.38, 0.8)}),
        Sample(
            1500, (0.45, 0.38, 0.8), {"red": (0.45, 0.38, 0.65), "green": (0.6, 0.38, 0.65), "blue": (0.75, 0.38, 0.65)}
        ),
    ]
    gt = np.full(1600, 3.0)
    stopped = np.zeros(1600, bool)
    part = transition_part(
        {"transitions": [ev]}, SortingRun(samples, gt, stopped, lambda s: (0.1, 3.0), 0.3, 1.0, cfg, DT)
    )
    t = part["transitions"][0]
    assert t["set_down"] and not t["dropped"] and t["safe_step"] == 400 and t["reliable"]
    assert t["time_to_safe_s"] == pytest.approx(300 * DT, abs=1e-6) and t["resume_success"] and part["task_complete"]
    gt[200:] = 0.8  # the person within the threshold before the safe posture
    t2 = transition_part(
        {"transitions": [ev]}, SortingRun(samples, gt, stopped, lambda s: (0.1, 3.0), 0.3, 1.0, cfg, DT)
    )
    assert t2["transitions"][0]["cause"] == "person too fast" and not t2["transitions"][0]["reliable"]
    dropped = [samples[0], Sample(200, held, {"red": (0.6, 0.2, 0.651)}), *samples[1:]]
    t3 = transition_part(
        {"transitions": [ev]}, SortingRun(dropped, np.full(1600, 3.0), stopped, lambda s: (0.1, 3.0), 0.3, 1.0, cfg, DT)
    )
    assert t3["transitions"][0]["cause"] == "dropped"
    s = summarize_transitions([{"run": "x-1m", "sorting": part}, {"run": "y-1m", "sorting": t2}])
    assert s is not None and s["reliability"]["k"] == 1 and s["reliability"]["n"] == 2
    assert s["failures"] == [["y-1m", "carrying", "person too fast"]]
    assert summarize_transitions([{"run": "z"}]) is None  # no sorting run: no section


def test_sorting_scenario_file_and_old_scenarios_unchanged(tmp_path: Path) -> None:
    s = load_scenarios(SORTING)
    runs = [r for r in s.runs if r.task is not None]
    assert len(runs) >= 12
    assert {r.task["phase"] for r in runs} >= {"holding", "carrying", "between"}
    assert any(r.path.speed >= 1.8 for r in runs)  # faster than the transition: the stop's case
    reqs = scenario_requests(SORTING)
    sc = scenario_from_json(reqs[0].scenario_json)
    assert sc.task is not None and SortingConfig.from_json(sc.task["config"]).blocks == ("red", "green", "blue")
    # A file without a sorting section: no task key in any request (old records unchanged).
    for r in scenario_requests(config_dir() / "scenarios" / "proximity.yaml")[:5]:
        assert "task" not in json.loads(r.scenario_json)
    bad = tmp_path / "bad.yaml"
    bad.write_text(SORTING.read_text().replace("trigger_margin: 2.5", "trigger_margin: 3.5"))
    with pytest.raises(ConfigError, match="trigger_margin"):
        load_scenarios(bad)


def test_brief_and_reference_in_a_sorting_run_only() -> None:
    plain = ProximityBrief(threshold_m=1.0, frame_period_s=0.1, reaction_s=0.1)
    assert set(plain.model_dump(mode="json")) == {"threshold_m", "frame_period_s", "reaction_s"}
    sc = scenario_from_json(scenario_requests(SORTING)[0].scenario_json)
    sp, rs = sorting_brief(sc)
    assert sp == pytest.approx(3.75) and rs == pytest.approx(1.5)
    link = AgentLink("e", 1.0, safe_pose_m=sp, resume_after_s=rs)
    link.frames = link.reference_frames
    obs = link.on_estimate(FrameEstimate(144, True, 3.0, 1.0, 1))
    assert obs is not None and obs.situation["brief"]["safe_pose_m"] == pytest.approx(3.75)
    ref = ProximityReference()
    sit = ref_situation(obs)
    state = ref.start(sit)
    assert state.decide(sit).name == "safe_pose"
    safe = Decision(kind="tool_call", call=ToolCall(name="safe_pose"), provenance=AgentProvenance(backend="t"))
    assert link.on_decision(safe, 144) is None  # a motion the executive carries out, not the agent's stop


def ref_situation(obs: Observation) -> ProximitySituation:
    return ProximitySituation.model_validate(obs.situation)


def test_pairing_counts_a_person_without_a_transition_as_not_reliable() -> None:
    from alpha_matrix.core.suites.proximity.transition import pair_transitions

    def run(name: str, phase: str, reliable: list[bool]) -> dict:
        tr = [{"reliable": ok, "cause": "" if ok else "person too fast", "time_to_safe_s": 1.0} for ok in reliable]
        return {"run": name, "sorting": {"transitions": tr, "task_complete": True, "phase_planned": phase}}

    guard = [run("h1", "holding", [True]), run("h4", "holding", [False]), run("n0", "none", [])]
    agent = [run("h1", "holding", []), run("h4", "holding", []), run("n0", "none", [])]
    lines = pair_transitions(guard, agent, ("guard", "agent"))
    assert "| h1 | ok | 1.00 | none (a person arrived) | - |" in lines[2]
    assert "| n0 | none | - | none | - |" in lines[4]
    assert lines[-1].startswith("Paired over 3 scenarios, 2 where a person arrived")
    assert "all reliable in both 0, only guard 1, only agent 0, neither 1; McNemar exact p = 1" in lines[-1]
