"""run_episode's turns: offline, every turn as the graph's /ambiguity/dialogue carries it, so an
offline run can be compared with the graph's bag turn by turn (test/graph/test_offline_equals_graph.py)."""

from __future__ import annotations

import json
from typing import Any

from alpha_matrix.core.suites.ambiguity.episode import run_episode, turn_json
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent


def test_the_turns_are_the_episode_run_s_in_order(shipped) -> None:
    it = next(i for i in shipped.items if i.ambiguous and "paraphrase" not in i.item_id)  # the grammar it reads
    turns: list[dict[str, Any]] = []
    r = run_episode(it, ResolverAgent(), turns=turns)
    assert [t["decision_index"] for t in turns] == list(range(r.decisions))
    assert [t["tool"] for t in turns] == r.tools and turns[0]["tool"] == "ask_clarification"
    assert turns[-1]["placement"] == r.placement
    assert [json.loads(turn_json(t)) for t in turns] == json.loads(json.dumps(turns))  # what the bag holds
    assert run_episode(it, ResolverAgent()) == r  # collecting turns changes nothing
