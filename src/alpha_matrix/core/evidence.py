"""When may the recorder commit an episode? When the bag holds what its record is built from.

An episode ends with a runner's message (/episode/result, /suite/result), but the messages that
record was built from come from other nodes, over other DDS writers. Nothing orders arrivals
across writers: right after a restart the recorder can match the executive's writer after the
runner's, so the executive's result reaches the bag after the end of the episode, and a kill in
between loses it while the record exists (seen in a kill -9 soak). Likewise an agent whose
writers the recorder matched late: its decisions reach the bag after the suite's result, or never
if the agent is stopped first (a confidence bag with no /agent/* at all, seen in make test-long).
The recorder therefore holds the commit until the evidence is in: each required topic has a
message for the episode, the monitor's closed events number what its summary says, and the agent
decisions number what the suite's result says it was built from.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

SUMMARY_TOPIC = "/safety/summary"
EVENTS_TOPIC = "/safety/events"
SUITE_RESULT_TOPIC = "/suite/result"  # its agent_decisions: how many of DECISIONS_TOPIC the commit waits for
DECISIONS_TOPIC = "/agent/decisions"
# end topic -> the topics whose message for the same episode must be in the bag before a commit
REQUIRED: dict[str, tuple[str, ...]] = {
    "/episode/result": ("/executive/result", SUMMARY_TOPIC),
    SUITE_RESULT_TOPIC: ("/suite/request",),
}
TRACKED = frozenset({EVENTS_TOPIC, DECISIONS_TOPIC, *(t for topics in REQUIRED.values() for t in topics)})


@dataclass
class EvidenceGate:
    """Feed it every tracked message and every end; it says which episodes may be committed."""

    _seen: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # episode -> topics
    _closed_events: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _summary_events: dict[str, int] = field(default_factory=dict)
    _decisions: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # in the bag
    _result_decisions: dict[str, int] = field(default_factory=dict)  # what the end says
    _decisions_of: dict[str, str] = field(default_factory=dict)  # the episode id they carry
    _pending: dict[str, str] = field(default_factory=dict)  # episode -> its end topic

    def seen(self, topic: str, episode_id: str, *, closed: bool = False, events: int = 0) -> list[str]:
        """A tracked message reached the bag; returns the pending episodes it completes."""
        if topic == EVENTS_TOPIC:
            self._closed_events[episode_id] += int(closed)
        elif topic == DECISIONS_TOPIC:
            self._decisions[episode_id] += 1
        else:
            self._seen[episode_id].add(topic)
            if topic == SUMMARY_TOPIC:
                self._summary_events[episode_id] = events
        hidden = [e for e, of in self._decisions_of.items() if of == episode_id != e]  # decisions under another id
        return [e for pending in (episode_id, *hidden) for e in self._release(pending)]

    def ended(self, end_topic: str, episode_id: str, *, decisions: int = 0, decisions_of: str = "") -> list[str]:
        """The episode's end reached the bag, built from ``decisions`` agent decisions that carry
        ``decisions_of`` ("": ``episode_id``); returns [episode_id] if it may be committed now."""
        self._pending[episode_id] = end_topic
        self._result_decisions[episode_id] = decisions
        self._decisions_of[episode_id] = decisions_of or episode_id
        return self._release(episode_id)

    def missing(self, episode_id: str) -> list[str]:
        """What a pending episode still waits for, for a log line."""
        end = self._pending.get(episode_id)
        if end is None:
            return []
        out = [t for t in REQUIRED[end] if t not in self._seen[episode_id]]
        want = self._summary_events.get(episode_id)
        if want is not None and self._closed_events[episode_id] < want:
            out.append(f"{EVENTS_TOPIC} ({self._closed_events[episode_id]} of {want} closed events)")
        asked, of = self._result_decisions.get(episode_id, 0), self._decisions_of.get(episode_id, episode_id)
        if self._decisions[of] < asked:
            under = f" of {of}" if of != episode_id else ""
            out.append(f"{DECISIONS_TOPIC} ({self._decisions[of]} of {asked} decisions{under})")
        return out

    def _release(self, episode_id: str) -> list[str]:
        if episode_id not in self._pending or self.missing(episode_id):
            return []
        del self._pending[episode_id]
        self._decisions.pop(self._decisions_of.pop(episode_id), None)
        tables = (self._seen, self._closed_events, self._summary_events, self._decisions, self._result_decisions)
        for table in tables:
            table.pop(episode_id, None)
        return [episode_id]
