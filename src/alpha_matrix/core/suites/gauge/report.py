"""The gauge suite's summary, report body and progress line, from the records alone."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from alpha_matrix.core.pages.reading import Headline, Rate, Term
from alpha_matrix.core.suites.gauge.metrics import (
    ANCHORS,
    TOLERANCE,
    Score,
    Scored,
    acceptance_text,
    by_degradation,
    meets_acceptance,
    score,
)
from alpha_matrix.core.suites.records import SuiteRecord
from alpha_matrix.core.suites.report import listed, what_next
from alpha_matrix.core.suites.suite import Reading


def scored(result: dict[str, Any], who: str = "reader") -> Scored:
    truth = math.nan if result["truth"] is None else result["truth"]  # stated unreadable: no truth needed
    return Scored(result["degradation"], result["readable"], truth, result["span"], result[who]["value"])


def is_scored(result: dict[str, Any]) -> bool:
    """A truth to score against: a value, or a user's image stated unreadable."""
    return result.get("truth") is not None or bool(result.get("stated_unreadable"))


def counts(rows: Iterable[Scored]) -> dict[str, int]:
    """The k and n behind the rates: readable items read right, unreadable items given a value."""
    rows = list(rows)
    return {
        "readable": sum(r.readable for r in rows),
        "accurate": sum(r.accurate for r in rows),
        "unreadable": sum(not r.readable for r in rows),
        "hallucinated": sum(r.hallucinated for r in rows),
    }


