"""Shipped alert files load; broken ones fail with one ConfigError line naming file and key."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.alerts.policy import AlertClass
from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy, load_alert_scenarios
from alpha_matrix.core.suites.common import config_dir

POLICY = yaml.safe_load((config_dir() / "alerts.yaml").read_text())


def write(tmp_path: Path, name: str, data: object) -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data))
    return p


def test_shipped_alert_suite_covers_every_class_twice() -> None:
    scs = load_alert_scenarios()
    counts = Counter(a.cls for s in scs for a in s.alerts)
    assert all(counts[c] >= 2 for c in AlertClass), counts
    assert len({s.phase for s in scs}) >= 6


def one_line(err: pytest.ExceptionInfo, *parts: str) -> None:
    msg = str(err.value)
    assert "\n" not in msg
    for part in parts:
        assert part in msg, msg


def with_(base: dict, **changes: object) -> dict:
    return {**base, **changes}


def alert(**kw: object) -> dict:
    return {"id": "a", "class": "estop_button", "severity": "critical", "at_step": 300, **kw}


@pytest.mark.parametrize(
    ("alerts", "parts"),
    [
        ([alert(**{"class": "meteor"})], ["alerts.0.class"]),
        ([alert(severity="fatal")], ["severity"]),
        ([alert(at_step=0)], ["at_step"]),
        ([alert(cleared_at_step=200)], ["not after at_step"]),
        ([alert(at_step=5000)], ["inside max_steps"]),
        ([alert(), alert()], ["unique"]),
        ([alert(expect="warn")], ["expect", "'stop'"]),
        ([alert(colour="red")], ["colour", "unknown key"]),
    ],
)
def test_bad_alert_scenarios(tmp_path: Path, alerts: list[dict], parts: list[str]) -> None:
    path = write(tmp_path, "alerts.yaml", {"scenarios": [{"name": "s", "alerts": alerts}]})
    with pytest.raises(ConfigError) as err:
        load_alert_scenarios(path)
    one_line(err, str(path), *parts)


def test_bad_alert_policy(tmp_path: Path) -> None:
    responses = {k: v for k, v in POLICY["responses"].items() if k != "estop_button"}
    path = write(tmp_path, "alerts.yaml", with_(POLICY, responses=responses))
    with pytest.raises(ConfigError) as err:
        load_alert_policy(path)
    one_line(err, str(path), "estop_button")
    path = write(tmp_path, "alerts2.yaml", with_(POLICY, responses={**POLICY["responses"], "battery_low": "panic"}))
    with pytest.raises(ConfigError) as err:
        load_alert_policy(path)
    one_line(err, "responses.battery_low")
    path = write(tmp_path, "alerts3.yaml", {"scenarios": [{"name": "s", "status": {"battery": 3}}]})
    with pytest.raises(ConfigError) as err:
        load_alert_scenarios(path)
    one_line(err, "status.battery", "unknown key")
