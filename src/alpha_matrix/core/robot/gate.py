"""Bounded lookahead: the bridge never steps past (slowest gating consumer's ack) + L.

A consumer's decision stamped with step k applies at k + L. Because the bridge cannot reach
k + L before the consumer has acknowledged k, every decision arrives in time and lands at the
same step in every run, however the processes are scheduled (docs/driver-contract.md).

An ack is credited only once the bridge has received every request the consumer had issued
when it sent the ack: acks and requests travel on different channels, and DDS orders messages
only within one topic.

A consumer that never decides (the recorder: it only must not fall behind the stream's queue)
gets a longer window than L: the bridge then waits on it only if it lags by that many steps,
instead of once per batch. Its stops, if it sent any, would carry no guarantee. It also acks
only every few batches (``AckSpacing``): each ack costs the bridge a callback on its physics
thread, and an ack changes when the bridge steps, never what a step does.

A screened consumer (the safety monitor) decides only at steps its screen flags
(``safety.stream.StepScreen``): the bridge runs the same screen on every step it takes
(``screen``), and the consumer's credit runs on past its last ack over the steps the screen
cleared, up to the step before the first flagged one. The bridge then waits for it only from a
flagged step on, with the same guarantee: a decision at flagged step k is acked, so credited,
before the bridge can reach k + L. A decision at a step the screen cleared means the two screens
disagree (``decided_where_flagged`` is then False): the guarantee no longer holds.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# Messages a step-stream reader may have queued (the topics' KEEP_LAST depth, ros/qos.py): a
# flow window must keep every reader within it, or a batch could be dropped before it is read.
STEP_STREAM_DEPTH = 256


def flow_ack_every(window: int, batch_steps: int) -> int:
    """Steps a flow consumer lets pass between two acks (1: every batch).

    A quarter of the window, so an ack is back while the bridge still has most of the window to
    run; and at most ``window - 2 * batch_steps + 2``, so the bridge can never hold on it: blocked,
    the bridge has published every step up to ``credited + window - batch_steps + 1`` (it flushes a
    full batch), and a consumer whose last ack predates a restart of the episode's steps acks
    again at most ``batch_steps - 1`` steps past the new credit (``AckSpacing``)."""
    return max(1, min(window // 4, window - 2 * batch_steps + 2))


@dataclass
class AckSpacing:
    """Whether a consumer acks the batch ending at ``step``: always with ``every`` = 1; else at an
    episode's first batch, when steps restart (a reset with the same id), and ``every`` steps on."""

    every: int = 1
    episode: str | None = None
    last: int = 0

    def due(self, episode: str, step: int) -> bool:
        if self.every > 1 and episode == self.episode and self.last < step < self.last + self.every:
            return False
        self.episode, self.last = episode, step
        return True


@dataclass
class _Consumer:
    window: int  # how far past its last credited step the bridge may run: L, or a flow window
    screened: bool = False  # credited on past its acks over the steps the bridge's screen cleared
    credited: int = 0
    requests_received: int = 0
    pending: list[tuple[int, int]] = field(default_factory=list)  # (step, requests_issued)
    heard: bool = False
    messages: int = 0  # acks (and keep-alives) received: a slow consumer that is alive keeps sending


class LookaheadGate:
    def __init__(
        self,
        consumers: list[str],
        latency: int,
        windows: Mapping[str, int] | None = None,
        screened: Iterable[str] = (),
    ) -> None:
        """``windows``: consumers that never decide, each with its window (>= ``latency``).
        ``screened``: deciders that decide only at steps the bridge's screen flags."""
        windows, screened = dict(windows or {}), set(screened)
        if latency < 1:
            raise ValueError("reaction latency must be at least one step")
        if unknown := sorted(set(windows) - set(consumers)):
            raise ValueError(f"flow windows for consumers the gate does not have: {unknown}")
        if short := sorted(n for n, w in windows.items() if w < latency):
            raise ValueError(f"flow windows shorter than the reaction latency {latency}: {short}")
        if unknown := sorted(screened - set(consumers)):
            raise ValueError(f"screened consumers the gate does not have: {unknown}")
        if both := sorted(screened & set(windows)):
            raise ValueError(f"consumers both screened and with a flow window: {both}")
        self.latency = latency
        self._consumers = {name: _Consumer(windows.get(name, latency), name in screened) for name in consumers}
        self.screening = bool(screened)
        self._flags: deque[int] = deque()  # flagged steps past the lowest screened credit, in order
        self._screened_through = 0  # the last step screened

    @property
    def consumers(self) -> list[str]:
        return list(self._consumers)

    def new_episode(self) -> None:
        """Steps restart at 1: forget credited steps, keep request counts (they are lifetime counts)."""
        for c in self._consumers.values():
            c.credited = 0
            c.pending.clear()
        self._flags.clear()
        self._screened_through = 0

    def screen(self, step: int, clean: bool) -> None:
        """The bridge's screen of ``step``, every step in order: where screened credit may run."""
        self._screened_through = step
        if not clean:
            self._flags.append(step)

    def decided_where_flagged(self, consumer: str, step: int) -> bool:
        """Whether a decision of ``consumer`` at ``step`` keeps the guarantee: always for an
        unscreened consumer; for a screened one, only at a flagged step (or one not yet screened)."""
        c = self._consumers.get(consumer)
        if c is None or not c.screened or step > self._screened_through or step <= c.credited:
            return True
        return step in self._flags

    def _credit_of(self, c: _Consumer) -> int:
        if not c.screened:
            return c.credited
        for f in self._flags:  # the first flagged step past the ack stops the screened credit
            if f > c.credited:
                return f - 1
        return max(c.credited, self._screened_through)

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
        if c.screened:  # flags every screened consumer has acked past can go
            low = min(x.credited for x in self._consumers.values() if x.screened)
            while self._flags and self._flags[0] <= low:
                self._flags.popleft()

    def all_heard(self) -> bool:
        """True once every consumer has acked at least once (its subscriptions are matched)."""
        return all(c.heard for c in self._consumers.values())

    def silent(self) -> list[str]:
        return [n for n, c in self._consumers.items() if not c.heard]

    def horizon(self) -> int | None:
        """Last step the bridge may execute; None when nothing gates it."""
        if not self._consumers:
            return None
        return min(self._credit_of(c) + c.window for c in self._consumers.values())

    def allows(self, step: int) -> bool:
        h = self.horizon()
        return h is None or step <= h

    def laggards(self) -> list[str]:
        """The consumers that set the horizon (the bridge is waiting for them when blocked)."""
        low = self.horizon()
        return [n for n, c in self._consumers.items() if self._credit_of(c) + c.window == low]
