"""The readable rule on constructed cases, and the contrast model it is fed with."""

from __future__ import annotations

import numpy as np
import pytest

from alpha_matrix.core.suites.gauge.conditions import Conditions
from alpha_matrix.core.suites.gauge.faces import FACES, label_points, tip_points
from alpha_matrix.core.suites.gauge.rule import CONTRAST_MIN, MIN_LABELS, Point, Visibility, judge
from alpha_matrix.core.suites.gauge.visibility import DIAL_PAPER, contrast

SEEN = Point(CONTRAST_MIN * 3)
FAINT = Point(CONTRAST_MIN * 0.9)
HIDDEN = Point(0.0, occluded=True)


def vis(tip: list[Point] | None = None, labels: list[Point] | None = None, res: float = 5.0) -> Visibility:
    return Visibility(tuple(tip if tip is not None else [SEEN] * 5), tuple(labels or [SEEN] * 6), res)


def test_clean_view_is_readable() -> None:
    assert judge(vis()).readable


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        (vis(tip=[SEEN, SEEN, HIDDEN, SEEN]), "indicator occluded"),
        (vis(tip=[SEEN, FAINT, SEEN]), "indicator contrast below bound"),
        (vis(tip=[]), "indicator contrast below bound"),
        (vis(labels=[SEEN] + [FAINT] * 5), f"fewer than {MIN_LABELS} labelled ticks visible"),
        (vis(labels=[SEEN, HIDDEN, HIDDEN]), f"fewer than {MIN_LABELS} labelled ticks visible"),
        (vis(res=0.99), "resolution too low"),
    ],
)
def test_each_clause_can_fail(case: Visibility, reason: str) -> None:
    verdict = judge(case)
    assert not verdict.readable
    assert verdict.reason == reason


def test_two_labelled_ticks_are_enough_and_the_bound_is_inclusive() -> None:
    assert judge(vis(labels=[SEEN, SEEN] + [HIDDEN] * 4))
    assert judge(vis(tip=[Point(CONTRAST_MIN)] * 3))


FACE = FACES["pressure"]
TIPS = np.array(tip_points(FACE, 5.0))
WIDTH = np.full(len(TIPS), 2.0)  # a 5 texture-px needle at 0.4 image px per texture px


def tip_contrast(**kw: object) -> np.ndarray:
    c = Conditions(face="pressure", value=5.0, **kw)  # type: ignore[arg-type]
    return contrast(c, TIPS, DIAL_PAPER, 20.0, WIDTH, c.blur[0])


def test_contrast_model_clean_and_dim() -> None:
    clean = tip_contrast(light=1.0)
    assert np.allclose(clean, DIAL_PAPER - 20.0)
    assert np.allclose(tip_contrast(light=0.1), 0.1 * clean)


def test_contrast_model_glass_effects() -> None:
    u, v = TIPS[3]
    assert np.all(tip_contrast(fog=0.95) < CONTRAST_MIN)
    assert np.all(tip_contrast(fog=0.3) > CONTRAST_MIN)
    glare = tip_contrast(glare=(u, v, 30.0, 400.0))
    assert glare[3] == 0.0  # saturated: needle and paper both clip at 255
    far_glare = tip_contrast(glare=(u + 200, v, 20.0, 400.0))
    assert np.all(far_glare > 0.9 * (DIAL_PAPER - 20))
    shattered = tip_contrast(crack=(u, v, 8.0, 3))  # tip points lie 6.6 px apart
    assert shattered[3] == 0.0 and shattered[0] > CONTRAST_MIN


def test_contrast_model_sensor_effects() -> None:
    assert np.all(tip_contrast(blur=(50.0, 0.0)) < CONTRAST_MIN)  # 2 px mark, 50 px across it
    assert np.all(tip_contrast(downscale=16) < CONTRAST_MIN)
    assert np.all(tip_contrast(downscale=2) > CONTRAST_MIN)


def test_label_points_are_one_per_labelled_tick() -> None:
    for face in FACES.values():
        assert len(label_points(face)) == len(face.majors()) >= MIN_LABELS
