"""Translation between alpha_matrix_interfaces messages and the core's plain types."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from alpha_matrix_interfaces.msg import EpisodeResult, FaultEvent, ObjectState, PlanStep
from alpha_matrix_interfaces.msg import Plan as PlanMsg
from geometry_msgs.msg import Point

from alpha_matrix.core.outcome import MAX_EPISODE_STEPS
from alpha_matrix.core.planning.plan import Grip, MoveTo, Plan, Release
from alpha_matrix.core.records import EpisodeRecord, FaultRecord, record_sha256

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


def point(v: Sequence[float]) -> Point:
    return Point(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def vec3(p: Point) -> Vec3:
    return (p.x, p.y, p.z)


def object_states(poses: Mapping[str, tuple[Vec3, Quat]]) -> list[ObjectState]:
    """Filled into the sub-messages an ObjectState builds anyway (the bridge sends these with every
    batch; a Pose built apart would be made twice)."""
    out = []
    for name, (pos, quat) in poses.items():
        s = ObjectState(name=name)
        p, o = s.pose.position, s.pose.orientation
        p.x, p.y, p.z = (float(v) for v in pos)
        o.x, o.y, o.z, o.w = (float(q) for q in quat)
        out.append(s)
    return out


def poses_of(states: Iterable[ObjectState]) -> dict[str, tuple[Vec3, Quat]]:
    return {
        s.name: (
            vec3(s.pose.position),
            (s.pose.orientation.x, s.pose.orientation.y, s.pose.orientation.z, s.pose.orientation.w),
        )
        for s in states
    }


_ACTION_CODES = {"MOVE_TO": PlanStep.MOVE_TO, "GRIP": PlanStep.GRIP, "RELEASE": PlanStep.RELEASE}


def plan_to_msg(plan: Plan) -> PlanMsg:
    msg = PlanMsg(schema_version=plan.schema_version, object=plan.object)
    for s in plan.steps:
        m = PlanStep(action=_ACTION_CODES[s.action], steps=s.steps or 0, label=s.label, width=-1.0)
        if isinstance(s, MoveTo):
            m.target = point(s.target)
        elif isinstance(s, Grip):
            m.force = s.force or 0.0
        elif isinstance(s, Release):
            m.width = -1.0 if s.width is None else s.width
        msg.steps.append(m)
    return msg


def plan_msg_to_dict(msg: PlanMsg) -> dict:
    """A typed plan message as plain data, to be validated by the same schema as planner text."""
    names = {v: k for k, v in _ACTION_CODES.items()}
    steps = []
    for m in msg.steps:
        action = names.get(m.action, f"UNKNOWN({m.action})")
        d: dict = {"action": action}
        if m.steps:
            d["steps"] = m.steps
        if m.label:
            d["label"] = m.label
        if action == "MOVE_TO":
            d["target"] = list(vec3(m.target))
        elif action == "GRIP" and m.force > 0.0:
            d["force"] = m.force
        elif action == "RELEASE" and m.width >= 0.0:
            d["width"] = m.width
        steps.append(d)
    return {"schema_version": msg.schema_version, "object": msg.object, "steps": steps}


def episode_result(run_id: str, rec: EpisodeRecord) -> EpisodeResult:
    """The runner's announcement of a finished episode: its outcome and the record's hash."""
    o = rec.outcome
    return EpisodeResult(
        run_id=run_id, episode_id=rec.episode_id, arm=rec.arm, seed=rec.seed, success=o.success,
        placement_error=o.placement_error, steps_used=o.steps_used, reason=o.reason, record_sha256=record_sha256(rec),
        step_budget=o.step_budget or MAX_EPISODE_STEPS,
    )  # fmt: skip


def fault_events(episode_id: str, intensity: float, records: Iterable[FaultRecord]) -> list[FaultEvent]:
    """The chaos node's report: one FaultEvent per injection, parameters as canonical JSON."""
    return [
        FaultEvent(
            episode_id=episode_id, fault=rec.fault, intensity=intensity, step=rec.step, seq=rec.seq,
            requested_json=json.dumps(rec.requested, sort_keys=True),
            delivered_json=json.dumps(rec.delivered, sort_keys=True),
        )
        for rec in records
    ]  # fmt: skip


def copy_fields(res: Any, reply: object, *fields: str) -> Any:
    """A service response filled from the core's reply, field by field (same names)."""
    for name in fields:
        setattr(res, name, getattr(reply, name))
    return res
