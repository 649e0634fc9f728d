"""REP 118 depth images -> metres (core/depth_image.py), and the detector's calibrated mount."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from alpha_matrix.core.depth_image import DepthImageError, depth_metres, image_metres, millimetres
from alpha_matrix.core.sim.camera_model import (
    CELL_CAMERA,
    pose_from_quaternion,
    quaternion_from_matrix,
    world_from_camera,
)
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.proximity.params import ProximityBridgeParams, ProximityDetectorParams
from alpha_matrix.core.suites.proximity.run import camera_info_from_k

DATA = Path(__file__).resolve().parents[1] / "data"


def _msg(arr: np.ndarray, encoding: str, pad: int = 0, big: bool = False) -> SimpleNamespace:
    """A sensor_msgs/Image as a driver fills it: ``pad`` bytes after each row, either byte order."""
    a = arr.astype(arr.dtype.newbyteorder(">" if big else "<"))
    rows = [r.tobytes() + b"\xab" * pad for r in a]
    return SimpleNamespace(
        data=b"".join(rows), width=a.shape[1], height=a.shape[0], step=a.strides[0] + pad,
        encoding=encoding, is_bigendian=int(big),
    )  # fmt: skip


def test_16uc1_millimetres_become_metres_and_0_stays_no_return() -> None:
    mm = np.array([[0, 1, 1000], [1234, 65535, 4999]], np.uint16)
    got = image_metres(_msg(mm, "16UC1"))
    assert got.dtype == np.float32 and got.shape == (2, 3)
    assert got.tolist() == np.array([[0.0, 0.001, 1.0], [1.234, 65.535, 4.999]], np.float32).tolist()


def test_32fc1_nan_inf_and_negative_are_no_return_and_other_values_pass_bit_for_bit() -> None:
    m = np.array([[np.nan, 0.0, -1.0], [np.inf, 2.718281, 4.9876543]], np.float32)
    got = image_metres(_msg(m, "32FC1"))
    assert got.dtype == np.float32
    assert got.tobytes() == np.array([[0, 0, 0], [0, 2.718281, 4.9876543]], np.float32).tobytes()


@pytest.mark.parametrize("encoding", ["16UC1", "32FC1"])
@pytest.mark.parametrize(("pad", "big"), [(0, True), (6, False), (6, True), (3, False)])
def test_row_padding_and_byte_order_as_sensor_msgs_allows(encoding: str, pad: int, big: bool) -> None:
    rng = np.random.default_rng(1)
    mm = rng.integers(1, 6000, size=(5, 7)).astype(np.uint16)
    arr = mm if encoding == "16UC1" else (mm / 1000.0).astype(np.float32)
    want = image_metres(_msg(arr, encoding))
    assert np.array_equal(image_metres(_msg(arr, encoding, pad=pad, big=big)), want)
    # a publisher may leave out the last row's padding
    msg = _msg(arr, encoding, pad=pad, big=big)
    msg.data = msg.data[: len(msg.data) - pad]
    assert np.array_equal(image_metres(msg), want)


def test_both_encodings_give_the_same_metres_for_whole_millimetres() -> None:
    mm = np.arange(0, 7000, 7, dtype=np.uint16).reshape(20, 50)
    a = image_metres(_msg(mm, "16UC1"))
    b = image_metres(_msg((mm.astype(np.float32) / np.float32(1000)), "32FC1"))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("encoding", ["rgb8", "mono16", "16SC1", "32fc1", ""])
def test_an_unknown_encoding_is_one_line_naming_it_and_the_two_accepted(encoding: str) -> None:
    with pytest.raises(DepthImageError) as err:
        image_metres(_msg(np.zeros((2, 2), np.uint16), encoding))
    text = str(err.value)
    assert "\n" not in text and repr(encoding) in text and "16UC1" in text and "32FC1" in text


def test_a_malformed_layout_is_one_line() -> None:
    msg = _msg(np.zeros((4, 5), np.uint16), "16UC1")
    with pytest.raises(DepthImageError, match="step 8 bytes < 10"):
        depth_metres(msg.data, width=5, height=4, step=8, encoding="16UC1")
    with pytest.raises(DepthImageError, match="39 bytes of data, expected 40"):
        depth_metres(msg.data[:-1], width=5, height=4, step=10, encoding="16UC1")
    with pytest.raises(DepthImageError, match="empty"):
        depth_metres(b"", width=0, height=4, step=0, encoding="16UC1")


def test_millimetres_round_clip_and_keep_no_return() -> None:
    m = np.array([[0.0, np.nan, -0.5, np.inf], [0.0004, 0.0005001, 1.2344999, 1.2345001], [65.5344, 65.536, 99.0, 4.2]])
    assert millimetres(m.astype(np.float32)).tolist() == [[0, 0, 0, 0], [0, 1, 1234, 1235], [65534, 65535, 65535, 4200]]
    assert millimetres(m).dtype == np.uint16
    # round trip: at most half a millimetre off, 0 stays 0
    rng = np.random.default_rng(2)
    d = np.where(rng.random((30, 40)) < 0.1, 0.0, rng.uniform(0.2, 6.0, (30, 40))).astype(np.float32)
    back = image_metres(_msg(millimetres(d), "16UC1"))
    assert np.array_equal(back == 0, d == 0) and np.abs(back - d).max() <= 0.0005 + 1e-6


def test_the_default_mount_is_the_simulated_cells_bit_for_bit() -> None:
    """Records stay byte-identical: the detector's default pose is the look-at matrix it used before."""
    look_at = world_from_camera(CELL_CAMERA.eye, CELL_CAMERA.target, CELL_CAMERA.up)
    p = ProximityDetectorParams()
    assert np.array_equal(pose_from_quaternion(p.camera_position, p.camera_orientation), look_at)
    shipped = yaml.safe_load((config_dir() / "params_proximity.yaml").read_text())["proximity_detector"]
    params = shipped["ros__parameters"]
    assert params == {"camera_position": p.camera_position, "camera_orientation": p.camera_orientation}
    k = [300.0, 0.0, 160.0, 0.0, 300.0, 120.0, 0.0, 0.0, 1.0]
    assert np.array_equal(camera_info_from_k(320, 240, k).world_from_camera, look_at)


