"""The user's own gauges (core/suites/gauge/user_images.py): the folder and its face files checked
at the boundary (one ConfigError line each), names never leaving the folder, and the requests
the runner sends read back to the same pixels and faces."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import pytest
from dials_drawn_here import Drawn, draw

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.gauge.report import reading, summarize_gauge
from alpha_matrix.core.suites.gauge.run import (
    GaugeRequest,
    face_of,
    gauge_observation,
    read_observation,
    reading_decision,
    request_face,
    result_of,
    user_pixels,
)
from alpha_matrix.core.suites.gauge.scenarios import load_gauge_scenarios, scenario_requests
from alpha_matrix.core.suites.gauge.user_images import FaceFile, inside, scan_folder, write_images_scenario


def _folder(tmp: Path, n: int = 3, face: str = "min: 0\nmax: 10\nunit: bar\n") -> Path:
    d = tmp / "gauges"
    d.mkdir()
    (d / "gauge.yaml").write_text(face)
    for i in range(n):
        cv2.imwrite(str(d / f"g{i}.png"), cv2.cvtColor(draw(Drawn(value=2.0 + 2 * i, seed=i)), cv2.COLOR_RGB2BGR))
    return d


def test_a_folder_runs_as_requests_and_is_read(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    (d / "g1.yaml").write_text("value: 4.0\n")  # a truth for one image only
    (d / "notes.txt").write_text("ignored")
    reqs = scenario_requests(write_images_scenario(d))
    assert [r.name for r in reqs] == ["u000", "u001", "u002"]
    results = []
    for r in reqs:
        g = GaugeRequest.model_validate_json(r.scenario_json)
        obs = gauge_observation("e", request_face(g), user_pixels(g))
        results.append(result_of(g, reading_decision(read_observation(obs))))
    assert [r["truth"] for r in results] == [None, 4.0, None]
    assert results[1]["reader"]["accurate"] and not any(r["reader"]["hallucinated"] for r in results)
    assert all(r["reader"]["value"] is not None for r in results)
    assert write_images_scenario(d) == write_images_scenario(d)  # the same folder, the same file


def test_an_image_stated_unreadable_is_scored_and_labels_group_it(tmp_path: Path) -> None:
    """``readable: false`` scores the image as unreadable (a value is a hallucination) with or
    without a value; ``style`` and ``condition`` are the report's groups."""
    d = _folder(tmp_path)
    (d / "g0.yaml").write_text("readable: false\nstyle: brass\ncondition: glare\n")  # no value known
    (d / "g1.yaml").write_text("value: 4.0\nreadable: false\n")  # the value known, the image not readable
    (d / "g2.yaml").write_text("value: 6.0\nstyle: brass\n")
    results = []
    for r in scenario_requests(write_images_scenario(d)):
        g = GaugeRequest.model_validate_json(r.scenario_json)
        obs = gauge_observation("e", request_face(g), user_pixels(g))
        results.append(result_of(g, reading_decision(read_observation(obs))))
    assert all(r["reader"]["value"] is not None for r in results)  # these dials are clear: the reader reads
    assert [r["readable"] for r in results] == [False, False, True]
    assert [r["reader"]["hallucinated"] for r in results] == [True, True, False]
    assert results[0]["stated_unreadable"] and "stated_unreadable" not in results[1]
    assert [r.get("style") for r in results] == ["brass", None, "brass"]
    assert [r["degradation"] for r in results] == ["glare", "user_image", "user_image"]
    summary = summarize_gauge(results)
    assert summary["reader_counts"] == {"readable": 1, "accurate": 1, "unreadable": 2, "hallucinated": 2}
    assert summary["unscored"] == 0
    recs = [SimpleNamespace(ok=True, result=r, scenario=f"g{i}") for i, r in enumerate(results)]
    assert "3 gauge images from the user's folder" in reading(recs, summary).tested  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: [p.unlink() for p in d.glob("*.png")], "no images"),
        (lambda d: (d / "bad.jpg").write_bytes(b"not a jpeg"), "not a readable image"),
        (lambda d: (d / "gauge.yaml").write_text("min: 0\nmax: 10\nunit: furlongs\n"), "unit"),
        (lambda d: (d / "gauge.yaml").write_text("min: 10\nmax: 10\nunit: bar\n"), "must be below max"),
        (lambda d: (d / "g0.yaml").write_text("min: 5\nmax: 1\n"), "must be below max"),
        (lambda d: (d / "gauge.yaml").write_text("min: 0\nmax: 10\nunit: bar\ncolour: red\n"), "colour"),
        (lambda d: (d / "gauge.yaml").unlink(), "no face file"),
        (lambda d: (d / "g0.yaml").write_text("readable: true\n"), "needs the true value"),
        (lambda d: (d / "g0.yaml").write_text("style: ../up\n"), "style"),
    ],
    ids=[
        "no-images",
        "unreadable",
        "unknown-unit",
        "min-eq-max",
        "per-image-min-gt-max",
        "unknown-key",
        "no-face",
        "readable-without-value",
        "bad-label",
    ],
)
def test_a_bad_folder_is_one_line(tmp_path: Path, setup: object, message: str) -> None:
    d = _folder(tmp_path)
    setup(d)  # type: ignore[operator]
    with pytest.raises(ConfigError) as err:
        scan_folder(d)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_names_never_leave_the_folder(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    (tmp_path / "outside.png").write_bytes((d / "g0.png").read_bytes())
    for name in ("../outside.png", "/etc/passwd", "..", "sub/g0.png", "", "g0.png\0x"):
        with pytest.raises(ConfigError):
            inside(d, name)
    (d / "link.png").symlink_to(tmp_path / "outside.png")
    with pytest.raises(ConfigError):
        inside(d, "link.png")
    with pytest.raises(ConfigError, match="link.png"):  # a folder holding it is refused as a whole
        scan_folder(d)
    (d / "link.png").unlink()
    assert inside(d, "g0.png") == (d / "g0.png").resolve()
    # a scenario file naming a file outside its folder is refused before anything runs
    scen = tmp_path / "s.yaml"
    text = write_images_scenario(d).read_text().replace("file: g0.png", "file: ../outside.png")
    scen.write_text(text)
    with pytest.raises(ConfigError):
        scenario_requests(scen)
    # and an image changed after its scenario file was written
    scen.write_text(write_images_scenario(d).read_text())
    cv2.imwrite(str(d / "g0.png"), cv2.cvtColor(draw(Drawn(value=9.0)), cv2.COLOR_RGB2BGR))
    with pytest.raises(ConfigError, match="changed"):
        scenario_requests(scen)
    assert load_gauge_scenarios(scen).images_dir == d.resolve()


def test_a_stated_drag_pointer_reaches_the_reader_through_the_observation(tmp_path: Path) -> None:
    """``drag_pointer: true`` travels in the observation's brief (what the bag holds and the audit
    re-reads); unstated, the brief is as before (no key)."""
    d = _folder(tmp_path, n=2)
    (d / "g1.yaml").write_text("drag_pointer: true\n")
    faces = []
    for r in scenario_requests(write_images_scenario(d)):
        g = GaugeRequest.model_validate_json(r.scenario_json)
        obs = gauge_observation("e", request_face(g), user_pixels(g))
        faces.append((obs.situation["brief"], face_of(obs)))
    assert "drag_pointer" not in faces[0][0] and faces[1][0]["drag_pointer"] is True
    assert [f.spec.drag_pointer for _, f in faces] == [False, True]  # type: ignore[union-attr]


def test_a_unit_as_printed_on_the_dial_is_taken() -> None:
    assert FaceFile(min=0, max=160, unit="°C").unit == "degC"  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        FaceFile(min=0, max=160, unit="C")  # type: ignore[arg-type]
