"""What every report opens and ends with: the lines that say what was found, and the glossary.

A report opens, under its title, with four plain lines: what was tested, the headline rate (k/n
and its 95 % Wilson interval), the safety events, and what to look at next. It ends with a
glossary of the terms and columns it uses, each defined in a line: only the terms the report
uses are listed, so the glossary stays short. The matrix report and every suite report (and the
``suite`` command's last line, through ``Headline``) are written through here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from alpha_matrix.core.matrix.stats import wilson

GLOSSARY = "Glossary"
GLOSSARY_HEADER = ("term", "meaning")
# Column names used in their everyday sense, which the glossary does not define.
PLAIN_COLUMNS = frozenset({"n", "metric", "value", "seed", "scenario", "run", "task", "model", "backend"})


@dataclass(frozen=True)
class Rate:
    """k of n, what is counted named: read with its sample size and interval, never alone."""

    label: str
    k: int
    n: int

    def text(self) -> str:
        """``label: k/n = x % (95 % Wilson interval lo–hi %)``; n = 0 says there was nothing to count."""
        if not self.n:
            return f"{self.label}: 0/0, nothing to count"
        lo, hi = wilson(self.k, self.n)
        return (
            f"{self.label}: {self.k}/{self.n} = {100.0 * self.k / self.n:.1f} % "
            f"(95 % Wilson interval {100.0 * lo:.1f}–{100.0 * hi:.1f} %)"
        )


@dataclass(frozen=True)
class Headline:
    """A run's result in one line: the rate that says how often it went right, and what went wrong
    in a way that matters for safety. Each kind of run defines its own, once."""

    rate: Rate
    safety: str  # e.g. "0 harms (an unsafe decision that reached the robot), 2 guard catches"

    def line(self) -> str:
        return f"{self.rate.text()}; {self.safety}"


@dataclass(frozen=True)
class Opening:
    """The report's first lines: 4 or 5 (one or two results)."""

    tested: str
    results: tuple[str, ...]  # the headline rate(s), each with its k/n and interval
    safety: str
    next: str

    @classmethod
    def of(cls, tested: str, headline: Headline, next_: str) -> Opening:
        return cls(tested, (headline.rate.text(),), headline.safety, next_)

    def lines(self) -> list[str]:
        results = [f"Result: {r}" for r in self.results]
        return [f"Tested: {self.tested}", *results, f"Safety: {self.safety}", f"Look next at: {self.next}"]


Term = tuple[str, str]  # (term as the report writes it, its definition in one line)


def count(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 pair``, ``2 pairs``: a count with its noun in the right number."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def _key(term: str) -> str:
    """A term or column name without its trailing qualifier: "stop latency (s)" -> "stop latency"."""
    return re.sub(r"\s+\([^()]*\)$", "", term.strip()).strip()


def uses(text: str, term: str) -> bool:
    """Whether ``text`` uses ``term`` (its name without a trailing qualifier, as a whole word)."""
    return re.search(rf"(?<![\w]){_names(term).pattern}(?![\w])", text) is not None


def used_terms(terms: Iterable[Term], text: str) -> list[Term]:
    """The terms ``text`` uses, in the given order, each once (the first definition of a name wins)."""
    seen: set[str] = set()
    out = []
    for term, meaning in terms:
        if _key(term) not in seen and uses(text, term):
            seen.add(_key(term))
            out.append((term, meaning))
    return out


def _names(term: str) -> re.Pattern[str]:
    """What a term names: itself, or a family where it holds ``<...>`` ("kind <k>": kind truncate, ...)."""
    parts = re.split(r"<[^<>]+>", _key(term))
    return re.compile(r"[\w.+-]+".join(re.escape(p) for p in parts))


def defined(column: str, terms: Sequence[Term]) -> bool:
    """A table column is defined when a glossary term names it (qualifiers aside) or it is plain."""
    key = _key(column).strip("*` ")
    return key in PLAIN_COLUMNS or any(_names(t).fullmatch(key) for t, _ in terms)


def markdown_glossary(terms: Sequence[Term]) -> list[str]:
    """The glossary as Markdown lines (a heading and a two-column table)."""
    if not terms:
        return []

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["## " + GLOSSARY, "", f"| {GLOSSARY_HEADER[0]} | {GLOSSARY_HEADER[1]} |", "|---|---|"]
    return lines + [f"| {cell(t)} | {cell(m)} |" for t, m in terms]


__all__ = [
    "GLOSSARY",
    "GLOSSARY_HEADER",
    "PLAIN_COLUMNS",
    "Headline",
    "Opening",
    "Rate",
    "Term",
    "count",
    "defined",
    "markdown_glossary",
    "used_terms",
    "uses",
]
