"""What every suite audit shares: which suite a bag is, the first difference, the recorded
context (never today's config), and the verdict table."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from alpha_matrix.core.bag import SplitBagWriter
from alpha_matrix.core.records import provenance
from alpha_matrix.core.suites.audit_common import (
    UNBACKED,
    audit_episodes,
    bag_suite,
    first_difference,
    format_suite_table,
    into,
    not_replayable,
    request_context,
)
from alpha_matrix.core.suites.context import context_json
from alpha_matrix.core.suites.proximity.context import ProximityContext
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore, SuiteTiming
from alpha_matrix.core.suites.suite import SuiteAudit


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


def _ep(ok: bool | None, request: bool = True, interrupted: int = 0) -> SimpleNamespace:
    result = None if ok is None else SimpleNamespace(ok=ok, result_json="{}")
    return SimpleNamespace(request=SimpleNamespace() if request else None, result=result, interrupted=interrupted)


def test_why_an_episode_cannot_be_replayed() -> None:
    assert not_replayable(_ep(True), None) == []
    assert not_replayable(_ep(False), None) == []  # a failed result is replayed as far as it went
    assert not_replayable(_ep(True, request=False), "a context problem") == [
        "no recorded suite/request for this episode"
    ]
    assert not_replayable(_ep(True), "a context problem") == ["a context problem"]
    assert not_replayable(_ep(None), None) == ["no recorded suite/result (run interrupted?)"]


def test_every_episode_is_audited_in_order_and_held_against_the_run_records(tmp_path: Path) -> None:
    eps = {"b": _ep(True, interrupted=1), "a": _ep(True), "c": _ep(None)}
    seen: list[str] = []

    def audit_one(ep_id: str, ep: SimpleNamespace) -> SuiteAudit:
        seen.append(ep_id)
        problems = not_replayable(ep, None)
        return SuiteAudit(ep_id, 1, 1, 0 if problems else 1, tuple(problems), ep.interrupted)

    # No run directory: the bag alone.
    got = audit_episodes(eps, None, audit_one)
    assert seen == ["a", "b", "c"] and [a.episode_id for a in got] == ["a", "b", "c"]
    assert [a.ok for a in got] == [True, True, False] and got[1].interrupted_attempts == 1

    # With the run's records: a missing record is a problem of its episode, a record without an
    # episode in the bag an audit of its own.
    store = SuiteStore(tmp_path / "run", "h")
    for eid in ("a", "z"):
        store.append(
            SuiteRecord(suite="gauge", run_id="run", episode_id=eid, index=0, scenario=eid, seed=1, ok=True,
                        message="", result={}, provenance=provenance("h"),
                        timing=SuiteTiming(started_at="now", wall_s=0.1))
        )  # fmt: skip
    got = audit_episodes(eps, tmp_path / "run", audit_one)
    by_id = {a.episode_id: a for a in got}
    assert list(by_id) == ["a", "b", "c", "z"]
    assert by_id["a"].ok
    assert by_id["b"].problems == (f"no JSONL record in {tmp_path / 'run'}",) and by_id["b"].replayed == 1
    assert by_id["c"].problems == (
        "no recorded suite/result (run interrupted?)",
        f"no JSONL record in {tmp_path / 'run'}",
    )
    assert by_id["z"].problems == (UNBACKED,)


def test_into_appends_keys_by_decision_or_sets_the_last() -> None:
    @dataclasses.dataclass
    class Ep:
        request: Any = None
        alerts: list[Any] = dataclasses.field(default_factory=list)
        decisions: dict[int, Any] = dataclasses.field(default_factory=dict)

    ep = Ep()
    msg = SimpleNamespace
    for m in (msg(decision_index=1, v="a"), msg(decision_index=0, v="b"), msg(decision_index=1, v="c")):
        into("decisions")(ep, m)
        into("alerts", lambda m: None if m.v == "b" else m.v)(ep, m)  # a conversion's None drops one
        into("request")(ep, m)
    assert [ep.decisions[i].v for i in sorted(ep.decisions)] == ["b", "c"]  # by index, a repeat replaces
    assert ep.alerts == ["a", "c"] and ep.request.v == "c"
