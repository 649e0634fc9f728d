"""An episode's fault injections put in one canonical order, whatever order they arrived in.

Injections happen on several threads and topics, so their arrival order is not reproducible.
``FaultLog`` keeps an episode's injections and, at report time, gives them their canonical
order (``fault_order_key``) and ``seq`` as ``FaultRecord``s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.records import FaultRecord


class FaultOrderError(AlphaMatrixError):
    """An episode's injections cannot be put in their canonical order (a step never learned, a bad seq)."""


@dataclass(frozen=True)
class Injection:
    """One injection as an injector made it: a ``FaultRecord`` before its place (seq) is known."""

    fault: str
    step: int  # the physics step it acted at (0: before any motion)
    requested: dict[str, float | str]
    delivered: dict[str, float | str]


def _canonical(data: Mapping[str, float | str]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def fault_order_key(f: Injection | FaultRecord) -> tuple[int, str, str, str]:
    """Canonical position in the episode: (step, fault, requested, delivered as canonical JSON).

    Total on content: two injections that tie on it are identical, so their order cannot show.
    """
    return (int(f.step), f.fault, _canonical(f.requested), _canonical(f.delivered))


def canonical_faults(injections: Iterable[Injection | FaultRecord]) -> list[FaultRecord]:
    """The injections in canonical order, numbered ``seq`` = 0..n-1 (any seq they had is replaced)."""
    ordered = sorted(injections, key=fault_order_key)
    return [
        FaultRecord(fault=f.fault, step=int(f.step), seq=i, requested=dict(f.requested), delivered=dict(f.delivered))
        for i, f in enumerate(ordered)
    ]


def checked_fault_order(records: Iterable[FaultRecord]) -> list[FaultRecord]:
    """Records as received (e.g. over a topic), sorted canonically; FaultOrderError unless their
    ``seq`` is then exactly 0..n-1, i.e. the sender ordered them the same way."""
    ordered = sorted(records, key=lambda f: (*fault_order_key(f), f.seq))
    seqs = [f.seq for f in ordered]
    if seqs != list(range(len(ordered))):
        raise FaultOrderError(f"fault events are not in canonical order: seq {seqs} after sorting")
    return ordered


class FaultLog:
    """One episode's injections, in whatever order the node's threads make them.

    An injection that acts in a robot command (F2: the grip, or its slip step) is stamped with
    that command's end step, known only when the command's status arrives; ``report`` refuses
    while any is still waiting, so no injection is left at a placeholder step.
    """

    def __init__(self) -> None:
        self._ready: list[Injection] = []
        self._waiting: list[tuple[int, Injection]] = []  # (command id, injection)
        self._ends: dict[int, int] = {}  # command id -> end step, as statuses arrive

    def add(self, injection: Injection) -> None:
        self._ready.append(injection)

    def add_at_end_of(self, command_id: int, injection: Injection) -> None:
        """``injection`` acted in robot command ``command_id``: stamp it with its end step."""
        self._waiting.append((int(command_id), injection))
        self._resolve()

    def command_ended(self, command_id: int, end_step: int) -> None:
        """A command reached a terminal state (in any order relative to ``add_at_end_of``)."""
        self._ends[int(command_id)] = int(end_step)
        self._resolve()

    def _resolve(self) -> None:
        waiting = []
        for cid, inj in self._waiting:
            if cid in self._ends:
                self._ready.append(replace(inj, step=self._ends[cid]))
            else:
                waiting.append((cid, inj))
        self._waiting = waiting

    @property
    def awaited(self) -> list[int]:
        """Command ids whose end step some injection still waits for."""
        return sorted({cid for cid, _ in self._waiting})

    def report(self) -> list[FaultRecord]:
        """The episode's injections in canonical order with seq, or FaultOrderError if one still waits."""
        if self._waiting:
            raise FaultOrderError(f"no end step for robot command(s) {self.awaited}: their injections cannot be placed")
        return canonical_faults(self._ready)
