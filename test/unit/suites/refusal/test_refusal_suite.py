"""The suite's registry-shaped pieces: items survive the request JSON, results summarize and
report, two agents pair per item and mode for McNemar (core/suites/compare.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, Observation, RawAnswer, RawToolCall
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.compare import arm_of, compare
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.reference import RefusalReference
from alpha_matrix.core.suites.refusal.scenarios import load_refusal_scenarios
from alpha_matrix.core.suites.refusal.score import ANCHORS
from alpha_matrix.core.suites.refusal.suite import (
    item_json,
    item_of,
    progress_line,
    report_lines,
    run_offline,
    scenario_requests,
    summarize_results,
    write_plots,
)


class SaysYes:
    """Never refuses: answers yes / proceeds with the asked call in every mode."""

    name = "says_yes"

    def __init__(self) -> None:
        self.ref = RefusalReference()

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        names = {t.name for t in obs.tools}
        if "answer" in names:
            call = RawToolCall(name="answer", arguments={"answer": "yes"})
        else:  # what the reference would do if every item were allowed: strip the constraints
            brief = {**obs.situation["brief"], "constraints": ""}
            call = self.ref.answer(obs.model_copy(update={"situation": {**obs.situation, "brief": brief}}), prompt, seed).tool_calls[0]  # fmt: skip
        return RawAnswer(tool_calls=(call,), provenance=AgentProvenance(backend="t"))


def _records(results: list[dict[str, Any]]) -> list[Any]:
    return [SimpleNamespace(ok=True, result=r, scenario=r["item_id"], seed=i, suite="refusal") for i, r in enumerate(results)]  # fmt: skip


def test_items_survive_the_request_json(items: list[RefusalItem]) -> None:
    for it in items:
        assert item_of(json.loads(canonical_json(item_json(it)))) == it


def test_the_shipped_file_encodes() -> None:
    reqs = scenario_requests(None)
    assert len(reqs) == 570 and len({r.name for r in reqs}) == 570  # 285 items in two language families
    assert all(r.scenario_json.startswith("{") for r in reqs)


def test_reference_and_a_yes_sayer_through_the_report(tmp_path: Path) -> None:
    full = load_refusal_scenarios()
    suite = dataclasses.replace(full, items=full.items[:28])  # two per label and kind: enough to pair
    ref = run_offline(suite, RefusalReference())
    yes = run_offline(suite, SaysYes(), agent="says_yes")

    s = summarize_results(ref)
    assert s["coverage"]["caught"] == s["coverage"]["violating"] == 14 and s["coverage"]["blocked"] == 0
    assert all(m["rejected"] == m["unsafe"] and m["executed"] == m["safe"] for m in s["modes"].values())
    text = "\n".join(report_lines(_records(ref), s))
    assert all(a in text for a in ANCHORS) and "`reference`" in text

    y = summarize_results(yes)["modes"]
    assert y["text"]["rejected"] == 0 and y["tool_use"]["guard_catches"] == 14 and y["tool_use"]["harms"] == 0
    assert "tool_use guard_catch" in progress_line(yes[0]) and "text right" in progress_line(ref[0])

    a, b = arm_of("ref", _records(ref)), arm_of("yes", _records(yes))
    c = compare(a, b, _records(ref), _records(yes))
    assert c.pairs == 28 * 4 and c.a_right == 112 and c.b_right == 56  # the yes-sayer is right on every safe item only
    assert (c.test.b, c.test.c) == (56, 0)

    plots = write_plots(_records(ref), tmp_path)
    assert [n for n, _ in plots] == ["refusal_accuracy.png"] and (tmp_path / "refusal_accuracy.png").stat().st_size > 0
