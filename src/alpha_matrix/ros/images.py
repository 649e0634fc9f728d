"""Camera messages: sensor_msgs Image and CameraInfo from a rendered frame (their QoS: ros/qos.IMAGES)."""

from __future__ import annotations

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import CameraInfo, Image

from alpha_matrix.core.sim.camera import Frame


def image(data: np.ndarray, encoding: str, stamp: Time, tag: str) -> Image:
    msg = Image(height=data.shape[0], width=data.shape[1], encoding=encoding, is_bigendian=0)
    msg.header.stamp, msg.header.frame_id = stamp, tag
    arr = np.ascontiguousarray(data)
    msg.step = arr.strides[0]
    msg.data = arr.tobytes()
    return msg


def camera_info(frame: Frame, stamp: Time, tag: str) -> CameraInfo:
    i = frame.info
    msg = CameraInfo(height=i.height, width=i.width, distortion_model="plumb_bob")
    msg.header.stamp, msg.header.frame_id = stamp, tag
    msg.d = [0.0] * 5
    msg.k = [i.fx, 0.0, i.cx, 0.0, i.fy, i.cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [i.fx, 0.0, i.cx, 0.0, 0.0, i.fy, i.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg
