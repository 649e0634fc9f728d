"""Camera frames as protocol images (PNG, base64) for multimodal agents.

PNG is lossless and pillow's encoder is deterministic for the same pixels and settings, so the
same frame gives the same bytes in every run (what the record and a replay compare).
"""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image as PILImage

from alpha_matrix.core.agent.protocol import Image


def rgb_image(pixels: np.ndarray, step: int) -> Image:
    """An H x W x 3 uint8 RGB frame as the observation's image of ``step``."""
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] != 3:
        raise ValueError(f"an RGB frame is H x W x 3 uint8, not {pixels.shape} {pixels.dtype}")
    buf = io.BytesIO()
    PILImage.fromarray(pixels, "RGB").save(buf, format="PNG", optimize=False, compress_level=6)
    return Image(kind="rgb", png_base64=base64.b64encode(buf.getvalue()).decode("ascii"), step=step)


def rgb_pixels(image: Image) -> np.ndarray:
    """The pixels of an RGB image (the inverse of ``rgb_image``)."""
    with PILImage.open(io.BytesIO(base64.b64decode(image.png_base64))) as im:
        return np.asarray(im.convert("RGB"))
