"""Bounded lookahead: the bridge never steps past (slowest gating consumer's ack) + L.

A consumer's decision stamped with step k applies at k + L. Because the bridge cannot reach
k + L before the consumer has acknowledged k, every decision arrives in time and lands at the
same step in every run, however the processes are scheduled (notes/bounded-lookahead.md).

An ack is credited only once the bridge has received every request the consumer had issued
when it sent the ack: acks and requests travel on different channels, and DDS orders messages
only within one topic.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class _Consumer:
    credited: int = 0
    requests_received: int = 0
    pending: list[tuple[int, int]] = field(default_factory=list)  # (step, requests_issued)
    heard: bool = False
    messages: int = 0  # acks (and keep-alives) received: a slow consumer that is alive keeps sending


class LookaheadGate:
    def __init__(self, consumers: list[str], latency: int) -> None:
        if latency < 1:
            raise ValueError("reaction latency must be at least one step")
        self.latency = latency
        self._consumers = {name: _Consumer() for name in consumers}

    @property
    def consumers(self) -> list[str]:
        return list(self._consumers)

    def new_episode(self) -> None:
        """Steps restart at 1: forget credited steps, keep request counts (they are lifetime counts)."""
        for c in self._consumers.values():
            c.credited = 0
            c.pending.clear()

    def hello(self, consumer: str) -> None:
        """Any ack, of any episode, proves the consumer is up and its ack channel matched."""
        c = self._consumers.get(consumer)
        if c is not None:
            c.heard = True
            c.messages += 1

    def messages(self, consumers: list[str]) -> tuple[int, ...]:
        """How many messages each of ``consumers`` has sent: changes while a slow one is alive."""
        return tuple(self._consumers[n].messages for n in consumers if n in self._consumers)

    def ack(self, consumer: str, step: int, requests_issued: int) -> None:
        c = self._consumers.get(consumer)
        if c is None:
            return
        c.heard = True
        c.pending.append((step, requests_issued))
        self._credit(c)

    def request_received(self, consumer: str) -> None:
        c = self._consumers.get(consumer)
        if c is not None:
            c.requests_received += 1
            self._credit(c)

    def _credit(self, c: _Consumer) -> None:
        keep = []
        for step, issued in c.pending:
            if issued <= c.requests_received:
                c.credited = max(c.credited, step)
            else:
                keep.append((step, issued))
        c.pending = keep

    def all_heard(self) -> bool:
        """True once every consumer has acked at least once (its subscriptions are matched)."""
        return all(c.heard for c in self._consumers.values())

    def silent(self) -> list[str]:
        return [n for n, c in self._consumers.items() if not c.heard]

    def horizon(self) -> int | None:
        """Last step the bridge may execute; None when nothing gates it."""
        if not self._consumers:
            return None
        return min(c.credited for c in self._consumers.values()) + self.latency

    def allows(self, step: int) -> bool:
        h = self.horizon()
        return h is None or step <= h

    def laggards(self) -> list[str]:
        low = min((c.credited for c in self._consumers.values()), default=0)
        return [n for n, c in self._consumers.items() if c.credited == low]