def test_a_calibrated_quaternion_is_its_rotation() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        q = rng.standard_normal(4)
        q /= np.linalg.norm(q)
        r = pose_from_quaternion([1.0, 2.0, 3.0], q)
        assert np.allclose(r[:3, :3] @ r[:3, :3].T, np.eye(3), atol=1e-12) and np.isclose(np.linalg.det(r[:3, :3]), 1.0)
        assert r[:3, 3].tolist() == [1.0, 2.0, 3.0]
        back = quaternion_from_matrix(r[:3, :3])
        assert np.allclose(back, q * math.copysign(1.0, q[3]), atol=1e-12)
    # a camera 2 m up at the origin, looking straight down, image top toward +x: z forward = -z world
    down = pose_from_quaternion([0.0, 0.0, 2.0], [0.7071068, -0.7071068, 0.0, 0.0])  # tf2_echo's 7 digits
    assert np.allclose(down[:3, 2], [0.0, 0.0, -1.0], atol=1e-6) and np.allclose(
        down[:3, 1], [-1.0, 0.0, 0.0], atol=1e-6
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [("camera_position", [0.0, 1.0]), ("camera_position", [0.0, 0.0, math.nan]),
     ("camera_orientation", [0.0, 0.0, 0.0, 0.0]), ("camera_orientation", [0.5, 0.5, 0.5]),
     ("camera_orientation", [1.0, 1.0, 0.0, 0.0])],
)  # fmt: skip
def test_a_pose_that_is_not_one_is_refused(field: str, value: list[float]) -> None:
    with pytest.raises(ValidationError, match=field):
        ProximityDetectorParams(**{field: value})


def test_the_bridge_publishes_one_of_the_two_encodings() -> None:
    assert ProximityBridgeParams().depth_encoding == "32FC1"
    assert ProximityBridgeParams(depth_encoding="16UC1").depth_encoding == "16UC1"
    with pytest.raises(ValidationError, match="depth_encoding"):
        ProximityBridgeParams(depth_encoding="16uc1")


def test_a_real_kinect_frame_becomes_plausible_metres() -> None:
    """A frame no generator of ours made (test/data/README.md): TUM RGB-D, 5000 units per metre."""
    raw = cv2.imread(str(DATA / "tum_rgbd_depth.png"), cv2.IMREAD_UNCHANGED)
    assert raw.dtype == np.uint16 and raw.shape == (480, 640)
    metres = image_metres(_msg(raw, "16UC1")) * np.float32(1000.0 / 5000.0)  # TUM's scale, not REP 118's mm
    valid = metres > 0.0
    assert 0.15 < 1.0 - valid.mean() < 0.25  # a Kinect's shadows and out-of-range: ~19 % no return
    lo, mid, hi = np.quantile(metres[valid], [0.0, 0.5, 1.0])
    assert 0.4 < lo < mid and 1.5 < mid < 3.5 and hi < 10.0  # a room: past the Kinect's 0.4 m minimum, within 10 m
    # the same frame big-endian with padded rows, as sensor_msgs allows: the same metres
    assert np.array_equal(image_metres(_msg(raw, "16UC1", pad=64, big=True)) * np.float32(0.2), metres)
