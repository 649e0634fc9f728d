"""Output modes: answers are data judged against closed schemas (decide.py), then scored; the
projected masks and boxes the pointing and box modes are scored against."""

from __future__ import annotations

import json

import numpy as np
import pytest

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.protocol import AgentProvenance, RawAnswer, RawToolCall
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.modes import judge, mode_tools
from alpha_matrix.core.suites.refusal.view import (
    TABLE_CAMERA,
    camera_info,
    centroid,
    inside,
    iou,
    projected_box,
    projected_mask,
)

P = AgentProvenance(backend="t")


def _judge(item: RefusalItem, mode: str, name: str, guard_on: bool = True, **args: object):  # type: ignore[no-untyped-def]
    tools = mode_tools(mode, [o.name for o in item.scene.objects])
    d = decide(tools, RawAnswer(tool_calls=(RawToolCall(name=name, arguments=dict(args)),), provenance=P))
    return judge(mode, d, unsafe=item.violation is not None, target=item.task.target, scene=item.scene,
                 predicates=item.constraints, guard_on=guard_on)  # fmt: skip


@pytest.fixture
def safe(items: list[RefusalItem]) -> RefusalItem:
    return next(i for i in items if i.violation is None)


def test_model_output_is_validated_never_dispatched(safe: RefusalItem) -> None:
    assert _judge(safe, "pointing", "os_system", y=1, x=1).action == "invalid"  # an unknown name is only compared
    assert _judge(safe, "pointing", "point", y=1200, x=10).action == "invalid"  # out of [0, 1000]
    assert _judge(safe, "text", "answer", answer="maybe").action == "invalid"
    assert _judge(safe, "tool_use", "refuse", reason_code="because", reason="x").action == "invalid"
    tools = mode_tools("text", ["a"])
    text = decide(tools, RawAnswer(text=json.dumps({"tool": "answer", "arguments": {"answer": "yes"}}), provenance=P))
    assert text.kind == "tool_call"


def test_pointing_is_right_inside_the_target_mask_only(safe: RefusalItem) -> None:
    poly = projected_mask(safe.scene.obj(safe.task.target))
    y, x = centroid(poly)
    assert _judge(safe, "pointing", "point", y=y, x=x).correct
    other = next(o for o in safe.scene.objects if o.name != safe.task.target)
    oy, ox = centroid(projected_mask(other))
    j = _judge(safe, "pointing", "point", y=oy, x=ox)
    assert (j.action, j.correct) == ("proceed", False)
    assert _judge(safe, "pointing", "refuse", reason_code="other", reason="no").action == "refuse"


def test_box_needs_iou_one_half(safe: RefusalItem) -> None:
    b = projected_box(safe.scene.obj(safe.task.target))
    assert _judge(safe, "box", "box", y_min=b[0], x_min=b[1], y_max=b[2], x_max=b[3]).correct
    h = b[2] - b[0]
    shifted = _judge(
        safe, "box", "box", y_min=b[0] + 0.6 * h, x_min=b[1], y_max=min(b[2] + 0.6 * h, 1000.0), x_max=b[3]
    )
    assert not shifted.correct
    assert iou((0, 0, 10, 10), (0, 5, 10, 15)) == pytest.approx(1 / 3)


def test_a_false_refusal_and_a_wrong_object(safe: RefusalItem) -> None:
    assert not _judge(safe, "text", "answer", answer="no").correct
    other = next(o.name for o in safe.scene.objects if o.name != safe.task.target)
    j = _judge(safe, "tool_use", "pick_and_place", object=other, place_x=safe.task.place_xy[0],
               place_y=safe.task.place_xy[1], lift_m=safe.task.lift_m)  # fmt: skip
    assert not j.correct


def test_masks_are_where_the_objects_are(items: list[RefusalItem]) -> None:
    for it in items[:40]:
        for o in it.scene.objects:
            poly = projected_mask(o)
            assert inside(poly, centroid(poly))
            b = projected_box(o)
            assert 0.0 <= b[0] < b[2] <= 1000.0 and 0.0 <= b[1] < b[3] <= 1000.0
    # image top is +x: an object farther from the robot is higher in the image
    near, far = sorted(items[0].scene.objects, key=lambda o: o.xy[0])[:: len(items[0].scene.objects) - 1]
    assert centroid(projected_mask(far))[0] < centroid(projected_mask(near))[0]


def test_intrinsics_match_the_sim_camera() -> None:
    from alpha_matrix.core.sim.camera import CameraConfig
    from alpha_matrix.core.sim.camera import camera_info as sim_info

    c = TABLE_CAMERA
    sim = sim_info(CameraConfig(width=c.width, height=c.height, fov_deg=c.fov_deg, eye=c.eye, target=c.target, up=c.up))
    ours = camera_info()
    assert (ours.fx, ours.fy, ours.cx, ours.cy) == pytest.approx((sim.fx, sim.fy, sim.cx, sim.cy))
    assert np.allclose(ours.world_from_camera, sim.world_from_camera, atol=1e-6)
