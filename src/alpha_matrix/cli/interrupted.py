"""Ctrl-C at any moment of `run` or `suite`: one line saying how far the run got, exit 130.

A command that has resolved its run marks it (``expect_interrupt``: the run directory and the
episode ids it was asked for); whenever it ends with 130 from then on (the graph stopped by the
launcher, or a KeyboardInterrupt while probing the domain, starting, or writing the report), the
command line's ``main`` prints ``interrupted at k/n: run the same command to resume``: k of the n
requested episodes (or scenarios) are recorded, and the same command runs the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class _Run:
    run_dir: Path
    planned: Callable[[], Iterable[str]]


_current: list[_Run] = []  # the run this command works on (the last one marked: a study's current run)


def expect_interrupt(run_dir: Path, planned: Callable[[], Iterable[str]]) -> None:
    """From here on a Ctrl-C reports the run in ``run_dir`` (``planned``: its requested ids)."""
    _current[:] = [_Run(run_dir, planned)]


def forget() -> None:
    """No run marked (a new command)."""
    _current.clear()


def interrupted_line() -> str | None:
    """``interrupted at k/n: run the same command to resume`` for the marked run, else None."""
    if not _current:
        return None
    run = _current[0]
    planned = list(dict.fromkeys(run.planned()))
    from alpha_matrix.core.run_plan import recorded_ids  # complete record lines only

    done = len(recorded_ids(run.run_dir) & set(planned))
    return f"interrupted at {done}/{len(planned)}: run the same command to resume"
