"""Scenario file: the shipped set, and one-line errors naming file and key for every problem."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.sim.camera import LIGHTING
from alpha_matrix.core.sim.human import POSTURES
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.proximity.scenarios import LightingName, PostureName, load_scenarios

SHIPPED = config_dir() / "scenarios" / "proximity.yaml"
GOOD_APPROACH = "{name: a, angle_deg: 180, start_distance: 4.0, stop_distance: 0.8, speed: 1.0}"


def write(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "scen.yaml"
    f.write_text(body, encoding="utf-8")
    return f


def doc(approach: str = GOOD_APPROACH, top: str = "thresholds: [1.0, 2.0]", policy: str = "") -> str:
    return f"{top}\n{policy}approaches:\n  - {approach}\n"


def test_shipped_set_covers_angles_speeds_postures_lighting_and_passers() -> None:
    s = load_scenarios(SHIPPED)
    assert s.thresholds == (1.0, 2.0, 3.0)
    names = {r.name for r in s.runs}
    approaches = [r for r in s.runs if r.path.kind == "approach" and r.threshold == 1.0]
    passers = [r for r in s.runs if r.path.kind == "pass" and r.threshold == 1.0]
    assert len(approaches) >= 30 and len(passers) >= 3
    assert len(s.runs) == 3 * len(names)
    assert {r.path.posture for r in approaches} == set(POSTURES)
    assert {r.lighting for r in approaches} == set(LIGHTING)
    speeds = [r.path.speed for r in approaches]
    assert min(speeds) <= 0.5 and max(speeds) >= 2.0
    assert len({round(r.path.angle_deg) for r in approaches}) >= 20
    assert sum(r.path.stop_distance >= 3.6 for r in passers) >= 5  # never within 3 m + tolerance
    assert s.settings.policy.margin == pytest.approx(0.25)


def test_names_in_the_schema_match_the_code() -> None:
    assert set(typing.get_args(LightingName)) == set(LIGHTING)
    assert set(typing.get_args(PostureName)) == set(POSTURES)


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (doc(top="thresholds: [1.0]\nbogus: 1"), r"scen\.yaml: bogus: unknown key"),
        (
            doc(approach=GOOD_APPROACH.replace("speed: 1.0", "speed: 1.0, colour: red")),
            r"approaches\.0\.colour: unknown key",
        ),
        (doc(approach=GOOD_APPROACH.replace("speed: 1.0", "speed: 0")), r"approaches\.0\.speed: .*greater than 0"),
        (doc(top="thresholds: [1.0, 0.0]"), r"thresholds\.1: .*greater than 0"),
        (doc(policy="policy: {hold_time_s: -1}\n"), r"policy\.hold_time_s: .*greater than or equal to 0"),
        (
            doc(approach=GOOD_APPROACH.replace("stop_distance: 0.8", "stop_distance: 0.2")),
            r"approaches\.0\.stop_distance: .*inside the table/robot",
        ),
        (
            doc(approach=GOOD_APPROACH.replace("start_distance: 4.0", "start_distance: 9.0")),
            r"approaches\.0\.start_distance: .*outside the camera's view",
        ),
        (
            doc(approach=GOOD_APPROACH.replace("start_distance: 4.0", "start_distance: 0.5")),
            r"approaches\.0: .*start_distance must be larger",
        ),
        (doc(top="thresholds: [4.0]"), r"thresholds\.0: .*exceeds the detection range"),
        (doc(approach=GOOD_APPROACH + "\n  - " + GOOD_APPROACH), r"name: duplicate scenario names: a"),
        ("thresholds: [1.0\napproaches: []\n", r"scen\.yaml: malformed YAML"),
    ],
)
def test_every_problem_is_one_line_naming_file_and_key(tmp_path: Path, body: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as err:
        load_scenarios(write(tmp_path, body))
    assert "\n" not in str(err.value)
    assert str(tmp_path / "scen.yaml") in str(err.value)


def test_a_valid_minimal_file_expands_paths_times_thresholds(tmp_path: Path) -> None:
    s = load_scenarios(write(tmp_path, doc()))
    assert [(r.name, r.threshold) for r in s.runs] == [("a", 1.0), ("a", 2.0)]
    assert s.runs[0].path.stop_distance == 0.8 and s.runs[0].lighting == "default"
