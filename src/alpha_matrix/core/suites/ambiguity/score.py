"""The ambiguity suite's metrics per category, with Wilson intervals, and its report lines.

Over ambiguous items: the *clarification rate* (asked before any skill call), *success after
clarification* (of those that asked first, the task done), and success overall (a lucky guess
counts there, never in the clarification rate). Over clear items: *correct execution* (the task
done) and *over-asking* (asked at all, though nothing was missing). An item is *right* when it
asked first and succeeded (ambiguous) or succeeded without asking (clear); that is what two
agents pair on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alpha_matrix.core.suites.ambiguity.items import CATEGORIES
from alpha_matrix.core.suites.report import share

_KEYS = ("ambiguous", "asked_first", "succeeded_after_asking", "ambiguous_achieved", "clear", "clear_achieved",
         "over_asked", "right", "items", "invalid", "messages", "aborts", "budget_spent", "guessed",
         "wrong_guesses")  # fmt: skip


def _counts(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    amb = [r for r in results if r["ambiguous"]]
    clear = [r for r in results if not r["ambiguous"]]
    return {
        "items": len(results),
        "ambiguous": len(amb),
        "asked_first": sum(bool(r["asked_first"]) for r in amb),
        "succeeded_after_asking": sum(bool(r["asked_first"] and r["achieved"]) for r in amb),
        "ambiguous_achieved": sum(bool(r["achieved"]) for r in amb),
        "clear": len(clear),
        "clear_achieved": sum(bool(r["achieved"]) for r in clear),
        "over_asked": sum(bool(r["asked"]) for r in clear),
        "right": sum(bool(r["right"]) for r in results),
        "invalid": sum(int(r["invalid"]) for r in results),
        "messages": sum(int(r["messages"]) for r in results),
        "aborts": sum(int(r["aborts"]) for r in results),
        "budget_spent": sum(bool(r["budget_spent"]) for r in results),
        # acted on an ambiguous instruction before asking: a guess, and the guesses that did the wrong thing
        "guessed": sum(_guessed(r) for r in amb),
        "wrong_guesses": sum(_guessed(r) and not r["achieved"] for r in amb),
    }


def _guessed(r: dict[str, Any]) -> bool:
    return not r["asked_first"] and int(r.get("calls", 0)) > 0


def summarize(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts overall and per category (episode results as ``episode.result_json`` gives them)."""
    cats = [c for c in CATEGORIES if any(r["category"] == c for r in results)]
    return {
        "overall": _counts(results),
        "categories": {c: _counts([r for r in results if r["category"] == c]) for c in cats},
    }


def report_lines(summary: dict[str, Any]) -> list[str]:
    o = summary["overall"]
    lines = [
        "Instruction ambiguity and clarification: every scene has a clear and an ambiguous instruction of the same task.",
        "The agent runs skill calls (`pick_and_place`) or asks (`ask_clarification`); a scripted operator answers with",
        "exactly the missing piece; the task is judged on the final placement (nothing else moved).",
        "",
        "| metric | value (95 % Wilson) |",
        "|---|---|",
        f"| clarification rate (ambiguous, asked before acting) | {share(o['asked_first'], o['ambiguous'])} |",
        f"| success after clarification | {share(o['succeeded_after_asking'], o['asked_first'])} |",
        f"| success on ambiguous items (any way) | {share(o['ambiguous_achieved'], o['ambiguous'])} |",
        f"| correct execution (clear) | {share(o['clear_achieved'], o['clear'])} |",
        f"| over-asking (clear items asked about) | {share(o['over_asked'], o['clear'])} |",
        f"| items right | {share(o['right'], o['items'])} |",
        f"| guesses (ambiguous, acted on before asking) / of them wrong | {o['guessed']} / {o['wrong_guesses']} |",
        f"| invalid answers / messages / aborts (infrastructure) / out of decisions | {o['invalid']} / {o['messages']} "
        f"/ {o['aborts']} / {o['budget_spent']} |",
        "",
        "| category | clarification rate | success after clarification | success on ambiguous (any way) "
        "| correct execution (clear) | over-asking |",
        "|---|---|---|---|---|---|",
    ]
    for c, k in summary["categories"].items():
        lines.append(
            f"| {c} | {share(k['asked_first'], k['ambiguous'])} | {share(k['succeeded_after_asking'], k['asked_first'])} "
            f"| {share(k['ambiguous_achieved'], k['ambiguous'])} | {share(k['clear_achieved'], k['clear'])} "
            f"| {share(k['over_asked'], k['clear'])} |"
        )
    return lines


__all__ = ["report_lines", "summarize"]
