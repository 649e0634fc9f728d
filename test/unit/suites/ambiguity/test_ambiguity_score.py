"""Scores per category from episode results, the report's lines, the result's agent part."""

from __future__ import annotations

import re
from types import SimpleNamespace

from alpha_matrix.core.suites.ambiguity.episode import run_episode
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent
from alpha_matrix.core.suites.ambiguity.suite import progress_line, report_lines, result_of, summarize_results


def _r(category: str, ambiguous: bool, asked: bool, asked_first: bool, achieved: bool) -> dict:
    right = achieved and (asked_first if ambiguous else not asked)
    return {"category": category, "ambiguous": ambiguous, "asked": asked, "asked_first": asked_first,
            "achieved": achieved, "right": right, "invalid": 0, "messages": 0, "aborts": 0, "budget_spent": False}  # fmt: skip


def test_counts_per_category() -> None:
    results = [
        _r("omitted_goal", True, True, True, True),  # asked, then did it
        _r("omitted_goal", True, True, False, False),  # asked too late
        _r("omitted_goal", True, False, False, True),  # lucky guess: success, no clarification
        _r("omitted_goal", False, True, True, True),  # over-asked
        _r("vague_quantity", False, False, False, False),  # clear, failed
    ]
    s = summarize_results(results)
    g = s["categories"]["omitted_goal"]
    assert (g["ambiguous"], g["asked_first"], g["succeeded_after_asking"], g["ambiguous_achieved"]) == (3, 1, 1, 2)
    assert (g["clear"], g["clear_achieved"], g["over_asked"], g["right"]) == (1, 1, 1, 1)
    v = s["categories"]["vague_quantity"]
    assert (v["clear"], v["clear_achieved"], v["right"]) == (1, 0, 0)
    assert s["overall"]["items"] == 5 and s["overall"]["right"] == 1


def test_report_lines_give_wilson_intervals_per_category(shipped) -> None:
    items = [
        it for it in shipped.items if it.category in ("omitted_goal", "unspecified_slot") and it.family == "templates"
    ]
    results = [result_of(it, run_episode(it, ResolverAgent()), "reference") for it in items]
    records = [SimpleNamespace(ok=True, result=r) for r in results]
    text = "\n".join(report_lines(records, summarize_results(results)))
    assert "agent `reference`" in text
    row = next(line for line in text.splitlines() if line.startswith("| omitted_goal |"))
    assert re.search(r"21/21 = 100\.0 % \(\d+\.\d – 100\.0 %\)", row)
    assert "| clarification rate (ambiguous, asked before acting) | 41/41 = 100.0 %" in text


def test_result_pairs_per_episode(shipped) -> None:
    it = next(i for i in shipped.items if i.ambiguous)
    res = result_of(it, run_episode(it, ResolverAgent("always_execute")), "always_execute")
    a = res["agent"]
    assert a["pairing"] == "episode" and a["episode_right"] is False and a["rows"][0][-1] == "wrong"
    assert progress_line(res).endswith("did not ask, task " + ("done" if res["achieved"] else "not done"))


def test_offline_backend_names() -> None:
    import pytest

    from alpha_matrix.core.errors import ConfigError
    from alpha_matrix.core.suites.ambiguity.suite import offline_backend

    backend, prompt = offline_backend("always_ask")
    assert backend.name == "always_ask" and prompt is None
    assert offline_backend("always:task_done")[0].name == "always"
    with pytest.raises(ConfigError, match="offline runs take"):
        offline_backend("replay:some_run")
    with pytest.raises(ConfigError):
        offline_backend("bogus")
