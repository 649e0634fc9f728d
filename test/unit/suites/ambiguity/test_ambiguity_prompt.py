"""The model prompt: tools and situation in, no truth, a stable hash."""

from __future__ import annotations

from alpha_matrix.core.suites.ambiguity.episode import EpisodeState, observation
from alpha_matrix.core.suites.ambiguity.prompt import prompt_of, template_sha256


def test_prompt_shows_the_instruction_and_tools_but_not_the_truth(shipped) -> None:
    it = next(i for i in shipped.items if i.ambiguous and i.category == "vague_quantity")
    obs = observation(it, EpisodeState({b.name: b.at for b in it.scene.blocks}), 0)
    p = prompt_of(obs)
    assert it.instruction in p.user and "pick_and_place" in p.system and "ask_clarification" in p.system
    assert it.answer not in p.user + p.system and it.category not in p.user + p.system
    assert p.template_sha256 == template_sha256() and len(p.template_sha256) == 64
    assert "$" not in p.system
