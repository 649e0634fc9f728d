"""The model prompt (config/prompts/agent_ambiguity_v1.yaml): tools and situation in, no truth."""

from __future__ import annotations

from alpha_matrix.core.agent.prompts import default_prompt, render
from alpha_matrix.core.agent.situation import parse_situation
from alpha_matrix.core.suites.ambiguity.episode import EpisodeState, observation
from alpha_matrix.core.suites.ambiguity.plugin import SUITE as AMBIGUITY
from alpha_matrix.core.suites.ambiguity.situation import AmbiguitySituation, tools_for


def test_prompt_shows_the_instruction_and_tools_but_not_the_truth(shipped) -> None:
    it = next(i for i in shipped.items if i.ambiguous and i.category == "vague_quantity")
    obs = observation(it, EpisodeState({b.name: b.at for b in it.scene.blocks}), 0)
    p = render(obs, AMBIGUITY)
    assert it.instruction in p.system and "pick_and_place" in p.system and "ask_clarification" in p.system
    assert it.answer not in p.user + p.system and it.category not in p.user + p.system
    assert p.template_sha256 == default_prompt(AMBIGUITY).sha256 and p.template_version == "agent_ambiguity_v1"
    assert "$" not in p.system and '"scene"' in p.user


def test_every_observation_fits_the_closed_schema_and_its_tools(shipped) -> None:
    """The episode's situation is exactly the schema's (validated, dumped back unchanged)."""
    for it in shipped.items[::9]:
        obs = observation(it, EpisodeState({b.name: b.at for b in it.scene.blocks}), 0)
        sit = parse_situation(obs, AMBIGUITY)
        assert isinstance(sit, AmbiguitySituation)
        assert sit.model_dump(mode="json") == {"suite": "ambiguity", **obs.situation}
        assert tools_for(sit) == obs.tools
