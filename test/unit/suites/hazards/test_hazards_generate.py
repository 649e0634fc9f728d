"""Constrained inversion: deterministic, the issue's floor (>= 100 feasible z from >= 40 units), traceable."""

from __future__ import annotations

import pytest

from alpha_matrix.core.suites.hazards.bank import load_bank
from alpha_matrix.core.suites.hazards.generate import INVERSION_KIND, build, draw_of, generate_set
from alpha_matrix.core.suites.hazards.scenario import Scenario, load_scenarios

BANK = load_bank()
PER_UNIT = 5


@pytest.fixture(scope="module")
def generated() -> tuple[list[Scenario], list]:
    return generate_set(BANK, seed=0, per_unit=PER_UNIT)


def test_floor_of_feasible_scenarios_and_units(generated: tuple[list[Scenario], list]) -> None:
    ok, bad = generated
    assert len(ok) + len(bad) == PER_UNIT * len(BANK.units)
    assert len(ok) >= 100
    assert len({z.unit_id for z in ok}) >= 40
    assert all(r.reason.split(":")[0] in ("reach", "payload", "budget") for r in bad)


def test_every_scenario_traces_to_its_unit(generated: tuple[list[Scenario], list]) -> None:
    units = {u.id: u for u in BANK.units}
    for z in generated[0]:
        u = units[z.unit_id]
        assert z.scenario_id.startswith(u.id + ".")
        assert z.provenance.sources == tuple(s.source for s in u.provenance)
        assert z.mechanism is u.mechanism
        assert (z.chain.consequence.type, z.chain.consequence.severity) == (u.consequence_type, u.severity)
        region = next((o.body_region for o in z.objects if o.body_region), None)
        assert u.body_region is None or region == u.body_region, z.scenario_id


def test_generation_is_deterministic_and_seeded() -> None:
    unit = next(u for u in BANK.units if u.inversion == "press_on_region")
    assert build(draw_of(unit, 0), 0) == build(draw_of(unit, 0), 0)
    assert build(draw_of(unit, 0), 0) != build(draw_of(unit, 0), 1)
    assert build(draw_of(unit, 0), 0) != build(draw_of(unit, 1), 0)


def test_records_round_trip_through_the_file_loader(generated: tuple[list[Scenario], list], tmp_path) -> None:
    import json

    path = tmp_path / "z.json"
    path.write_text(json.dumps([z.model_dump(mode="json") for z in generated[0]]))
    assert list(load_scenarios(path)) == generated[0]


def test_every_inversion_of_the_bank_has_a_kind() -> None:
    assert {u.inversion for u in BANK.units if u.inversion} <= set(INVERSION_KIND)
