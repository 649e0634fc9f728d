"""The item's image from the sim camera: the rendered objects are where the projected masks (the
pointing and box truth) say, and the PNG is byte-identical run to run."""

from __future__ import annotations

import numpy as np

from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.render import render_scene, scene_image
from alpha_matrix.core.suites.refusal.view import centroid, inside, projected_mask


def _mask(poly: np.ndarray, h: int, w: int) -> np.ndarray:
    ys, xs = np.mgrid[0:h, 0:w]
    ny, nx = 1000.0 * (ys + 0.5) / h, 1000.0 * (xs + 0.5) / w
    out = np.ones((h, w), dtype=bool)
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        out &= (b[0] - a[0]) * (nx - a[1]) - (b[1] - a[1]) * (ny - a[0]) >= -1e-9
    return out


def test_projected_masks_match_the_rendered_objects(items: list[RefusalItem]) -> None:
    for item in (items[10], items[33], items[101]):
        r = render_scene(item.scene)
        h, w = r.segmentation.shape
        for o in item.scene.objects:
            poly = projected_mask(o)
            seg = r.segmentation == r.bodies[o.name]
            pred = _mask(poly, h, w)
            assert (pred & seg).sum() / (pred | seg).sum() >= 0.8, (item.item_id, o.name)
            y, x = centroid(poly)
            assert inside(poly, (y, x))
            assert seg[int(y / 1000.0 * h), int(x / 1000.0 * w)], (item.item_id, o.name)


def test_the_image_is_deterministic(items: list[RefusalItem]) -> None:
    a, b = scene_image(items[5].scene), scene_image(items[5].scene)
    assert a.png_base64 == b.png_base64 and a.kind == "rgb"
