"""Blocks back from the Markdown the reports write, so a report written as lines gets its HTML page.

The suite reports and the comparison are written as Markdown lines; parsing them into the blocks
of ``blocks.py`` gives them the same HTML rendering as the matrix report instead of a second
renderer. Only what ``render_markdown`` writes is understood: headings, paragraphs (consecutive
lines), ``- `` bullets, pipe tables (``\\|`` inside a cell) and an image alone in its paragraph.
``parse_markdown(render_markdown(blocks)) == blocks`` (tested).
"""

from __future__ import annotations

import re

from alpha_matrix.core.pages.blocks import Block, Bullets, Heading, Image, Para, Table

_HEADING = re.compile(r"(#{1,6}) (.*)")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_SEPARATOR = re.compile(r"\|(\s*:?-+:?\s*\|)+")


def _cells(line: str) -> tuple[str, ...]:
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return tuple(c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner))


def _block(lines: list[str]) -> list[Block]:
    """The blocks of one paragraph (lines between blank lines)."""
    first = lines[0]
    if len(lines) == 1 and (m := _HEADING.fullmatch(first)):
        return [Heading(len(m.group(1)), m.group(2))]
    if len(lines) == 1 and (m := _IMAGE.fullmatch(first.strip())):
        return [Image(m.group(1), m.group(2))]
    if all(line.startswith("- ") for line in lines):
        return [Bullets(tuple(line[2:] for line in lines))]
    if len(lines) >= 2 and all(line.startswith("|") for line in lines) and _SEPARATOR.fullmatch(lines[1].strip()):
        return [Table(_cells(first), tuple(_cells(line) for line in lines[2:]))]
    if _HEADING.fullmatch(first):  # a heading directly followed by text: two blocks
        return _block([first]) + _block(lines[1:])
    return [Para(" ".join(line.strip() for line in lines))]


def parse_markdown(text: str) -> list[Block]:
    blocks: list[Block] = []
    para: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip():
            para.append(line)
        elif para:
            blocks += _block(para)
            para = []
    return blocks


__all__ = ["parse_markdown"]
