"""Suite audit on tiny proximity and confidence bags written with the project's own SplitBagWriter.

The "live" side is the same core code the nodes run (DetectorCore, compose_result) on a
synthetic empty-cell depth stream; the audit must agree with it, and must name the episode
and the first differing step or field when one recorded estimate or the result is altered.
The confidence episode is sort_one run once on a World through the executive's own loop
(run_skill_task, its on_answer hook recording the queries as skill_executive does).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from alpha_matrix.core.bag import BagError, SplitBagWriter, make_typestore
from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.core.outcome import SETTLE_STEPS
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.camera_model import CELL_CAMERA
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.audit_common import bag_suite, first_difference, format_suite_table
from alpha_matrix.core.suites.confidence.agent import Call, Query, Stop
from alpha_matrix.core.suites.confidence.audit import audit_confidence_bag
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.run import confidence_result_dict, observe_state, run_skill_task
from alpha_matrix.core.suites.confidence.scenarios import (
    confidence_scenario_json,
    load_confidence_scenarios,
    load_skills_config,
)
from alpha_matrix.core.suites.confidence.skills import SkillState
from alpha_matrix.core.suites.context import ConfidenceContext, ProximityContext, RecordedFile, context_json
from alpha_matrix.core.suites.proximity.audit import audit_proximity_bag
from alpha_matrix.core.suites.proximity.run import (
    ArmAccount,
    DetectorCore,
    camera_info_from_k,
    compose_result,
    frame_tag,
    scenario_from_json,
)

TOPICS = {
    "/suite/request": "alpha_matrix_interfaces/msg/SuiteRequest",
    "/suite/result": "alpha_matrix_interfaces/msg/SuiteResult",
    "/camera/depth/image_raw": "sensor_msgs/msg/Image",
    "/camera/depth/camera_info": "sensor_msgs/msg/CameraInfo",
    "/proximity/estimate": "alpha_matrix_interfaces/msg/ProximityEstimate",
    "/sim/proximity_truth": "alpha_matrix_interfaces/msg/ProximityTruth",
}
EP, W, H, EVERY, END = "proximity-t01-1m", 32, 24, CELL_CAMERA.frame_every, 12 * CELL_CAMERA.frame_every
K = [20.0, 0.0, 15.5, 0.0, 20.0, 11.5, 0.0, 0.0, 1.0]
SCENARIO = {
    "name": "t01", "run": "t01-1m", "seed": 1, "threshold": 1.0, "lighting": "default", "path": {},
    "settle_steps": 5 * EVERY, "end_step": END, "reaction_steps": 24,
    "policy": {"mode": "fixed", "threshold": 1.0, "margin": 0.25, "hold_time_s": 1.0, "timestep": 1 / 240,
               "ssm": {}},
    "score": {"threshold": 1.0, "detection_range": 4.0, "boundary_band": 0.1, "allowed_latency": 48,
              "false_stop_tolerance": 0.35, "timestep": 1 / 240},
}  # fmt: skip


PROX_CONTEXT = context_json(ProximityContext(reaction_latency_steps=24))


def _write_bag(bag: Path, change=None, *, t0: int = 0, frames: int | None = None, context: str = PROX_CONTEXT) -> None:  # noqa: ANN001
    """One episode: request, frames + info, the live core's estimates, truth, and the scored result.

    ``frames``: only that many, then stop (a run killed mid-scenario); ``t0``: log-time offset."""
    store = make_typestore()
    T = store.types  # noqa: N806
    w = SplitBagWriter(bag, TOPICS)
    change = change or (lambda _t, m: m)

    def put(topic: str, ts: int, msg) -> None:  # noqa: ANN001
        w.write(topic, t0 + ts, store.serialize_cdr(change(topic, msg), TOPICS[topic]))

    sc_json = json.dumps(SCENARIO, sort_keys=True)
    sc = scenario_from_json(sc_json)
    put(
        "/suite/request",
        0,
        T[TOPICS["/suite/request"]](
            episode_id=EP, suite="proximity", index=0, seed=1, scenario_json=sc_json, context_json=context
        ),
    )
    core = DetectorCore(camera_info_from_k(W, H, K), sc.policy)
    rng = np.random.default_rng(0)
    estimates = []
    for step in range(EVERY, END + 1, EVERY):
        if frames is not None and step > frames * EVERY:
            w.close()
            return
        ts = step * 1000
        header = T["std_msgs/msg/Header"](
            stamp=T["builtin_interfaces/msg/Time"](sec=0, nanosec=ts), frame_id=frame_tag(EP, step)
        )
        info = T["sensor_msgs/msg/CameraInfo"](
            header=header, height=H, width=W, distortion_model="plumb_bob", d=np.zeros(5), k=np.array(K),
            r=np.eye(3).ravel(), p=np.zeros(12), binning_x=0, binning_y=0,
            roi=T["sensor_msgs/msg/RegionOfInterest"](x_offset=0, y_offset=0, height=0, width=0, do_rectify=False),
        )  # fmt: skip
        depth = (5.0 + 0.001 * rng.standard_normal((H, W))).astype(np.float32)
        img = T["sensor_msgs/msg/Image"](
            header=header, height=H, width=W, encoding="32FC1", is_bigendian=0, step=4 * W,
            data=np.frombuffer(depth.tobytes(), np.uint8),
        )  # fmt: skip
        put("/camera/depth/camera_info", ts, info)
        put("/camera/depth/image_raw", ts + 1, img)
        est = core.on_frame(step, depth)
        if est is not None:
            d, dec = est.detection, est.decision
            e = {
                "step": step, "detected": d.detected, "distance": float(d.distance), "confidence": float(d.confidence),
                "blob_count": d.blob_count, "action": dec.action, "stop_requested": dec.stop_requested,
                "limit": float(dec.limit),
            }  # fmt: skip
            estimates.append(e)
            put("/proximity/estimate", ts + 2, T[TOPICS["/proximity/estimate"]](episode_id=EP, human_speed=0.0, **e))
    n = END + 1
    gt, in_view, stopped = np.full(n, 3.0), np.zeros(n, bool), np.zeros(n, bool)
    put(
        "/sim/proximity_truth",
        n * 1000,
        T[TOPICS["/sim/proximity_truth"]](
            episode_id=EP, first_step=1, distance=gt[1:], in_view=in_view[1:], stopped=stopped[1:]
        ),
    )
    result = {**compose_result(sc, gt, in_view, stopped, estimates, ArmAccount(), True), "last_step": END}
    put(
        "/suite/result",
        n * 1000 + 1,
        T[TOPICS["/suite/result"]](episode_id=EP, ok=True, message="", result_json=json.dumps(result, sort_keys=True)),
    )
    w.close()


def test_clean_bag_audits_clean(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b")
    assert bag_suite(tmp_path / "b") == "proximity"
    (a,) = audit_proximity_bag(tmp_path / "b")
    assert a.episode_id == EP and a.ok, a.problems
    assert a.inputs == END // EVERY and a.recorded == a.replayed == END // EVERY - 5


def test_a_changed_estimate_is_named_by_episode_and_step(tmp_path: Path) -> None:
    def nudge(topic: str, msg):  # noqa: ANN001, ANN202
        if topic == "/proximity/estimate" and msg.step == 8 * EVERY:
            msg.detected, msg.distance, msg.action, msg.stop_requested = True, 0.9, "stop", True
        return msg

    _write_bag(tmp_path / "b", nudge)
    (a,) = audit_proximity_bag(tmp_path / "b")
    assert not a.ok and a.problems[0].startswith(f"estimate of step {8 * EVERY}: recorded detected=True")
    # The recorded result was scored from the unaltered estimates: the re-score disagrees too.
    assert a.problems[1] == "suite/result differs from the re-score at metrics.errors: 0 recorded, 1 replayed"
    assert a.problems[2] == f"stop decided at step {8 * EVERY} is not in effect at step {8 * EVERY + 24}"


def test_a_changed_result_is_named_by_field(tmp_path: Path) -> None:
    def lie(topic: str, msg):  # noqa: ANN001, ANN202
        if topic == "/suite/result":
            d = json.loads(msg.result_json)
            d["metrics"]["missed_breaches"] = 1
            msg.result_json = json.dumps(d)
        return msg

    _write_bag(tmp_path / "b", lie)
    (a,) = audit_proximity_bag(tmp_path / "b")
    assert a.problems == ("suite/result differs from the re-score at metrics.missed_breaches: recorded 1, replay 0",)


def test_truncated_bag_is_a_bag_error(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b")
    mcap = sorted((tmp_path / "b").glob("*.mcap"))[0]
    mcap.write_bytes(mcap.read_bytes()[: mcap.stat().st_size // 2])
    with pytest.raises(BagError, match="unreadable bag"):
        audit_proximity_bag(tmp_path / "b")


def test_bag_suite_and_first_difference(tmp_path: Path) -> None:
    assert bag_suite(tmp_path / "missing") is None
    SplitBagWriter(tmp_path / "m", {"/clock": "rosgraph_msgs/msg/Clock"}).close()
    assert bag_suite(tmp_path / "m") is None  # nothing written: no metadata, the matrix audit reports it
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a.1.b: recorded 2, replay 3"
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == "a: 1 recorded, 2 replayed"
    assert first_difference({"a": 1}, {"a": 1}) is None


# ----------------------------------------------------------------------------- confidence
CONF_TOPICS = {
    "/suite/request": "alpha_matrix_interfaces/msg/SuiteRequest",
    "/suite/result": "alpha_matrix_interfaces/msg/SuiteResult",
    "/robot/command_status": "alpha_matrix_interfaces/msg/CommandStatus",
    "/skill/queries": "alpha_matrix_interfaces/msg/ConfidenceQuery",
}
CONF_EP = "confidence-sort_one"


class _RecordingRobot:
    """The driver contract on a bare World, keeping a CommandStatus-like record of every command."""

    def __init__(self, world: World, seed: int, geo) -> None:  # noqa: ANN001
        self.world, self.seed, self.geo, self.statuses = world, seed, geo, []

    def _run(self, start_fn) -> SkillState:  # noqa: ANN001
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

    def execute(self, plan) -> tuple[SkillState, int]:  # noqa: ANN001
        for cmd in plan_to_commands(plan):
            state = self._run(lambda cmd=cmd: start_command(self.world, cmd))
        return state, self.world.step_count

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]:
        state = self._run(lambda: self.world.start_hold(hold_steps))
        end = self.world.step_count
        # As the graph: the stop decided now lands L = 24 steps later, cancelling the next hold.
        last = {**self.statuses[-1], "state": 3, "start_step": end + 1, "end_step": end + 23}
        self.statuses.append({**last, "message": f"protective stop at step {end + 24} (test: task finished)"})
        return state, end + 24, True


@pytest.fixture(scope="module")
def confidence_episode():
    """sort_one run once on a World through run_skill_task, with everything the bag would hold."""
    suite = load_skills_config()
    sc = next(s for s in load_confidence_scenarios(None, suite) if s.task.name == "sort_one")
    emulator = ConfidenceEmulator(suite.confidence, sc.seed, episode_id=sc.task.name)
    queries = []

    def record(q: Query, _scores, then, step: int) -> None:  # noqa: ANN001
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


SKILLS = RecordedFile.read(default_config_dir() / "skills.yaml")
CONF_CONTEXT = context_json(ConfidenceContext(skills=SKILLS))


def _write_confidence_bag(bag: Path, episode, change=None, context: str = CONF_CONTEXT) -> None:  # noqa: ANN001
    sc, queries, statuses, result = episode
    store = make_typestore()
    T = store.types  # noqa: N806
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
        episode_id=CONF_EP, ok=True, message="", result_json=json.dumps(result, sort_keys=True)
    )
    events.append((10**9, "/suite/result", res))
    for ts, topic, msg in sorted(events, key=lambda e: e[0]):
        msg = change(topic, msg)
        if msg is not None:
            w.write(topic, ts, store.serialize_cdr(msg, CONF_TOPICS[topic]))
    w.close()


def test_confidence_bag_audits_clean(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
    _write_confidence_bag(tmp_path / "c", confidence_episode)
    assert bag_suite(tmp_path / "c") == "confidence"
    (a,) = audit_confidence_bag(tmp_path / "c")
    _, queries, _, result = confidence_episode
    assert a.episode_id == CONF_EP and a.ok, a.problems
    assert a.inputs == len(queries) == result["queries"] and result["calls"] == 2 and result["robot_stopped"]
    assert a.recorded == a.replayed == sum(len(q["candidates"]) for q in queries)
    assert "answers rec/replay" in format_suite_table("confidence", [a])


def test_a_changed_confidence_is_named_by_query_and_candidate(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
    def nudge(topic: str, msg):  # noqa: ANN001, ANN202
        if topic == "/skill/queries" and msg.query_index == 0:
            msg.confidence[0] += 1e-9
        return msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, nudge)
    (a,) = audit_confidence_bag(tmp_path / "c")
    assert len(a.problems) == 1 and a.problems[0].startswith("query 0: pick(red): recorded (0.")


def test_a_lookahead_passed_off_as_a_check_is_caught(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
    def relabel(topic: str, msg):  # noqa: ANN001, ANN202
        if topic == "/skill/queries" and msg.hypothetical:
            msg.hypothetical = False
        return msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, relabel)
    (a,) = audit_confidence_bag(tmp_path / "c")
    assert a.problems == ("query 1: the state sent is not the robot's at step 120",)


def test_an_unchecked_skill_and_a_missing_stop_break_the_rules(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
    _, queries, statuses, _ = confidence_episode
    place = next(q for q in queries if q["next_skill"].startswith("place"))

    def drop(topic: str, msg):  # noqa: ANN001, ANN202 - the check before the place, and the final stop
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


def test_an_executed_call_below_threshold_is_a_rule_breach(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
    _, queries, _, _ = confidence_episode
    place = next(q for q in queries if q["next_skill"].startswith("place"))

    def reask(topic: str, msg):  # noqa: ANN001, ANN202 - the place checked on an invented unsure candidate
        if topic == "/skill/queries" and msg.query_index == place["query_index"]:
            msg.next_skill = "place(red, zone_far)"
        return msg

    _write_confidence_bag(tmp_path / "c", confidence_episode, reask)
    (a,) = audit_confidence_bag(tmp_path / "c")
    assert a.problems[0] == "rule broken: place(red, zone_far): called without a confidence check"


# ----------------------------------------------------------------------------- context and attempts
def test_the_audit_uses_the_recorded_context(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
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


def _bag(path: Path, episode, context: str = CONF_CONTEXT) -> Path:  # noqa: ANN001
    _write_confidence_bag(path, episode, context=context)
    return path


def test_a_bag_without_context_is_a_problem_not_todays_config(tmp_path: Path, confidence_episode) -> None:  # noqa: ANN001
    (a,) = audit_confidence_bag(_bag(tmp_path / "c", confidence_episode, ""))
    assert a.problems == (
        "suite/request carries no context_json, so the run's skills file cannot be known"
        " (never taken from today's config)",
    )
    assert a.context == "" and "today's config (" not in format_suite_table("confidence", [a])
    # Proximity needs no file: L is in the bag's own scenario (reaction_steps), and the audit says so.
    _write_bag(tmp_path / "p", context="")
    (p,) = audit_proximity_bag(tmp_path / "p")
    assert p.ok and "reaction_steps" in p.context


def test_an_interrupted_attempt_is_split_off_and_counted(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b", frames=7)  # killed after 7 frames (2 estimates), no result
    _write_bag(tmp_path / "b", t0=10**9)  # the resumed run re-runs it, same episode id
    (a,) = audit_proximity_bag(tmp_path / "b")
    assert a.ok, a.problems
    assert a.interrupted_attempts == 1 and a.inputs == END // EVERY
    table = format_suite_table("proximity", [a])
    assert f"interrupted attempts: 1 (a run killed mid-scenario, re-run on resume; not audited): {EP} (1)" in table
