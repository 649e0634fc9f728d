"""What every suite audit shares: which suite a bag is, the first difference, the recorded
context (never today's config), and the verdict table."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from alpha_matrix.core.bag import SplitBagWriter
from alpha_matrix.core.suites.audit_common import (
    SuiteAudit,
    bag_suite,
    first_difference,
    format_suite_table,
    request_context,
)
from alpha_matrix.core.suites.context import ProximityContext, context_json


def test_bag_suite_and_first_difference(tmp_path: Path) -> None:
    assert bag_suite(tmp_path / "missing") is None
    SplitBagWriter(tmp_path / "m", {"/clock": "rosgraph_msgs/msg/Clock"}).close()
    assert bag_suite(tmp_path / "m") is None  # nothing written: no metadata, the matrix audit reports it
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a.1.b: recorded 2, replay 3"
    assert first_difference({"a": [1]}, {"a": [1, 2]}) == "a: 1 recorded, 2 replayed"
    assert first_difference({"a": 1}, {"a": 1}) is None


def test_the_context_comes_from_the_request_or_is_a_problem() -> None:
    ctx = context_json(ProximityContext(reaction_latency_steps=48))
    got, where, problem = request_context("proximity", SimpleNamespace(context_json=ctx), needs=None)
    assert got is not None and got.model_dump() == ProximityContext(reaction_latency_steps=48).model_dump()
    assert where == "from the bag: sim_bridge L=48, guards on"
    assert problem is None
    # Another suite's context, or none where the audit needs one: a problem line, no default.
    _, _, problem = request_context("alerts", SimpleNamespace(context_json=ctx), needs="alert_guard policy file and L")
    assert problem == "suite/request: context_json is for suite 'proximity', not 'alerts'"
    none, where, problem = request_context("alerts", SimpleNamespace(context_json=""), needs="x")
    assert none is None and where == "" and problem is not None and "today's config" in problem
    assert request_context("proximity", SimpleNamespace(context_json=""), needs=None) == (None, "", None)
    assert request_context("alerts", None, needs="x") == (None, "", None)  # no request: reported by the audit


def test_the_table_names_the_unit_the_context_and_every_problem() -> None:
    audits = [SuiteAudit("alerts-a", 3, 2, 2, (), 0, "from the bag: L"), SuiteAudit("alerts-b", 1, 1, 0, ("p", "q"))]
    table = format_suite_table("alerts", audits)
    assert "decisions rec/replay" in table.splitlines()[0]
    assert "MISMATCH: p; q" in table and "context from the bag: L (1 episode)" in table
    assert "estimates rec/replay" in format_suite_table("proximity", [])
