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


def test_a_suite_result_waits_for_the_agent_decisions_it_counts() -> None:
    """An agent's writer matched late: its decisions reach the bag after the result, or never if
    the agent is stopped first (make test-long: a confidence bag with no /agent/* at all)."""
    gate = EvidenceGate()
    gate.seen("/suite/request", "confidence-t")
    assert gate.seen("/agent/decisions", "confidence-t") == []  # before the end: counted, nothing to release
    assert gate.ended("/suite/result", "confidence-t", decisions=3) == []
    assert gate.missing("confidence-t") == ["/agent/decisions (1 of 3 decisions)"]
    assert gate.seen("/agent/decisions", "confidence-other") == []  # another episode's does not count
    assert gate.seen("/agent/decisions", "confidence-t") == []
    assert gate.missing("confidence-t") == ["/agent/decisions (2 of 3 decisions)"]
    assert gate.seen("/agent/decisions", "confidence-t") == ["confidence-t"]


def test_a_suite_result_without_an_agent_waits_for_no_decision() -> None:
    gate = EvidenceGate()
    gate.seen("/suite/request", "alerts-a")
    assert gate.ended("/suite/result", "alerts-a", decisions=0) == ["alerts-a"]


def test_a_rerun_counts_its_own_decisions() -> None:
    gate = EvidenceGate()
    gate.seen("/suite/request", "s")
    gate.seen("/agent/decisions", "s")
    assert gate.ended("/suite/result", "s", decisions=1) == ["s"]
    gate.seen("/suite/request", "s")
    assert gate.ended("/suite/result", "s", decisions=1) == []  # the first attempt's decision is spent
    assert gate.seen("/agent/decisions", "s") == ["s"]


def test_decisions_under_a_hidden_episode_id_count_for_the_scenario() -> None:
    """The ambiguity suite shows the agent a name that says nothing of the item; its result names it."""
    gate = EvidenceGate()
    gate.seen("/suite/request", "ambiguity-item-3")
    assert gate.seen("/agent/decisions", "ambiguity_00ab") == []
    assert gate.ended("/suite/result", "ambiguity-item-3", decisions=2, decisions_of="ambiguity_00ab") == []
    assert gate.missing("ambiguity-item-3") == ["/agent/decisions (1 of 2 decisions of ambiguity_00ab)"]
    assert gate.seen("/agent/decisions", "ambiguity-item-3") == []  # the scenario's own id is not the one they carry
    assert gate.seen("/agent/decisions", "ambiguity_00ab") == ["ambiguity-item-3"]
    gate.seen("/suite/request", "ambiguity-item-3")  # a re-run waits for its own decisions
    assert gate.ended("/suite/result", "ambiguity-item-3", decisions=1, decisions_of="ambiguity_00ab") == []
    assert gate.seen("/agent/decisions", "ambiguity_00ab") == ["ambiguity-item-3"]
