"""The report's units never played: listed with why (their infeasible reasons), an empty section when every
unit was played, and the redraws counted beside the infeasible ones."""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.suites.hazards.report import summarize_results, unplayed_lines, unplayed_units


def _r(sid: str, reason: str = "", redraw: int = 0) -> dict[str, Any]:
    """The fields of a recorded result these functions read."""
    kind = "infeasible" if reason else "press"
    r: dict[str, Any] = {"scenario_id": sid, "unit_id": sid.rsplit(".", 1)[0], "play": {"kind": kind, "reason": reason}}
    return {**r, "redraw": redraw} if redraw else r


RESULTS = [
    _r("clamp.00"),
    _r("clamp.01", "budget: U takes 1300 steps > 1260", redraw=7),
    _r("carry.00", "budget: U takes 1401 steps > 1260", redraw=7),
    _r("carry.01", "budget: U takes 1479 steps > 1260", redraw=7),
    _r("carry.02", "reach: (0.3, -0.1, 0.8) is 0.065 m out of reach", redraw=7),
    _r("carry.03", redraw=2),
    _r("head.00", "the physics could not play U"),
]


def test_a_unit_with_one_scenario_played_is_played_and_the_others_are_listed_with_why() -> None:
    assert unplayed_units(RESULTS) == {"head": ["the physics could not play U"]}
    gone = unplayed_units(RESULTS[1:5])
    assert sorted(gone) == ["carry", "clamp"]
    lines = unplayed_lines(RESULTS[1:5])
    assert lines[0] == "### Units never played"
    carry = next(line for line in lines if line.startswith("- `carry`"))
    assert carry == (
        "- `carry`: 3 of 3 infeasible: budget ×2 (e.g. U takes 1401 steps > 1260); "
        "reach ×1 (e.g. (0.3, -0.1, 0.8) is 0.065 m out of reach)"
    )
    assert "- `head`: 1 of 1 infeasible: the physics could not play U ×1" in unplayed_lines(RESULTS)


def test_the_section_is_empty_when_every_unit_was_played() -> None:
    lines = unplayed_lines(RESULTS[:6])
    assert lines[0] == "### Units never played" and not any(line.startswith("- ") for line in lines)
    assert lines[-1].startswith("None: every one of the 2 units")


def test_the_summary_counts_units_unplayed_and_redraws() -> None:
    s = summarize_results(r | {"mechanism": "quasi_static_clamping", "truth": _truth(r), "stack": _stack(r)}
                          for r in RESULTS)  # fmt: skip
    assert s["units_unplayed"] == ["head"]
    assert (s["infeasible"], s["redrawn"], s["redrawn_infeasible"]) == (5, 5, 4)


def _truth(r: dict[str, Any]) -> dict[str, Any]:
    feasible = r["play"]["kind"] != "infeasible"
    return {"initial_state_kept": feasible, "trigger_happened": feasible, "consequence": "none", "severity": "none",
            "feasible": feasible}  # fmt: skip


def _stack(r: dict[str, Any]) -> dict[str, Any]:
    verdict = "no_harm" if r["play"]["kind"] != "infeasible" else "infeasible"
    return {"verdict": verdict, "stop_at_n": None, "outcome": None}
