"""Proximity audit on tiny bags written with the project's own SplitBagWriter.

The "live" side is the same core code the nodes run (DetectorCore, compose_result) on a
synthetic empty-cell depth stream; the audit must agree with it, and must name the episode
and the first differing step or field when one recorded estimate or the result is altered.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from alpha_matrix.core.bag import BagError, SplitBagWriter, make_typestore
from alpha_matrix.core.sim.camera_model import CELL_CAMERA
from alpha_matrix.core.suites.audit_common import bag_suite, format_suite_table
from alpha_matrix.core.suites.context import context_json
from alpha_matrix.core.suites.proximity.audit import audit_proximity_bag
from alpha_matrix.core.suites.proximity.context import ProximityContext
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


def _write_bag(bag: Path, change=None, *, t0: int = 0, frames: int | None = None, context: str = PROX_CONTEXT) -> None:
    """One episode: request, frames + info, the live core's estimates, truth, and the scored result.

    ``frames``: only that many, then stop (a run killed mid-scenario); ``t0``: log-time offset."""
    store = make_typestore()
    T = store.types
    w = SplitBagWriter(bag, TOPICS)
    change = change or (lambda _t, m: m)

    def put(topic: str, ts: int, msg) -> None:
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
    if context:  # a run recorded with a context since guards existed says whether they were on
        result["guards"] = True
    put(
        "/suite/result",
        n * 1000 + 1,
        T[TOPICS["/suite/result"]](
            episode_id=EP,
            ok=True,
            message="",
            result_json=json.dumps(result, sort_keys=True),
            agent_decisions=0,
            agent_episode_id="",
        ),
    )
    w.close()


def test_clean_bag_audits_clean(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b")
    assert bag_suite(tmp_path / "b") == "proximity"
    (a,) = audit_proximity_bag(tmp_path / "b")
    assert a.episode_id == EP and a.ok, a.problems
    assert a.inputs == END // EVERY and a.recorded == a.replayed == END // EVERY - 5


def test_a_changed_estimate_is_named_by_episode_and_step(tmp_path: Path) -> None:
    def nudge(topic: str, msg):
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
    def lie(topic: str, msg):
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


def test_without_a_recorded_context_l_is_the_scenarios_and_the_audit_says_so(tmp_path: Path) -> None:
    """Proximity reads no file: the L of a bag recorded before contexts existed is its own scenario's."""
    _write_bag(tmp_path / "p", context="")
    (p,) = audit_proximity_bag(tmp_path / "p")
    assert p.ok and p.context == "from the bag: L = the scenario's reaction_steps (no recorded context)"


def test_an_interrupted_attempt_is_split_off_and_counted(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b", frames=7)  # killed after 7 frames (2 estimates), no result
    _write_bag(tmp_path / "b", t0=10**9)  # the resumed run re-runs it, same episode id
    (a,) = audit_proximity_bag(tmp_path / "b")
    assert a.ok, a.problems
    assert a.interrupted_attempts == 1 and a.inputs == END // EVERY
    table = format_suite_table("proximity", [a])
    assert (
        f"interrupted attempts: 1 (killed mid-scenario, or not recorded after an infrastructure abort; re-run on resume; not audited): {EP} (1)"
        in table
    )
