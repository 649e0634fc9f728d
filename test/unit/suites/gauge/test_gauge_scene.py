"""The gauge scene: the render agrees with the contrast model, rays see occluders, seeds are stable."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.gauge.conditions import DEGRADATIONS, Conditions, Occluder
from alpha_matrix.core.suites.gauge.dataset import build_set, item_conditions, plan
from alpha_matrix.core.suites.gauge.faces import FACES, tip_points
from alpha_matrix.core.suites.gauge.rule import judge
from alpha_matrix.core.suites.gauge.scene import GaugeScene, image_points
from alpha_matrix.core.suites.gauge.visibility import DIAL_PAPER, visibility


@pytest.fixture(scope="module")
def scene() -> Iterator[GaugeScene]:
    with GaugeScene() as s:
        yield s


def test_render_matches_the_light_model(scene: GaugeScene) -> None:
    """Paper and needle levels in the image = texture levels x light (TinyRenderer, light on the normal)."""
    for light in (0.95, 0.4):
        c = Conditions(face="pressure", value=5.0, light=light, noise=0.0)
        shot = scene.render(c, 1)
        grey = shot.image.astype(float).mean(axis=2)
        face = FACES["pressure"]
        paper = image_points(shot.camera, np.array([face.polar(0.0, 0.3)]))[0]  # right of the hub, empty paper
        tip = image_points(shot.camera, np.array(tip_points(face, 5.0)))
        measured_paper = grey[int(round(paper[1])), int(round(paper[0]))]
        measured_ink = np.median([grey[int(round(y)), int(round(x))] for x, y in tip])
        assert measured_paper == pytest.approx(DIAL_PAPER * light, rel=0.05)
        assert measured_paper - measured_ink == pytest.approx((DIAL_PAPER - 20) * light, rel=0.2)


def test_ray_test_sees_an_occluder_on_the_tip_only(scene: GaugeScene) -> None:
    face = FACES["pressure"]
    u, v = tip_points(face, 3.0)[3]
    for where, expect in (((u, v), True), ((u + 160, v + 160), False)):
        occ = Occluder("object", where[0], where[1], 0.06, 0.05, 0.0, (0.3, 0.3, 0.3))
        c = Conditions(face="pressure", value=3.0, view_deg=35.0, view_dir_deg=20.0, occluder=occ)
        vis = visibility(scene, scene.build(c, 1), c)
        assert any(p.occluded for p in vis.tip) is expect
        assert judge(vis).readable is not expect


def test_same_seed_same_image_other_seed_other_noise(scene: GaugeScene) -> None:
    seed, c = item_conditions(15, 3, 0)
    assert seed == derive_seed("gauge-item", 15, 3, 0)
    assert item_conditions(15, 3, 0) == (seed, c)
    a, b = scene.render(c, seed).image, scene.render(c, seed).image
    assert np.array_equal(a, b)
    assert not np.array_equal(a, scene.render(c, seed + 1).image)


def test_conditions_round_trip_through_json_types() -> None:
    _, c = item_conditions(15, 9, 0)  # an occlusion item
    import json

    assert Conditions.from_dict(json.loads(json.dumps(c.to_dict()))) == c


def test_the_set_is_balanced_and_labelled_by_the_rule(scene: GaugeScene) -> None:
    items = build_set(scene, 15, 40)
    assert Counter(i.readable for i in items) == {True: 20, False: 20}
    assert Counter(i.degradation for i in items) == dict.fromkeys(DEGRADATIONS, 4)
    assert all(plan(i.index) == (i.face, i.degradation, i.readable) for i in items)
    for item in items[:6]:
        vis = visibility(scene, scene.build(item.conditions, item.seed), item.conditions)
        assert judge(vis).readable is item.readable
        assert item_conditions(15, item.index, item.attempt) == (item.seed, item.conditions)
