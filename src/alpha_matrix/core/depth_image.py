"""Depth images as real depth cameras publish them (REP 118), to the metres the detector takes.

REP 118 allows two encodings and the drivers use both: ``16UC1``, uint16 millimetres
(realsense2_camera, Orbbec, Azure Kinect, OAK), and ``32FC1``, float32 metres. No return is 0
in 16UC1 and NaN (or 0) in 32FC1; the detector's convention is 0. ``sensor_msgs/Image`` lets
rows be padded (``step`` > width x pixel size) and the bytes be big-endian. The detector node
and the bag audit both convert through ``image_metres``, so a replay sees exactly the metres
the node saw. Plain numpy, no ROS: a message is read by its fields (duck-typed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

ENCODINGS = ("16UC1", "32FC1")
_PIXEL: dict[str, np.dtype[Any]] = {"16UC1": np.dtype(np.uint16), "32FC1": np.dtype(np.float32)}
MM_PER_M = 1000.0  # 16UC1 units
MAX_MM = 65535  # the largest 16UC1 depth, 65.535 m


class DepthImageError(ValueError):
    """A depth image the detector cannot read, in one line (encoding or layout)."""


def depth_metres(
    data: Any, *, width: int, height: int, step: int, encoding: str, is_bigendian: bool | int = False
) -> np.ndarray:
    """``sensor_msgs/Image`` fields -> (height, width) float32 metres, 0 = no return.

    16UC1: millimetres / 1000 (0 stays 0). 32FC1: metres; NaN, +-inf and values <= 0 become 0.
    """
    if encoding not in _PIXEL:
        raise DepthImageError(
            f"depth image encoding {encoding!r} not accepted: expected 16UC1 (uint16 mm) or 32FC1 (float32 m)"
        )
    pixel = _PIXEL[encoding].newbyteorder(">" if is_bigendian else "<")
    row = width * pixel.itemsize
    where = f"depth image {width}x{height} {encoding}"
    if width <= 0 or height <= 0:
        raise DepthImageError(f"{where}: empty")
    if step < row:
        raise DepthImageError(f"{where}: step {step} bytes < {row} bytes of pixels per row")
    buf = np.frombuffer(data if isinstance(data, bytes | bytearray | memoryview) else bytes(data), np.uint8)
    need = (height - 1) * step + row  # the last row's padding may be left out
    if buf.size < need:
        raise DepthImageError(f"{where}: {buf.size} bytes of data, expected {height * step} (height x step)")
    rows = np.lib.stride_tricks.as_strided(buf, shape=(height, row), strides=(step, 1))
    raw = np.ascontiguousarray(rows).view(pixel).reshape(height, width)
    if encoding == "16UC1":
        return raw.astype(np.float32) / np.float32(MM_PER_M)
    metres = raw.astype(np.float32)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(metres) & (metres > 0.0), metres, np.float32(0.0))


def image_metres(msg: Any) -> np.ndarray:
    """``depth_metres`` of a ``sensor_msgs/Image`` (live or from a bag): read by its fields."""
    return depth_metres(
        msg.data,
        width=int(msg.width),
        height=int(msg.height),
        step=int(msg.step),
        encoding=str(msg.encoding),
        is_bigendian=bool(msg.is_bigendian),
    )


def millimetres(depth: np.ndarray) -> np.ndarray:
    """Metres (0, NaN, inf or <= 0 = no return) -> 16UC1 uint16 mm: rounded to the nearest mm,
    0 = no return, clipped to 65535 (65.535 m)."""
    mm = np.rint(np.asarray(depth, dtype=np.float64) * MM_PER_M)
    with np.errstate(invalid="ignore"):
        mm = np.where(np.isfinite(mm) & (mm > 0.0), mm, 0.0)
    return np.minimum(mm, MAX_MM).astype(np.uint16)
