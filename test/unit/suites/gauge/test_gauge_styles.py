"""The styled faces of the suite's own generator (faces.STYLED, config/scenarios/gauge_styles.yaml):
drawn deterministically, the shipped faces and set unchanged, the readable rule true on them
(polarity, numerals under the needle's end, a drag pointer), the scenario file's ``faces`` and the
route to the dial reader with range, unit and direction only."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.gauge import run
from alpha_matrix.core.suites.gauge.conditions import DEGRADATIONS, Conditions, Occluder
from alpha_matrix.core.suites.gauge.dataset import build_set, plan
from alpha_matrix.core.suites.gauge.dial import DialReading, DialSpec
from alpha_matrix.core.suites.gauge.faces import FACES, STYLED, draw_face, label_points, tip_points
from alpha_matrix.core.suites.gauge.reader import Reading
from alpha_matrix.core.suites.gauge.rule import judge
from alpha_matrix.core.suites.gauge.scenarios import load_gauge_scenarios
from alpha_matrix.core.suites.gauge.scene import GaugeScene, image_points
from alpha_matrix.core.suites.gauge.texture import degraded_texture
from alpha_matrix.core.suites.gauge.visibility import under_drag, visibility

STYLES_FILE = Path(__file__).resolve().parents[4] / "config" / "scenarios" / "gauge_styles.yaml"

# The shipped faces' textures and the shipped set's first 40 requests, as drawn before the styled
# faces were added (the same figures at the commit before them): they must never change.
SHIPPED_TEXTURES = {
    "pressure": "d0b0dae5f22446be6d2c501b3377ea232f3237014d8048c0b8f9c585f7a9a064",
    "thermometer": "4bf954340855c572d2f776939fc66c6a888ded3dafb8216a0d0d5f2694d8f190",
    "sight_glass": "4abb88c3d977f44da5584e03fd0b7c16c407c088cd903191c2653dbdaa31c8a7",
}
SHIPPED_FIRST_40 = "8ca9f6eec798c2739eae574e5098bbb898284c278bbefa6a90d7911d671b8b10"


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


@pytest.fixture(scope="module")
def scene() -> Iterator[GaugeScene]:
    with GaugeScene() as s:
        yield s


def test_the_shipped_faces_and_set_are_unchanged(scene: GaugeScene) -> None:
    for name, digest in SHIPPED_TEXTURES.items():
        f = FACES[name]
        assert f.reader == "classical" and name not in STYLED
        assert sha(draw_face(f, f.lo + 0.37 * f.span).tobytes()) == digest, name
    items = build_set(scene, 15, 40)
    assert sha("".join(run.scenario_json(i) for i in items).encode()) == SHIPPED_FIRST_40
    assert all(plan(i) == plan(i, None) for i in range(200))


def test_the_styled_faces_render_deterministically(scene: GaugeScene) -> None:
    assert len(STYLED) >= 5 and all(f.kind == "dial" and f.reader == "dial" for f in STYLED.values())
    for f in STYLED.values():
        a, b = draw_face(f, f.lo + 0.3 * f.span), draw_face(f, f.lo + 0.3 * f.span)
        assert a.shape == (512, 512, 3) and np.array_equal(a, b)
        assert not np.array_equal(a, draw_face(f, f.lo + 0.6 * f.span))  # the needle moves
    items = build_set(scene, 15, 20, tuple(STYLED))
    again = build_set(scene, 15, 20, tuple(STYLED))
    assert [run.scenario_json(i) for i in items] == [run.scenario_json(i) for i in again]
    it = items[5]
    assert np.array_equal(scene.render(it.conditions, it.seed).image, scene.render(it.conditions, it.seed).image)
    assert np.array_equal(degraded_texture(it.conditions, it.seed), degraded_texture(it.conditions, it.seed))


def test_light_on_dark_is_drawn_and_judged_as_contrast() -> None:
    f = STYLED["vacuum_dark"]
    img = draw_face(f, 1.0)
    x, y = (int(round(c)) for c in f.center)
    assert img[y - 60, x - 100].max() < 60  # black face ...
    u, v = label_points(f)[2]  # ... white major tick
    assert img[int(round(v)), int(round(u))].min() > 180


def clean(face: str, value: float, **kw: object) -> Conditions:
    return Conditions(face=face, value=value, view_deg=10.0, distance=0.6, light=0.9, **kw)  # type: ignore[arg-type]


def test_the_rule_on_styled_faces(scene: GaugeScene) -> None:
    for name in STYLED:
        f = FACES[name]
        c = clean(name, f.lo + 0.4 * f.span)
        vis = visibility(scene, scene.build(c, 1), c)
        assert judge(vis).readable, name
        assert min(p.contrast for p in vis.tip) > 100  # white on black as much as black on white
        broken = replace(c, needle_len=0.4)  # the needle's end is gone: a drag pointer is no needle
        assert judge(visibility(scene, scene.build(broken, 1), broken)).reason == "indicator contrast below bound"
        fogged = replace(c, fog=0.97)
        assert not judge(visibility(scene, scene.build(fogged, 1), fogged)).readable


def test_a_hidden_tip_is_unreadable_on_a_styled_face(scene: GaugeScene) -> None:
    f = FACES["kpa_300"]
    value = 250.0
    tips = np.array(tip_points(f, value))
    u, v = tips[len(tips) // 2]
    c = clean("kpa_300", value, occluder=Occluder("object", float(u), float(v), 0.07, 0.05, 0.0, (0.3, 0.3, 0.3)))
    assert judge(visibility(scene, scene.build(c, 1), c)).reason == "indicator occluded"
    # numerals sit under the old tip region on this face: its rule's region is the needle beyond them
    assert f.tip_region[0] > f.label_at + 0.1


def test_a_labelled_tick_under_the_drag_pointer_is_not_counted() -> None:
    f = FACES["psi_bare"]
    value = 21.0  # the drag pointer rests 0.15 of the span (9 psi) above: on the major tick at 30
    assert f.drag_value(value) == pytest.approx(30.0)
    labels = np.array(label_points(f))
    covered = under_drag(f, value, labels)
    assert covered.sum() == 1 and f.majors()[int(np.argmax(covered))] == pytest.approx(30.0)
    assert not under_drag(f, value + 3.0, labels).any()


def test_the_styles_file_validates_and_a_bad_face_is_one_line(tmp_path: Path) -> None:
    spec = load_gauge_scenarios(STYLES_FILE)
    assert spec.faces == tuple(STYLED) and spec.items % 20 == 0
    counts = Counter((plan(i, spec.faces)[0], plan(i, spec.faces)[1], i % 2) for i in range(100))
    assert len(counts) == len(STYLED) * len(DEGRADATIONS) * 2  # every face meets every degradation, both classes
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nitems: 20\nfaces: [vacuum_dark, speedometer]\n")
    with pytest.raises(ConfigError) as err:
        load_gauge_scenarios(bad)
    assert "\n" not in str(err.value) and "faces" in str(err.value) and "speedometer" in str(err.value)
    twice = tmp_path / "twice.yaml"
    twice.write_text("faces: [psi_bare, psi_bare]\n")
    with pytest.raises(ConfigError, match="listed twice"):
        load_gauge_scenarios(twice)


def test_a_styled_face_goes_to_the_dial_reader_with_no_layout(
    scene: GaugeScene, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[DialSpec] = []

    def fake_dial(image: np.ndarray, spec: DialSpec, *_: float) -> DialReading:
        told.append(spec)
        return DialReading(1.5, 0.1, spec.unit)

    def no_classical(*_: object, **__: object) -> Reading:
        raise AssertionError("a styled face went to the classical reader")

    monkeypatch.setattr(run, "read_dial", fake_dial)
    monkeypatch.setattr(run, "read_gauge", no_classical)
    f = FACES["mpa_dark_240"]
    c = clean(f.name, 0.7)
    obs = run.gauge_observation("gauge-g000", f, scene.render(c, 3).image)
    assert run.read_observation(obs).value == 1.5
    assert told == [DialSpec(f.lo, f.hi, f.unit, clockwise=True, drag_pointer=True)]  # no arc angles, no ticks
    assert told[0].arc_start_deg is None and told[0].arc_end_deg is None

    classical: list[str] = []
    monkeypatch.setattr(
        run, "read_gauge", lambda img, face, s=None: classical.append(face.name) or Reading(1.0, 0.1, "bar")
    )
    p = FACES["pressure"]
    run.read_observation(run.gauge_observation("gauge-g001", p, scene.render(clean("pressure", 4.0), 3).image))
    assert classical == ["pressure"] and len(told) == 1


def test_a_dark_face_renders_as_the_rule_models_it(scene: GaugeScene) -> None:
    """White ink on black: face and needle levels in the image = the face's own levels x light, and
    the rule's tip contrast is that difference (polarity does not flip its sign)."""
    f = FACES["vacuum_dark"]
    for light in (0.95, 0.4):
        c = Conditions(face=f.name, value=1.0, light=light, noise=0.0)
        shot = scene.render(c, 1)
        grey = shot.image.astype(float).mean(axis=2)
        face_pt = image_points(shot.camera, np.array([f.polar(-90.0, 0.3)]))[0]  # below the hub, left of "bar"
        tip = image_points(shot.camera, np.array(tip_points(f, 1.0)))
        measured_face = grey[int(round(face_pt[1])), int(round(face_pt[0]))]
        measured_ink = np.median([grey[int(round(y)), int(round(x))] for x, y in tip])
        assert measured_face == pytest.approx(f.paper * light, abs=6.0)
        assert measured_ink - measured_face == pytest.approx((f.ink - f.paper) * light, rel=0.2)
        vis = visibility(scene, scene.build(c, 1), c)
        assert np.median([p.contrast for p in vis.tip]) == pytest.approx((f.ink - f.paper) * light, rel=0.2)
