"""Attempts: the runs of one episode id that a bag holds.

A run killed mid-episode and resumed with the same command re-runs that episode: the bag then
holds the interrupted attempt's partial stream and the re-run under the same episode id (the
bag is appended to). Replaying both as one stream is meaningless (the step numbers start over),
so a bag's messages are cut into attempts first; the attempt that produced the episode's result
is the one an audit checks, the others are reported as interrupted.

Generic over the suites: callers name what carries the episode id, what starts an attempt
(e.g. a /suite/request) and what carries step numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

Msg = tuple[str, int, Any]  # (topic, log time ns, message), as core.bag.read_bag yields them
STEP_TOPIC = "/robot/step_batch"
RESULT_TOPIC = "/episode/result"


def episode_id_of(_topic: str, msg: Any) -> str | None:
    """The message's ``episode_id`` field; None (not an episode's message) when absent or empty."""
    return getattr(msg, "episode_id", None) or None


def step_batch_span(topic: str, msg: Any) -> tuple[int, int] | None:
    """(first, last) step of a StepBatch on the robot's step stream, else None."""
    if topic != STEP_TOPIC:
        return None
    return int(msg.first_step), int(msg.first_step) + int(msg.num_steps) - 1


@dataclass
class Attempt:
    """One run of an episode: its messages in log order."""

    episode_id: str
    messages: list[Msg] = field(default_factory=list)
    completed: bool = False  # holds the episode's result
    started: bool = False  # holds a start message (when the caller names one)
    first_step: int | None = None
    last_step: int | None = None
    gaps: list[tuple[int, int]] = field(default_factory=list)  # (first, last) missing steps

    def describe(self) -> str:
        """E.g. "steps 1..540", for a one-line note."""
        if self.first_step is None:
            return f"{len(self.messages)} messages, no steps"
        return f"steps {self.first_step}..{self.last_step}"


def split_attempts(
    messages: Iterable[Msg],
    *,
    episode_of: Callable[[str, Any], str | None] = episode_id_of,
    step_span: Callable[[str, Any], tuple[int, int] | None] = step_batch_span,
    is_start: Callable[[str, Any], bool] | None = None,
    result_topic: str = RESULT_TOPIC,
) -> dict[str, list[Attempt]]:
    """episode id -> its attempts in log order.

    A new attempt of an episode id begins where its step stream starts over (a step at or
    before one already seen), at a second start message (``is_start``), or at a start message or
    a step after the current attempt's result (except the stream's exact continuation: a last
    batch that reached the bag after the result). Other messages join the episode's latest
    attempt. Steps skipped within one attempt are recorded as gaps, not as a new attempt.

    A start message after the result of an attempt that has neither a start nor steps is that
    attempt's own start, logged late: a recorder that falls behind takes its topics in no fixed
    order (a stepless suite's request was seen logged a millisecond after its dialogue and result).
    """
    out: dict[str, list[Attempt]] = {}
    for m in messages:
        topic, _ts, msg = m
        episode = episode_of(topic, msg)
        if episode is None:
            continue
        attempts = out.setdefault(episode, [Attempt(episode)])
        cur = attempts[-1]
        span = step_span(topic, msg)
        start = is_start is not None and is_start(topic, msg)
        if span is not None:
            first, last = span
            # After the result, only the stream's exact continuation stays in the attempt: the
            # bridge's last batch can reach the bag after the result (another writer).
            restarted = cur.last_step is not None and first <= cur.last_step
            if restarted or (cur.completed and (cur.last_step is None or first != cur.last_step + 1)):
                cur = Attempt(episode)
                attempts.append(cur)
            elif cur.last_step is not None and first > cur.last_step + 1:
                cur.gaps.append((cur.last_step + 1, first - 1))
            if cur.first_step is None:
                cur.first_step = first
            cur.last_step = max(last, cur.last_step or last)
        elif start and (cur.started or (cur.completed and cur.first_step is not None)):
            cur = Attempt(episode)
            attempts.append(cur)
        cur.started = cur.started or start
        if topic == result_topic:
            cur.completed = True
        cur.messages.append(m)
    return out


def audited_attempt(attempts: list[Attempt]) -> tuple[Attempt | None, list[Attempt]]:
    """(the attempt to audit: the last with a result, or None; every other attempt).

    The others are runs the record does not come from: interrupted ones (no result) and,
    rarely, an earlier completed run superseded by a later one.
    """
    done = [a for a in attempts if a.completed]
    chosen = done[-1] if done else None
    return chosen, [a for a in attempts if a is not chosen]


__all__ = ["Attempt", "Msg", "audited_attempt", "episode_id_of", "split_attempts", "step_batch_span"]
