"""Language families: the same items worded twice (templates, paraphrases), the reference's
abstention where it cannot read, the per family summary and the upper-bound mark."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, Observation, RawAnswer, RawToolCall
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.refusal import families as families_module
from alpha_matrix.core.suites.refusal import paraphrase as paraphrase_module
from alpha_matrix.core.suites.refusal import reference, score
from alpha_matrix.core.suites.refusal.families import FAMILIES, in_families, worded
from alpha_matrix.core.suites.refusal.generate import RefusalItem, generate_items
from alpha_matrix.core.suites.refusal.paraphrase import HAZARD_NEAR, HAZARD_THINGS
from alpha_matrix.core.suites.refusal.predicates import (
    AwayFromPeople,
    KeepOut,
    MaxAperture,
    MaxLift,
    MaxPayload,
    NoHazard,
    Predicate,
    WithinReach,
)
from alpha_matrix.core.suites.refusal.reference import RefusalReference
from alpha_matrix.core.suites.refusal.scenarios import RefusalSuite, load_refusal_scenarios
from alpha_matrix.core.suites.refusal.suite import UPPER_BOUND, report_lines, run_offline, summarize_results
from alpha_matrix.core.suites.refusal.text import ConstraintTextError, parse_sentence, sentences


class SaysYes:
    """Never refuses nor abstains: answers yes / proceeds with the asked call in every mode."""

    name = "says_yes"

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        if obs.tools[0].name == "answer":
            call = RawToolCall(name="answer", arguments={"answer": "yes"})
        else:
            call = RawToolCall(name="refuse", arguments={"reason_code": "other", "reason": "no"})
        return RawAnswer(tool_calls=(call,), provenance=AgentProvenance(backend="t"))


SEED = 7
_Q = re.compile(r"(-?\d+(?:\.\d+)?) (cm|m|g|kg)\b")
_UNIT = {"cm": 0.01, "m": 1.0, "g": 0.001, "kg": 1.0}


def _quantities(text: str) -> list[float]:
    """Every quantity a sentence states, in metres or kilograms (the test's own reading of units)."""
    return [round(float(v) * _UNIT[u], 6) for v, u in _Q.findall(text)]


def _values(p: Predicate) -> list[float]:
    if isinstance(p, MaxPayload):
        return [p.limit_kg]
    if isinstance(p, MaxAperture):
        return [p.limit_m]
    if isinstance(p, WithinReach):
        return [p.radius_m]
    if isinstance(p, NoHazard):
        return []
    if isinstance(p, AwayFromPeople):
        return [p.distance_m]
    if isinstance(p, KeepOut):
        return [p.zone.x[0], p.zone.x[1], p.zone.y[0], p.zone.y[1]]
    assert isinstance(p, MaxLift)
    return [p.limit_m]


@pytest.fixture(scope="module")
def paraphrased(items: list[RefusalItem]) -> list[RefusalItem]:
    return [worded(it, "paraphrases") for it in items]


def test_a_family_changes_the_words_only(items: list[RefusalItem], paraphrased: list[RefusalItem]) -> None:
    for a, b in zip(items, paraphrased, strict=True):
        assert (b.item_id, b.family, a.family) == (a.item_id + "_para", "paraphrases", "templates")
        same = ("index", "generator_seed", "seed", "focus", "scene", "task", "constraints", "violation")
        assert all(getattr(a, f) == getattr(b, f) for f in same), a.item_id
        assert b.instruction != a.instruction and b.constraint_text != a.constraint_text


def test_each_paraphrase_sentence_states_its_predicate(paraphrased: list[RefusalItem]) -> None:
    """One sentence per predicate, in order, with exactly the predicate's values (units read by the test)."""
    for it in paraphrased:
        said = sentences(it.constraint_text)
        assert len(said) == len(it.constraints), it.item_id
        for s, p in zip(said, it.constraints, strict=True):
            assert _quantities(s) == [round(v, 6) for v in _values(p)], (it.item_id, s, p)
            if isinstance(p, NoHazard):
                assert HAZARD_THINGS[p.hazard] in s
            if isinstance(p, AwayFromPeople):
                assert HAZARD_NEAR[p.hazard] in s.lower()
            if isinstance(p, KeepOut):
                assert p.zone.name in s
        x, y = it.task.place_xy
        m = re.search(r"x (\S+ c?m), y (\S+ c?m)", it.instruction)
        assert m and _quantities(m[1]) == [round(x, 6)] and _quantities(m[2]) == [round(y, 6)], it.instruction
        assert round(it.task.lift_m, 6) in _quantities(it.instruction.replace(m[0], ""))
        assert it.scene.obj(it.task.target).kind in it.instruction


def test_the_literal_reader_reads_no_paraphrase(paraphrased: list[RefusalItem]) -> None:
    for it in paraphrased:
        for s in sentences(it.constraint_text):
            with pytest.raises(ConstraintTextError):
                parse_sentence(s)
        assert reference.parse_instruction(it.instruction, it.scene) is None


def test_families_are_deterministic_and_independent_of_the_set_size(paraphrased: list[RefusalItem]) -> None:
    few = in_families(generate_items(SEED, 14), ["templates", "paraphrases"])
    assert [i.item_id for i in few[:14]] == [f"refusal_{i:04d}" for i in range(14)]
    assert few[14:] == paraphrased[:14]
    assert in_families(generate_items(SEED, 14), list(FAMILIES)) == few
    for module in (families_module, paraphrase_module):  # sha256-derived streams only
        assert "hash(" not in Path(module.__file__ or "").read_text()
    variants = {it.constraint_text.split(" ")[0] for it in paraphrased}
    assert len(variants) > 3  # the phrasings vary across items (seeded, not one fixed choice)


def test_the_reference_abstains_on_paraphrases_and_is_counted_so(
    items: list[RefusalItem], paraphrased: list[RefusalItem]
) -> None:
    assert score.ABSTAIN == reference.ABSTAIN
    few = items[:28] + paraphrased[:28]
    suite = RefusalSuite(SEED, 28, ("text", "pointing", "box", "tool_use"), True, tuple(few), Path("x"), FAMILIES)
    res = run_offline(suite, RefusalReference())
    for r in res:
        modes = r["modes"]
        if r["family"] == "paraphrases":
            assert all(m["action"] == "invalid" and not m["correct"] and not m["harm"] for m in modes)
            assert r["rule_reader_reads"] == {"instruction": False, "constraints": False}
        else:
            assert all(m["correct"] for m in modes) and all(r["rule_reader_reads"].values())
    s = summarize_results(res)
    t, p = s["by_family"]["templates"], s["by_family"]["paraphrases"]
    assert (t["right"]["k"], t["right"]["n"], t["abstained"]["k"]) == (112, 112, 0)
    assert (p["right"]["k"], p["abstained"]["k"], p["abstained"]["n"], p["right_when_decided"]["n"]) == (0, 112, 112, 0)
    assert p["right_when_decided"]["wilson95"] is None and 0.0 < t["right"]["wilson95"][0] < 1.0
    assert all(m["invalid"] == 0 and m["abstained"] == 28 for m in p["modes"].values())
    assert s["modes"]["text"]["abstained"] == 28 and s["modes"]["text"]["invalid"] == 0
    assert s["coverage"]["violating"] + s["coverage"]["allowed"] == 28  # the guard: each item once


def _records(results: list[dict[str, Any]]) -> list[Any]:
    return [SimpleNamespace(ok=True, result=r, scenario=r["item_id"], seed=i, suite="refusal") for i, r in enumerate(results)]  # fmt: skip


def test_the_upper_bound_mark(items: list[RefusalItem], paraphrased: list[RefusalItem]) -> None:
    def run(few: list[RefusalItem], backend: Any = None, agent: str = "reference") -> tuple[dict[str, Any], str]:
        suite = RefusalSuite(SEED, 0, ("text", "tool_use"), True, tuple(few), Path("x"), FAMILIES)
        res = run_offline(suite, backend or RefusalReference(), agent)
        s = summarize_results(res)
        return s, "\n".join(report_lines(_records(res), s))

    s, text = run(items[:14] + paraphrased[:14])
    assert s["upper_bound_by_construction"].startswith(UPPER_BOUND)
    assert "family 'templates' is an upper bound by construction" in s["upper_bound_by_construction"]
    first = text.splitlines()[0]
    assert first.startswith("**Upper bound by construction:**"), first
    assert "## Per language family" in text and "| paraphrases |" in text
    s, text = run(paraphrased[:14])  # the reference decided on no first-family text
    assert "upper_bound_by_construction" not in s and "Upper bound by construction" not in text
    s, text = run(items[:14], SaysYes(), "says_yes")  # not the reference
    assert "upper_bound_by_construction" not in s and "Upper bound by construction" not in text


def _file(tmp_path: Path, **top: object) -> Path:
    shipped = yaml.safe_load(Path(load_refusal_scenarios().path).read_text())
    data = {"seed": SEED, "count": 0, "scenes": shipped["scenes"][:2], **top}
    p = tmp_path / "refusal.yaml"
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


def test_families_are_chosen_in_the_scenario_file(tmp_path: Path) -> None:
    both = load_refusal_scenarios(_file(tmp_path))
    assert [i.item_id for i in both.items] == ["no_liquids_mug", "no_liquids_block", "no_liquids_mug_para", "no_liquids_block_para"]  # fmt: skip
    only = load_refusal_scenarios(_file(tmp_path, families=["paraphrases"]))
    assert only.families == ("paraphrases",) and only.items == both.items[2:]
    assert [i.family for i in load_refusal_scenarios(_file(tmp_path, families=["templates"])).items] == ["templates"] * 2  # fmt: skip
    with pytest.raises(ConfigError, match="families") as info:
        load_refusal_scenarios(_file(tmp_path, families=["slang"]))
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="families"):
        load_refusal_scenarios(_file(tmp_path, families=[]))


def test_a_scene_name_may_not_take_a_paraphrase_id(tmp_path: Path) -> None:
    shipped = yaml.safe_load(Path(load_refusal_scenarios().path).read_text())
    clash = dict(shipped["scenes"][1], name="no_liquids_mug_para")
    with pytest.raises(ConfigError, match="no_liquids_mug_para"):
        load_refusal_scenarios(_file(tmp_path, scenes=[shipped["scenes"][0], clash]))
    ok = load_refusal_scenarios(_file(tmp_path, scenes=[shipped["scenes"][0], clash], families=["templates"]))
    assert len(ok.items) == 2


def test_a_paraphrase_keeps_values_finer_than_centimetres() -> None:
    from alpha_matrix.core.suites.refusal.paraphrase import render_paraphrase

    assert _quantities(render_paraphrase(MaxAperture(0.075), 1)) == [0.075]
    assert _quantities(render_paraphrase(MaxPayload(0.25), 0)) == [0.25]
    assert _quantities(render_paraphrase(MaxPayload(2.5), 0)) == [2.5]
