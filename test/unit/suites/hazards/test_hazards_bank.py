"""The risk memory bank: the shipped file loads and covers the issue's floor; bad files are one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.hazards.bank import INVERSIONS, force_limit_n, load_bank
from alpha_matrix.core.suites.hazards.limits import LIMITS, REGIONS, TRANSIENT_FACTOR
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE, Mechanism, Severity

BANK = load_bank()


def _unit(**over: object) -> dict[str, object]:
    unit: dict[str, object] = {
        "id": "clamp_hand",
        "title": "Hand clamped",
        "mechanism": "quasi_static_clamping",
        "simulable": True,
        "trigger": "gripper presses a palm",
        "consequence": "crush",
        "consequence_type": "contact_over_limit",
        "severity": "serious",
        "severity_basis": "stated",
        "body_region": "hand_fingers",
        "contact_limit": "quasi_static",
        "prevention": "stay under 140 N",
        "provenance": [{"source": "ISO/TS 15066:2016", "locator": "Table A.2", "mark": "V-s"}],
        "inversion": "press_on_region",
    }
    unit.update(over)
    return unit


def _load(tmp_path: Path, units: list[dict[str, object]], **top: object) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "units": units, **top}))
    load_bank(path)


def _one_line_error(tmp_path: Path, units: list[dict[str, object]], **top: object) -> str:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, units, **top)
    text = str(err.value)
    assert "\n" not in text and str(tmp_path) in text
    return text


def test_shipped_bank_meets_the_issue_floor() -> None:
    mechanisms = {u.mechanism for u in BANK.units}
    assert len(BANK.units) >= 40
    assert len(mechanisms) >= 6
    assert NOT_SIMULABLE <= mechanisms  # hot, liquid and sharp are all there, marked not simulable
    assert len({u.id for u in BANK.units}) == len(BANK.units)


def test_every_unit_is_traceable_and_consistent() -> None:
    for u in BANK.units:
        assert u.provenance, u.id
        assert u.simulable == (u.mechanism not in NOT_SIMULABLE), u.id
        assert (u.inversion is not None) == u.simulable, u.id
        assert u.severity != Severity.NONE, u.id
        for s in u.provenance:
            assert s.locator is None or s.mark in ("V", "V-s"), u.id


def test_contact_limits_read_annex_a() -> None:
    by_id = {u.id: u for u in BANK.units}
    assert force_limit_n(by_id["clamping_hand_table"]) == 140.0
    assert force_limit_n(by_id["transient_impact_forearm"]) == 160.0 * TRANSIENT_FACTOR
    assert force_limit_n(by_id["head_contact_face"]) == 0.0
    assert force_limit_n(by_id["sharp_tool_toward_person"]) is None
    assert REGIONS == tuple(LIMITS) and len(REGIONS) == 12


def test_a_good_minimal_file_loads(tmp_path: Path) -> None:
    _load(tmp_path, [_unit()])


@pytest.mark.parametrize(
    ("units", "top", "needle"),
    [
        ([_unit(colour="red")], {}, "units.0.colour: unknown key"),
        ([_unit()], {"extra": 1}, "extra: unknown key"),
        ([_unit(), _unit()], {}, "duplicate id 'clamp_hand'"),
        ([_unit(mechanism="gravity")], {}, "units.0.mechanism"),
        ([_unit(severity="none")], {}, "severity"),
        ([_unit(simulable=False, inversion=None)], {}, "simulable must be true"),
        ([_unit(mechanism="hot", consequence_type="burn", contact_limit=None)], {}, "simulable must be false"),
        ([_unit(body_region="elbow")], {}, "body_region: unknown 'elbow'"),
        ([_unit(inversion="throw_hard")], {}, "inversion: unknown 'throw_hard'"),
        ([_unit(inversion=None)], {}, "inversion: required"),
        ([_unit(provenance=[])], {}, "units.0.provenance"),
        (
            [_unit(provenance=[{"source": "ISO/TS 15066:2016", "locator": "5.5.5", "mark": "U"}])],
            {},
            "never cite an unverified clause",
        ),
        ([_unit(provenance=[{"source": "ISO/TS 15066:2016", "mark": "maybe"}])], {}, "mark"),
    ],
)
def test_bad_bank_files_are_one_line(
    tmp_path: Path, units: list[dict[str, object]], top: dict[str, object], needle: str
) -> None:
    assert needle in _one_line_error(tmp_path, units, **top)


def test_unreadable_or_malformed_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bank.yaml"
    bad.write_text("units: [\n")
    for path in (bad, tmp_path / "missing.yaml"):
        with pytest.raises(ConfigError) as err:
            load_bank(path)
        assert "\n" not in str(err.value)


def test_vocabularies_are_distinct() -> None:
    assert len(set(INVERSIONS)) == len(INVERSIONS)
    assert {u.inversion for u in BANK.units if u.inversion} <= set(INVERSIONS)
    assert {u.mechanism for u in BANK.units} <= set(Mechanism)
