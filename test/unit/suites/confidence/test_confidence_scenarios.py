"""Shipped confidence files load; broken ones fail with one ConfigError line naming file and key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config

CONFIG = config_dir()
SKILLS = yaml.safe_load((CONFIG / "skills.yaml").read_text())


def write(tmp_path: Path, name: str, data: object) -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data))
    return p


def test_shipped_confidence_suite() -> None:
    scs = load_confidence_scenarios()
    assert len(scs) >= 20
    assert len({s.seed for s in scs}) == len(scs)
    skipped = [o for s in scs for o, want in s.expected.items() if not want]
    assert len(skipped) >= 8 and any(len(s.task.goals) >= 3 for s in scs)


def one_line(err: pytest.ExceptionInfo, *parts: str) -> None:
    msg = str(err.value)
    assert "\n" not in msg
    for part in parts:
        assert part in msg, msg


def with_(base: dict, **changes: object) -> dict:
    return {**base, **changes}


@pytest.mark.parametrize(
    ("changes", "parts"),
    [
        ({"threshold": 0.0}, ["threshold"]),
        ({"threshold": 1.5}, ["threshold"]),
        ({"thresold": 0.5}, ["thresold", "unknown key"]),
        ({"zones": {**SKILLS["zones"], "moon": [1.3, 0.0, 0.65]}}, ["zones.moon", "out of reach"]),
        ({"spawn_region": "attic"}, ["spawn_region"]),
        ({"training": [{"skill": "throw", "objects": ["red"], "regions": ["table"]}]}, ["training.0.skill"]),
        ({"training": [{"skill": "pick", "objects": ["purple"], "regions": ["table"]}]}, ["unknown object"]),
    ],
)
def test_bad_skills_file(tmp_path: Path, changes: dict, parts: list[str]) -> None:
    path = write(tmp_path, "skills.yaml", with_(SKILLS, **changes))
    with pytest.raises(ConfigError) as err:
        load_skills_config(path)
    one_line(err, str(path), *parts)


@pytest.mark.parametrize(
    ("task", "parts"),
    [
        ({"name": "x", "goals": ["purple -> zone_a"]}, ["tasks.0.goals", "unknown object"]),
        ({"name": "x", "goals": ["red -> zone_z"]}, ["unknown zone"]),
        ({"name": "x", "goals": ["red zone_a"]}, ["not 'object -> target"]),
        ({"name": "x", "goals": ["red -> on=red"]}, ["cannot stack"]),
        ({"name": "x", "goals": ["red -> on=blue", "blue -> on=red"]}, ["cycle"]),
        ({"name": "x", "goals": ["red -> zone_a", "red -> zone_b"]}, ["two goals"]),
        ({"name": "x", "goals": ["red -> zone_far"], "expect": {"red": "achieve"}}, ["expect", "skip"]),
        ({"name": "x", "goals": ["red -> zone_a"], "when": 3}, ["tasks.0.when", "unknown key"]),
        ({"name": "x", "goals": []}, ["tasks.0.goals"]),
    ],
)
def test_bad_confidence_scenarios(tmp_path: Path, task: dict, parts: list[str]) -> None:
    path = write(tmp_path, "confidence.yaml", {"seed": 1, "tasks": [task]})
    with pytest.raises(ConfigError) as err:
        load_confidence_scenarios(path)
    one_line(err, str(path), *parts)