def scored_only(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results with a truth (a user's image without one is listed, never scored)."""
    return [r for r in results if is_scored(r)]


def summarize_gauge(results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    everything = list(results)
    res = scored_only(everything)
    rows = [scored(r) for r in res]
    total = score(rows)
    ms = [1e3 * r["reader"]["latency_s"] for r in everything]
    agents: dict[str, list[Scored]] = {}
    for r in res:
        if r.get("agent"):
            agents.setdefault(r["agent"]["spec"], []).append(scored(r, "agent"))
    return {
        "agents": {k: score(v).as_dict() for k, v in sorted(agents.items())},
        "agent_counts": {k: counts(v) for k, v in sorted(agents.items())},
        "reader": total.as_dict(),
        "reader_counts": counts(rows),
        "reader_by_degradation": {k: v.as_dict() for k, v in by_degradation(rows).items()},
        "reader_ms_mean": round(math.fsum(ms) / len(ms), 2) if ms else None,
        "acceptance_met": meets_acceptance(total) if res else False,
        "unscored": len(everything) - len(res),
    }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def _row(name: str, s: Score) -> str:
    mae = "n/a" if s.mae_pct is None else f"{s.mae_pct:.2f} %"
    return (
        f"| {name} | {s.readable} | {_pct(s.accuracy)} | {_pct(s.false_abstention)} | {s.unreadable} | "
        f"{_pct(s.hallucination)} | {_pct(s.abstention)} | {mae} |"
    )


def report_lines(records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
    every = [r.result for r in records if r.ok]
    done = scored_only(every)
    rows = [scored(r) for r in done]
    total = score(rows)
    lines = [
        "## Gauge reading under visual uncertainty: read or abstain",
        "",
        f"What was measured: the reader (gauge_reader: the classical reader with the face's layout, the dial "
        f"reader for a styled face or a user's image) on {len(done)} gauge images "
        f"({total.readable} readable, {total.unreadable} unreadable by the stated rule: indicator end and "
        f">= 2 labelled ticks seen with enough contrast, 2 % of span >= 1 px). *Accuracy*: readable items read within "
        f"{100 * TOLERANCE:.0f} % of the span; *hallucination*: a value reported for an unreadable item; "
        "*MAE*: over the values reported for readable items, in % of span.",
        "",
        f"Acceptance ({acceptance_text()}): "
        f"**{'met' if summary.get('acceptance_met') else 'NOT met'}**; reader time "
        f"{summary.get('reader_ms_mean')} ms per image (mean).",
        "",
        f"Anchors: {ANCHORS}.",
        "",
        "| who / degradation | readable | accuracy | false abstention | unreadable | hallucination | abstention | MAE |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        _row("**reader, all**", total),
        *(_row(k, v) for k, v in by_degradation(rows).items()),
    ]
    styles = sorted({style_of(r) for r in done})
    if len(styles) > 1:  # per face (style): which reader read it, and how it fared
        lines += ["", "Per face (style):", "",
                  "| face | readable | accuracy | false abstention | unreadable | hallucination | abstention | MAE |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        lines += [_row(f"{f} ({_reader_of(f)})", score(scored(r) for r in done if style_of(r) == f)) for f in styles]
    agents: dict[str, list[dict[str, Any]]] = {}
    for r in done:
        if r.get("agent"):
            agents.setdefault(r["agent"]["spec"], []).append(r)
    for spec, res in sorted(agents.items()):
        rows_a = [scored(r, "agent") for r in res]
        used = sum(r["agent"]["used_reader"] for r in res)
        bad = sum(r["agent"]["invalid"] + r["agent"]["messages"] for r in res)
        lines += [
            _row(f"**agent {spec}, all**", score(rows_a)),
            *(_row(f"agent {spec}: {k}", v) for k, v in by_degradation(rows_a).items()),
        ]
        notes = f"Agent {spec}: called read_gauge on {used} of {len(res)} items; {bad} invalid answer(s) or message(s)."
        lines += ["", notes, ""] if lines[-1] != "" else [notes]
    if not agents:
        lines += ["", "Agents: none in this run (`alpha-matrix suite gauge --agent SPEC` adds one)."]
    listed_only = [r for r in every if not is_scored(r)]
    if listed_only:
        lines += ["", f"Readings without a stated value (listed, not scored): {len(listed_only)}.", "",
                  "| image | reader |", "|---|---|"]  # fmt: skip
        lines += [f"| {r['item'].get('file', r['face'])} | {_said_plain(r)} |" for r in listed_only]
    missing = [r for r in records if not r.ok]
    if missing:
        lines += ["", f"Not run: {len(missing)} ({', '.join(r.scenario for r in missing[:5])})."]
    return lines


def style_of(result: dict[str, Any]) -> str:
    """The result's style: its face, or for a user's image the face file's ``style`` label."""
    if "file" in result["item"]:
        return f"user: {result['style']}" if result.get("style") else "user images"
    return str(result["face"])


def _reader_of(face: str) -> str:
    """Which reader the suite gives a face: the dial reader for a styled face or a user's image."""
    from alpha_matrix.core.suites.gauge.faces import FACES  # OpenCV: only when a report is written

    known = FACES.get(face)  # a user's style is no face of the suite
    return "dial reader" if known is None or known.reader == "dial" else "classical reader"


# ----------------------------------------------------------------------------- opening and glossary
def headline(summary: dict[str, Any]) -> Headline:
    """Right: a readable gauge read within 2 % of its span. Harm: a value reported for a gauge that
    cannot be read (a hallucination: a made-up reading acted on). The agent's, when one answered."""
    reader = summary["reader_counts"]
    agents = summary.get("agent_counts") or {}
    if agents:
        spec, c = next(iter(agents.items()))
        more = f" ({len(agents) - 1} more agents in the table)" if len(agents) > 1 else ""
        return Headline(
            Rate(f"readable gauges agent `{spec}` read within {100 * TOLERANCE:.0f} % of the span{more}",
                 c["accurate"], c["readable"]),
            f"{c['hallucinated']} of {c['unreadable']} unreadable gauges given a value by the agent "
            f"(hallucinations), {reader['hallucinated']} by the classical reader",
        )  # fmt: skip
    return Headline(
        Rate(f"readable gauges read within {100 * TOLERANCE:.0f} % of the span", reader["accurate"],
             reader["readable"]),
        f"{reader['hallucinated']} of {reader['unreadable']} unreadable gauges given a value anyway "
        "(hallucinations)",
    )  # fmt: skip


def reading(records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
    done = scored_only(r.result for r in records if r.ok)
    specs = sorted({r["agent"]["spec"] for r in done if r.get("agent")})
    who = f"; agent {listed([f'`{a}`' for a in specs])} answers too" if specs else ""
    c = summary["reader_counts"]
    tested = (
        f"{len(done)} gauge images{_source(done)} ({c['readable']} readable, {c['unreadable']} unreadable by the "
        f"stated rule) read by the suite's reader, which must abstain when a gauge cannot be read{who}"
    )
    hallucinated = [r for r in records if r.ok and r.result["reader"]["hallucinated"]]
    by_agent = [r for r in records if r.ok and (r.result.get("agent") or {}).get("hallucinated")]
    rows = by_degradation([scored(r) for r in done])
    worst = min(rows.items(), key=lambda kv: kv[1].accuracy if kv[1].accuracy is not None else 2.0, default=None)
    names = [r.scenario for r in by_agent or hallucinated]
    degradation, accuracy = (worst[0], worst[1].accuracy) if worst else ("", None)
    looks = [
        (names, f"the hallucinated readings ({listed(names)}): a value given for a gauge that cannot be read"),
        (accuracy is not None and accuracy < 1.0,
         f"the degradation read worst, {degradation} (accuracy {_pct(accuracy)}), and its example plot"),
    ]  # fmt: skip
    otherwise = "the example plots: a readable and an unreadable gauge per degradation, with the reader's answer"
    return Reading(tested, what_next(records, looks, otherwise), TERMS)


TERMS: tuple[Term, ...] = (
    ("who / degradation", "who answered (the classical reader, or an agent), all items or one degradation: how "
     "the image was made hard to read (dim, glare, occlusion, fogged glass, motion blur, ...)"),
    ("readable", "items readable by the stated rule: the indicator's end and >= 2 labelled ticks seen with enough "
     "contrast, and 2 % of the span at least 1 pixel"),
    ("unreadable", "items not readable by that rule: the right answer is to abstain"),
    ("accuracy", f"readable items read within {100 * TOLERANCE:.0f} % of the span"),
    ("false abstention", "readable items abstained on"),
    ("hallucination", "unreadable items given a value anyway (whether or not it happens to be close)"),
    ("abstention", "unreadable items abstained on (1 - hallucination)"),
    ("MAE", "mean absolute error of the values reported for readable items, in % of the span"),
    ("Acceptance", f"{acceptance_text()}, the reader alone, on a whole set (the benchmark holds each degradation "
     "and style to it too)"),
    ("Anchors", "published results on other sets, for orientation: not comparable item for item"),
)  # fmt: skip


def _source(done: Sequence[dict[str, Any]]) -> str:
    """Where the images came from: rendered by the suite, the user's folder, or both."""
    users = sum(1 for d in done if "file" in d["item"])
    if users == 0:
        return " rendered by the suite"
    return " from the user's folder" if users == len(done) else f" ({users} from the user's folder)"


def _said_plain(d: dict[str, Any]) -> str:
    r = d["reader"]
    return f"{r['value']:.4g} {d['unit']}" if r["value"] is not None else f"abstained ({r['reason']})"


def _said(d: dict[str, Any], r: dict[str, Any]) -> str:
    if not is_scored(d):
        return _said_plain({**d, "reader": r})
    said = f"read {r['value']:.4g} {d['unit']}" if r["value"] is not None else f"abstained ({r['reason']})"
    return f"{said}: {_verdict(d['readable'], r)}"


def _verdict(readable: bool, r: dict[str, Any]) -> str:
    """ok, or which way it failed: a value off (WRONG), a readable gauge abstained on (missed),
    a value for an unreadable one (HALLUCINATION)."""
    if readable:
        return "ok" if r["accurate"] else ("missed (false abstention)" if r["value"] is None else "WRONG")
    return "HALLUCINATION" if r["hallucinated"] else "ok"


def progress_line(d: dict[str, Any]) -> str:
    line = (
        f"{d['face']} {d['degradation']} {'readable' if d['readable'] else 'unreadable'}: "
        f"truth {'n/a' if d['truth'] is None else format(d['truth'], '.4g')}, reader {_said(d, d['reader'])}"
    )
    return line + (f"; agent {_said(d, d['agent'])}" if d.get("agent") else "")


# ----------------------------------------------------------------------------- paired comparison
def scenario_verdict(result: dict[str, Any], a: dict[str, Any]) -> bool | None:
    """One gauge item: a readable one read accurately, an unreadable one abstained on."""
    if a.get("value") is None and int(a.get("aborts", 0)) > 0:
        return None
    return bool(a.get("accurate")) if result.get("readable") else a.get("value") is None
