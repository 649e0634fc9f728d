"""Camera frames as protocol images: lossless and byte-identical for the same pixels."""

from __future__ import annotations

import numpy as np
import pytest

from alpha_matrix.core.agent.images import rgb_image, rgb_pixels


def test_an_rgb_frame_round_trips_and_encodes_the_same_bytes_every_time() -> None:
    pixels = np.random.default_rng(7).integers(0, 256, size=(12, 16, 3), dtype=np.uint8)
    a, b = rgb_image(pixels, 144), rgb_image(pixels.copy(), 144)
    assert a == b and a.kind == "rgb" and a.step == 144
    assert np.array_equal(rgb_pixels(a), pixels)


@pytest.mark.parametrize("bad", [np.zeros((4, 4), np.uint8), np.zeros((4, 4, 4), np.uint8), np.zeros((4, 4, 3))])
def test_only_an_rgb8_frame_is_an_image(bad: np.ndarray) -> None:
    with pytest.raises(ValueError, match="H x W x 3 uint8"):
        rgb_image(bad, 0)
