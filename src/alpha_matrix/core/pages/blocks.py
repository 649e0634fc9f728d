"""Report content as blocks, rendered the same way to Markdown and to HTML.

Every report page of the project (the matrix report, the suite reports, a comparison) is written
through here, so a report reads the same in a Markdown viewer and in a browser.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

NO_DATA = "no data"
PLOTS = "plots"


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Image:
    alt: str
    path: str  # relative to the run directory


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


Block = Heading | Para | Table | Image | Bullets


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    return Table(tuple(header), tuple(tuple(r) for r in rows))


def render_markdown(blocks: Sequence[Block]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    out: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {b.text}")
        elif isinstance(b, Para):
            out.append(b.text)
        elif isinstance(b, Bullets):
            out.append("\n".join(f"- {item}" for item in b.items))
        elif isinstance(b, Table):
            lines = ["| " + " | ".join(cell(h) for h in b.header) + " |", "|" + "---|" * len(b.header)]
            lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in b.rows]
            out.append("\n".join(lines))
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.path})")
    return "\n\n".join(out) + "\n"


_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_LINK = re.compile(r"(?<!!)\[([^\[\]]+)\]\(([^()\s]+)\)")  # [text](relative/path): the board's cells


def _inline(text: str) -> str:
    """Escaped text with the inline marks the reports use: `code`, **bold** and [text](link)."""
    out = _CODE.sub(r"<code>\1</code>", html.escape(text))
    out = _LINK.sub(r'<a href="\2">\1</a>', out)
    return _BOLD.sub(r"<strong>\1</strong>", out)


def render_html(blocks: Sequence[Block], title: str, inline: bool = False) -> str:
    """One self-contained page; ``inline`` renders `code` and **bold** (texts written as Markdown).

    The matrix report's texts are plain (an arm or model name may hold any character), so by
    default every text is only escaped.
    """
    e = _inline if inline else html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.2em .6em;text-align:left}"
        "th{background:#eee}img{max-width:100%}</style>",
        "</head><body>",
    ]
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"<h{b.level}>{e(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            out.append(f"<p>{e(b.text)}</p>")
        elif isinstance(b, Bullets):
            out.append("<ul>" + "".join(f"<li>{e(item)}</li>" for item in b.items) + "</ul>")
        elif isinstance(b, Table):
            head = "".join(f"<th>{e(h)}</th>" for h in b.header)
            body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in b.rows)
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif isinstance(b, Image):
            out.append(f'<p><img src="{html.escape(b.path)}" alt="{html.escape(b.alt)}"></p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file, so a reader never sees half a page."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
