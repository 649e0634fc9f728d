"""Confidence audit on a tiny bag written with the project's own SplitBagWriter.

The episode is sort_one run once on a World through the executive's own loop (run_skill_task,
its on_answer hook recording the queries as skill_executive does); the audit must agree with
it, name the query and candidate of a changed answer, and catch every broken gating rule. The
skills file comes from the bag's context, never from today's config.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from alpha_matrix.core.bag import SplitBagWriter, make_typestore
from alpha_matrix.core.outcome import SETTLE_STEPS
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.audit_common import bag_suite, format_suite_table
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.confidence.agent import Call, Query, Stop
from alpha_matrix.core.suites.confidence.audit import audit_confidence_bag
from alpha_matrix.core.suites.confidence.context import ConfidenceContext
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.run import confidence_result_dict, observe_state, run_skill_task
from alpha_matrix.core.suites.confidence.scenarios import (
    confidence_scenario_json,
    load_confidence_scenarios,
    load_skills_config,
)
from alpha_matrix.core.suites.confidence.skills import SkillState
from alpha_matrix.core.suites.context import RecordedFile, context_json

CONF_TOPICS = {
    "/suite/request": "alpha_matrix_interfaces/msg/SuiteRequest",
    "/suite/result": "alpha_matrix_interfaces/msg/SuiteResult",
    "/robot/command_status": "alpha_matrix_interfaces/msg/CommandStatus",
    "/skill/queries": "alpha_matrix_interfaces/msg/ConfidenceQuery",
}
CONF_EP = "confidence-sort_one"


class _RecordingRobot:
    """The driver contract on a bare World, keeping a CommandStatus-like record of every command."""

    def __init__(self, world: World, seed: int, geo) -> None:
        self.world, self.seed, self.geo, self.statuses = world, seed, geo, []

    def _run(self, start_fn) -> SkillState:
        start = self.world.step_count + 1
        start_fn()
        sample = self.world.step()
        while self.world.busy:
            sample = self.world.step()
        objects = {n: tuple(float(c) for c in pose[0]) for n, pose in self.world.object_poses().items()}
        self.statuses.append(
            {
                "state": 2, "start_step": start, "end_step": self.world.step_count, "message": "",
                "joints": [float(j) for j in sample.joint_positions],
                "grasp": tuple(float(c) for c in sample.grasp_position), "objects": objects,
            }
        )  # fmt: skip
        return observe_state(self.world, sample, self.geo)

    def start(self) -> tuple[SkillState, int]:
        self.world.reset(self.seed)
        state = self._run(lambda: self.world.start_hold(SETTLE_STEPS))
        return state, self.world.step_count

    def execute(self, plan) -> tuple[SkillState, int]:
        for cmd in plan_to_commands(plan):
            state = self._run(lambda cmd=cmd: start_command(self.world, cmd))
        return state, self.world.step_count

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]:
        state = self._run(lambda: self.world.start_hold(hold_steps))
        end = self.world.step_count
        # As the graph: the stop decided now lands L = 24 steps later, cancelling the next hold.
        last = {**self.statuses[-1], "state": 3, "start_step": end + 1, "end_step": end + 24}
        self.statuses.append({**last, "message": f"protective stop at step {end + 24} (test: task finished)"})
        return state, end + 24, True


@pytest.fixture(scope="module")
def confidence_episode():
    """sort_one run once on a World through run_skill_task, with everything the bag would hold."""
    suite = load_skills_config()
    sc = next(s for s in load_confidence_scenarios(None, suite) if s.task.name == "sort_one")
    emulator = ConfidenceEmulator(suite.confidence, sc.seed, episode_id=sc.task.name)
    queries = []

    def record(q: Query, _scores, then, step: int) -> None:
        answers = emulator.score(list(q.candidates), q.state, q.index)
        queries.append(
            {
                "query_index": q.index, "hypothetical": q.hypothetical, "purpose": q.purpose,
                "candidates": [c.text for c in q.candidates], "positions": dict(q.state.positions),
                "holding": q.state.holding or "", "gripper_width": q.state.gripper_width,
                "confidence": [a.confidence for a in answers],
                "in_distribution": [a.in_distribution for a in answers],
                "feasible": [a.feasible for a in answers], "reason": [a.reason for a in answers], "step": step,
                "next_action": "query" if isinstance(then, Query) else "call" if isinstance(then, Call) else "stop",
                "next_skill": then.skill.text if isinstance(then, Call) else "",
                "stop_reason": then.reason if isinstance(then, Stop) else "",
            }
        )  # fmt: skip

    with World(suite.world_config()) as world:
        robot = _RecordingRobot(world, sc.seed, suite.geometry)
        result = run_skill_task(sc.task, sc.seed, suite, sc.expected, emulator, robot, on_answer=record)
    return sc, queries, robot.statuses, confidence_result_dict(result)


SKILLS = RecordedFile.read(config_dir() / "skills.yaml")
CONF_CONTEXT = context_json(ConfidenceContext(skills=SKILLS))


def _write_confidence_bag(bag: Path, episode, change=None, context: str = CONF_CONTEXT) -> None:
    sc, queries, statuses, result = episode
    store = make_typestore()
    T = store.types
    w = SplitBagWriter(bag, CONF_TOPICS)
    change = change or (lambda _t, m: m)
    events = []

    def objects(positions: dict) -> list:
        return [
            T["alpha_matrix_interfaces/msg/ObjectState"](
                name=n,
                pose=T["geometry_msgs/msg/Pose"](
                    position=T["geometry_msgs/msg/Point"](x=p[0], y=p[1], z=p[2]),
                    orientation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
                ),
            )
            for n, p in positions.items()
        ]

    for i, s in enumerate(statuses):
        msg = T[CONF_TOPICS["/robot/command_status"]](
            command_id=i + 1, episode_id=CONF_EP, state=s["state"], start_step=s["start_step"],
            end_step=s["end_step"], message=s["message"], grasp_position=T["geometry_msgs/msg/Point"](
                x=s["grasp"][0], y=s["grasp"][1], z=s["grasp"][2]
            ), joint_positions=np.array(s["joints"]), objects=objects(s["objects"]),
            stop_to_rest_s=0.0,
        )  # fmt: skip
        events.append((s["end_step"] * 10, "/robot/command_status", msg))
    for q in queries:
        fields = {k: v for k, v in q.items() if k != "positions"}
        fields["confidence"], fields["in_distribution"] = np.array(q["confidence"]), np.array(q["in_distribution"])
        fields["feasible"] = np.array(q["feasible"])
        msg = T[CONF_TOPICS["/skill/queries"]](
            episode_id=CONF_EP, stream_id=sc.task.name, seed=sc.seed, objects=objects(q["positions"]), **fields
        )
        events.append((q["step"] * 10 + 1 + q["query_index"] % 8, "/skill/queries", msg))
    request = T[CONF_TOPICS["/suite/request"]](
        episode_id=CONF_EP,
        suite="confidence",
        index=0,
        seed=sc.seed,
        scenario_json=confidence_scenario_json(sc),
        context_json=context,
    )
    events.append((0, "/suite/request", request))
    res = T[CONF_TOPICS["/suite/result"]](
        episode_id=CONF_EP,
        ok=True,
        message="",
        result_json=json.dumps(result, sort_keys=True),
        agent_decisions=0,
        agent_episode_id="",
    )
    events.append((10**9, "/suite/result", res))
    for ts, topic, msg in sorted(events, key=lambda e: e[0]):
        msg = change(topic, msg)
        if msg is not None:
            w.write(topic, ts, store.serialize_cdr(msg, CONF_TOPICS[topic]))
    w.close()


def test_confidence_bag_audits_clean(tmp_path: Path, confidence_episode) -> None:
    _write_confidence_bag(tmp_path / "c", confidence_episode)
    assert bag_suite(tmp_path / "c") == "confidence"
    (a,) = audit_confidence_bag(tmp_path / "c")
    _, queries, _, result = confidence_episode
    assert a.episode_id == CONF_EP and a.ok, a.problems
    assert a.inputs == len(queries) == result["queries"] and result["calls"] == 2 and result["robot_stopped"]
    assert a.recorded == a.replayed == sum(len(q["candidates"]) for q in queries)
    assert "answers rec/replay" in format_suite_table("confidence", [a])


def test_a_changed_confidence_is_named_by_query_and_candidate(tmp_path: Path, confidence_episode) -> None:
    def nudge(topic: str, msg):
        if topic == "/skill/queries" and msg.query_index == 0:
            msg.confidence[0] += 1e-9
        return msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, nudge)
    (a,) = audit_confidence_bag(tmp_path / "c")
    assert len(a.problems) == 1 and a.problems[0].startswith("query 0: pick(red): recorded (0.")


def test_a_lookahead_passed_off_as_a_check_is_caught(tmp_path: Path, confidence_episode) -> None:
    def relabel(topic: str, msg):
        if topic == "/skill/queries" and msg.hypothetical:
            msg.hypothetical = False
        return msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, relabel)
    (a,) = audit_confidence_bag(tmp_path / "c")
    assert a.problems == ("query 1: the state sent is not the robot's at step 120",)


def test_an_unchecked_skill_and_a_missing_stop_break_the_rules(tmp_path: Path, confidence_episode) -> None:
    _, queries, statuses, _ = confidence_episode
    place = next(q for q in queries if q["next_skill"].startswith("place"))

    def drop(topic: str, msg):  # the check before the place, and the final stop
        if topic == "/skill/queries" and msg.query_index == place["query_index"]:
            return None
        return None if topic == "/robot/command_status" and msg.state == 3 else msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, drop)
    (a,) = audit_confidence_bag(tmp_path / "c")
    first_place = next(s for s in statuses if s["start_step"] == place["step"] + 1)
    assert a.problems[0] == (
        f"rule broken: robot command {statuses.index(first_place) + 1} at step {first_place['start_step']}"
        " outside any checked call"
    )
    assert a.problems[1] == "rule broken: no protective stop of the robot recorded at the end"
    assert a.problems[2].startswith("suite/result differs from the replay at ")


def test_an_executed_call_below_threshold_is_a_rule_breach(tmp_path: Path, confidence_episode) -> None:
    _, queries, _, _ = confidence_episode
    place = next(q for q in queries if q["next_skill"].startswith("place"))

    def reask(topic: str, msg):  # the place checked on an invented unsure candidate
        if topic == "/skill/queries" and msg.query_index == place["query_index"]:
            msg.next_skill = "place(red, zone_far)"
        return msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, reask)
    (a,) = audit_confidence_bag(tmp_path / "c")
    assert a.problems[0] == "rule broken: place(red, zone_far): called without a confidence check"


def _bag(path: Path, episode, context: str = CONF_CONTEXT) -> Path:
    _write_confidence_bag(path, episode, context=context)
    return path


def test_the_audit_uses_the_recorded_context(tmp_path: Path, confidence_episode) -> None:
    (a,) = audit_confidence_bag(_bag(tmp_path / "c", confidence_episode))
    assert a.ok and a.context == f"from the bag: skills skills.yaml sha256 {SKILLS.sha256[:12]}"
    assert f"context from the bag: skills skills.yaml sha256 {SKILLS.sha256[:12]} (1 episode)" in format_suite_table(
        "confidence", [a]
    )
    # Another skills file recorded (more noise): the replay follows the bag, not today's config.
    text = SKILLS.text.replace("noise_sigma:", "noise_sigma: 0.2 #", 1)
    other = RecordedFile(path="/elsewhere/skills.yaml", sha256=hashlib.sha256(text.encode()).hexdigest(), text=text)
    (b,) = audit_confidence_bag(_bag(tmp_path / "d", confidence_episode, context_json(ConfidenceContext(skills=other))))
    assert not b.ok and b.problems[0].startswith("query 0: pick(red): recorded (0.")
    # A tampered context (text no longer matching its hash) is a problem of the episode.
    bad = CONF_CONTEXT.replace("threshold:", "threshold: 0.1 #", 1)
    (c,) = audit_confidence_bag(_bag(tmp_path / "e", confidence_episode, bad))
    assert c.problems == ("suite/request: invalid context_json: skills: "
                          f"{SKILLS.path}: sha256 does not match the recorded text",)  # fmt: skip


def test_a_bag_without_context_is_a_problem_not_todays_config(tmp_path: Path, confidence_episode) -> None:
    (a,) = audit_confidence_bag(_bag(tmp_path / "c", confidence_episode, ""))
    assert a.problems == (
        "suite/request carries no context_json, so the run's skills file cannot be known"
        " (never taken from today's config)",
    )
    assert a.context == "" and a.replayed == 0 and "today's config (" not in format_suite_table("confidence", [a])
