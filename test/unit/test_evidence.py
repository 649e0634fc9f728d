"""The recorder's commit rule: an episode is committed once the bag holds its evidence."""

from alpha_matrix.core.evidence import EvidenceGate


def test_end_after_its_evidence_commits_at_once() -> None:
    gate = EvidenceGate()
    assert gate.seen("/executive/result", "e1") == []
    assert gate.seen("/safety/summary", "e1", events=0) == []
    assert gate.ended("/episode/result", "e1") == ["e1"]


def test_evidence_arriving_after_the_end_releases_the_commit() -> None:
    gate = EvidenceGate()
    assert gate.seen("/safety/summary", "e1", events=1) == []
    assert gate.ended("/episode/result", "e1") == []
    assert gate.missing("e1") == ["/executive/result", "/safety/events (0 of 1 closed events)"]
    assert gate.seen("/safety/events", "e1", closed=False) == []  # an open event does not count
    assert gate.seen("/executive/result", "e1") == []
    assert gate.seen("/safety/events", "e1", closed=True) == ["e1"]
    assert gate.missing("e1") == []


def test_evidence_of_another_episode_does_not_count() -> None:
    gate = EvidenceGate()
    gate.seen("/executive/result", "e0")
    gate.seen("/safety/summary", "e0")
    assert gate.ended("/episode/result", "e1") == []
    assert gate.seen("/executive/result", "e1") == []
    assert gate.seen("/safety/summary", "e1") == ["e1"]


def test_a_suite_scenario_waits_for_its_request() -> None:
    gate = EvidenceGate()
    assert gate.ended("/suite/result", "alerts-a") == []
    assert gate.missing("alerts-a") == ["/suite/request"]
    assert gate.seen("/suite/request", "alerts-a") == ["alerts-a"]


def test_a_committed_episode_is_forgotten() -> None:
    gate = EvidenceGate()
    gate.seen("/suite/request", "s")
    assert gate.ended("/suite/result", "s") == ["s"]
    assert gate.missing("s") == []
    assert gate.ended("/suite/result", "s") == []  # a re-run of the same id waits for its own request
