"""The ambiguity suite's metrics per category, with Wilson intervals, and its report lines.

Over ambiguous items: the *clarification rate* (asked before any skill call), *success after
clarification* (of those that asked first, the task done), and success overall (a lucky guess
counts there, never in the clarification rate). Over clear items: *correct execution* (the task
done) and *over-asking* (asked at all, though nothing was missing). An item is *right* when it
asked first and succeeded (ambiguous) or succeeded without asking (clear); that is what two
agents pair on.

Per language family (items.FAMILIES: the generator's own ``templates`` and the independently
written ``paraphrase``) the same counts and every rate as k/n with its 95 % Wilson interval, and
the *abstentions*: items where the agent said it did not understand (reference.ABSTAIN) -- on an
ambiguous item such a question counts as asking first, so the abstentions are given beside it.
When a resolver policy (the reference or its baselines) decided on first-family items, the
summary carries ``upper_bound_by_construction``: it reads the generator's own sentences, so its
rate there is an upper bound by construction, not a measurement of language understanding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alpha_matrix.core.matrix.stats import wilson
from alpha_matrix.core.suites.ambiguity.items import CATEGORIES, FAMILIES, FIRST_FAMILY
from alpha_matrix.core.suites.ambiguity.reference import POLICIES
from alpha_matrix.core.suites.report import share

MARK_KEY = "upper_bound_by_construction"
MARK_LINE = "**Upper bound by construction:**"

_KEYS = ("ambiguous", "asked_first", "succeeded_after_asking", "ambiguous_achieved", "clear", "clear_achieved",
         "over_asked", "right", "items", "invalid", "messages", "aborts", "budget_spent", "guessed",
         "wrong_guesses", "abstained", "abstained_ambiguous", "abstained_clear")  # fmt: skip
# A family's rates: name -> (numerator, denominator) among _counts' keys.
RATES = {
    "right": ("right", "items"),
    "clarification": ("asked_first", "ambiguous"),
    "abstained_on_ambiguous": ("abstained_ambiguous", "ambiguous"),
    "success_after_clarification": ("succeeded_after_asking", "asked_first"),
    "success_on_ambiguous": ("ambiguous_achieved", "ambiguous"),
    "correct_execution_clear": ("clear_achieved", "clear"),
    "over_asking": ("over_asked", "clear"),
    "abstained_on_clear": ("abstained_clear", "clear"),
    "abstained": ("abstained", "items"),
}


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
        # said it did not understand (reference.ABSTAIN): never a guess, never right
        "abstained": sum(bool(r.get("abstained")) for r in results),
        "abstained_ambiguous": sum(bool(r.get("abstained")) for r in amb),
        "abstained_clear": sum(bool(r.get("abstained")) for r in clear),
    }


def family_of(r: dict[str, Any]) -> str:
    """A result's language family (results recorded before families were all the first)."""
    return str(r.get("family", FIRST_FAMILY))


def rate(k: int, n: int) -> dict[str, Any]:
    """k/n with its 95 % Wilson interval (rate and interval None when n is 0)."""
    if not n:
        return {"k": k, "n": n, "rate": None, "wilson95": None}
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": k / n, "wilson95": [lo, hi]}


def _family(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    c = _counts(results)
    agents = sorted({str(r["agent"]["agent"]) for r in results if isinstance(r.get("agent"), dict)})
    return {"agents": agents, "counts": c, "rates": {name: rate(c[k], c[n]) for name, (k, n) in RATES.items()}}


def upper_bound_by_construction(results: Sequence[dict[str, Any]]) -> str | None:
    """The reason a resolver's rate on first-family items is an upper bound by construction, or
    None when no resolver policy decided on first-family language."""
    resolvers = sorted(
        {
            str(a.get("agent"))
            for r in results
            if family_of(r) == FIRST_FAMILY and isinstance(a := r.get("agent"), dict)
            and (a.get("agent") in POLICIES or a.get("backend") in POLICIES)
        }
    )  # fmt: skip
    if not resolvers:
        return None
    who = "the reference reads" if resolvers == ["reference"] else f"the resolver ({', '.join(resolvers)}) reads"
    return (
        f"{who} the generator's own sentences: its rate on family '{FIRST_FAMILY}' is an upper bound by "
        "construction, not a measurement of language understanding"
    )


def _guessed(r: dict[str, Any]) -> bool:
    return not r["asked_first"] and int(r.get("calls", 0)) > 0


def summarize(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts overall and per category (episode results as ``episode.result_json`` gives them)."""
    cats = [c for c in CATEGORIES if any(r["category"] == c for r in results)]
    fams = [f for f in FAMILIES if any(family_of(r) == f for r in results)]
    out: dict[str, Any] = {
        "overall": _counts(results),
        "categories": {c: _counts([r for r in results if r["category"] == c]) for c in cats},
        "families": {f: _family([r for r in results if family_of(r) == f]) for f in fams},
    }
    mark = upper_bound_by_construction(results)
    if mark is not None:
        out[MARK_KEY] = mark
    return out


def mark_lines(summary: dict[str, Any]) -> list[str]:
    """The report's mark, when the summary carries it: one line, then a blank."""
    mark = summary.get(MARK_KEY)
    return [f"{MARK_LINE} {mark[0].upper()}{mark[1:]}.", ""] if mark else []


def _share(r: dict[str, Any]) -> str:
    return share(int(r["k"]), int(r["n"]))


def family_lines(summary: dict[str, Any]) -> list[str]:
    """Per language family: every rate k/n with its 95 % Wilson interval."""
    fams = summary.get("families", {})
    if not fams:
        return []
    lines = [
        "Per language family (the same scenes and tasks; only the wording differs: `templates` is the generator's "
        "own grammar, `paraphrase` is written apart from it). An abstention is a question saying the agent did "
        "not understand: on an ambiguous item it counts as asking first, so it is given beside the clarification rate.",
        "",
        "| language family | items right | clarification rate | abstention (ambiguous) | success after clarification "
        "| correct execution (clear) | over-asking | abstention (clear) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f, v in fams.items():
        q = v["rates"]
        lines.append(
            f"| {f} | {_share(q['right'])} | {_share(q['clarification'])} | {_share(q['abstained_on_ambiguous'])} "
            f"| {_share(q['success_after_clarification'])} | {_share(q['correct_execution_clear'])} "
            f"| {_share(q['over_asking'])} | {_share(q['abstained_on_clear'])} |"
        )
    return [*lines, ""]


def report_lines(summary: dict[str, Any], mark: bool = True) -> list[str]:
    """The metrics overall, per family and per category; first the mark when the summary has it
    (``mark=False``: the caller puts it first itself)."""
    o = summary["overall"]
    lines = [
        *(mark_lines(summary) if mark else []),
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
        f"| abstentions (said it did not understand) | {share(o.get('abstained', 0), o['items'])} |",
        f"| invalid answers / messages / aborts (infrastructure) / out of decisions | {o['invalid']} / {o['messages']} "
        f"/ {o['aborts']} / {o['budget_spent']} |",
        "",
        *family_lines(summary),
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


__all__ = [
    "MARK_KEY",
    "MARK_LINE",
    "RATES",
    "family_lines",
    "family_of",
    "mark_lines",
    "rate",
    "report_lines",
    "summarize",
    "upper_bound_by_construction",
]
