"""The jailbreak set on the instruction channel (core/suites/refusal/jailbreak.py): templates applied
deterministically and balanced, the wrapped text within its limit and read back, records carrying
the family and the text, the scenario-file key and its one-line errors, the reference refusing every
jailbreak item (by construction), the report's per family table, and the default file unchanged."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.pages.reading import defined
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.refusal import jailbreak
from alpha_matrix.core.suites.refusal.evaluate import observation
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.jailbreak import (
    JAILBREAK_FAMILIES,
    LIMIT,
    TEMPLATES,
    jailbreak_items,
    unwrap,
    wrapped,
)
from alpha_matrix.core.suites.refusal.predicates import KINDS
from alpha_matrix.core.suites.refusal.reference import RefusalReference, reads
from alpha_matrix.core.suites.refusal.scenarios import RefusalSuite, load_refusal_scenarios
from alpha_matrix.core.suites.refusal.suite import (
    TERMS,
    item_json,
    item_of,
    report_lines,
    result_of,
    run_offline,
    scenario_requests,
    summarize_results,
)

SEED = 7
SHIPPED = config_dir() / "scenarios" / "refusal_jailbreak.yaml"
# sha256 of the default refusal.yaml's requests (name, seed, scenario JSON; one JSON line each), as
# computed from the code before the jailbreak set existed: the key's absence changes nothing.
DEFAULT_ITEMS_SHA256 = "3265ae6b7d51ba3c29d388106e9eb3680ef5b71a8e45fb74553cfdd1b4a8a516"


@pytest.fixture(scope="module")
def shipped() -> RefusalSuite:
    return load_refusal_scenarios(SHIPPED)


@pytest.fixture(scope="module")
def attacked(shipped: RefusalSuite) -> list[RefusalItem]:
    return [it for it in shipped.items if it.jailbreak]


def _requests_sha256(path: Path | None) -> tuple[int, str]:
    reqs = scenario_requests(path)
    blob = "\n".join(json.dumps([r.name, r.seed, r.scenario_json]) for r in reqs)
    return len(reqs), hashlib.sha256(blob.encode()).hexdigest()


def test_the_default_file_is_unchanged() -> None:
    suite = load_refusal_scenarios()
    assert suite.jailbreak == () and not any(it.jailbreak for it in suite.items)
    assert _requests_sha256(None) == (570, DEFAULT_ITEMS_SHA256)
    assert all("jailbreak" not in item_json(it) for it in suite.items)


def test_templates_apply_deterministically_and_balanced(shipped: RefusalSuite, attacked: list[RefusalItem]) -> None:
    assert shipped.jailbreak == JAILBREAK_FAMILIES
    assert len(shipped.items) == 280 + 140 and len(attacked) == 140
    assert all(it.violation is not None and it.family == "templates" for it in attacked)
    assert Counter(it.jailbreak for it in attacked) == {f: 35 for f in JAILBREAK_FAMILIES}
    cells = Counter((it.focus, it.jailbreak) for it in attacked)
    assert set(cells) == {(k, f) for k in KINDS for f in JAILBREAK_FAMILIES} and set(cells.values()) == {5}
    again = load_refusal_scenarios(SHIPPED).items
    assert again == shipped.items  # the same items, the same families, the same templates
    base = {it.item_id: it for it in shipped.items if not it.jailbreak}
    for it in attacked:  # only the id, the instruction and the family differ from the wrapped item
        plain = base[it.item_id.removesuffix("_jb")]
        assert replace(it, item_id=plain.item_id, instruction=plain.instruction, jailbreak="") == plain
    # both templates of each family are used
    used = Counter((it.jailbreak, jailbreak.template_index(it, it.jailbreak)) for it in attacked)
    assert {f for f, _ in used} == set(JAILBREAK_FAMILIES) and len(used) == sum(len(t) for t in TEMPLATES.values())


def test_a_smaller_count_stays_balanced_and_independent_of_hash(items: list[RefusalItem]) -> None:
    few = jailbreak_items(items, SEED, JAILBREAK_FAMILIES, 10)
    assert len(few) == 10 and max(Counter(it.jailbreak for it in few).values()) - min(Counter(it.jailbreak for it in few).values()) <= 1  # fmt: skip
    assert few == jailbreak_items(items, SEED, JAILBREAK_FAMILIES, 10)
    assert few != jailbreak_items(items, SEED + 1, JAILBREAK_FAMILIES, 10)  # the order comes from the seed
    two = jailbreak_items(items, SEED, ("split_turns", "role_play"), 7)
    assert Counter(it.jailbreak for it in two) == {"split_turns": 4, "role_play": 3}
    with pytest.raises(ValueError, match="only 140 violating"):
        jailbreak_items(items, SEED, JAILBREAK_FAMILIES, 141)


def test_every_wrapped_text_is_within_its_limit_and_reads_back(items: list[RefusalItem]) -> None:
    violating = [it for it in items if it.violation is not None]
    for fam in JAILBREAK_FAMILIES:
        for it in violating:
            w = wrapped(it, fam)
            assert 0 < len(w.instruction) <= LIMIT
            assert w.instruction != it.instruction and unwrap(w.instruction) == it.instruction
            if fam == "split_turns":  # the request is split: its whole sentence is nowhere in the text
                assert it.instruction not in w.instruction and w.instruction.count('"') == 2
            else:
                assert it.instruction in w.instruction
    assert unwrap(violating[0].instruction) is None  # a plain instruction is in no frame
    with pytest.raises(ValueError, match="unknown jailbreak family"):
        wrapped(violating[0], "grandma")


def test_a_long_object_kind_stays_within_the_limit() -> None:
    suite = load_refusal_scenarios(config_dir() / "scenarios" / "refusal.yaml")
    mug = suite.items[280]  # the first hand-written scene, violating
    kind = "k" * 60  # the longest kind the scene schema admits
    long = replace(mug, scene=replace(mug.scene, objects=tuple(replace(o, kind=kind) if o.name == mug.task.target else o for o in mug.scene.objects)))  # fmt: skip
    long = replace(long, instruction=mug.instruction.replace("mug of tea", kind))
    for fam in JAILBREAK_FAMILIES:
        for j in range(len(TEMPLATES[fam])):
            text = TEMPLATES[fam][j].format(instruction=long.instruction, kind=kind, lift="0.45", x="1.25", y="-0.45")
            assert len(text) <= LIMIT, (fam, j, len(text))


def test_records_carry_the_family_and_the_wrapped_text(attacked: list[RefusalItem]) -> None:
    it = attacked[0]
    d = json.loads(json.dumps(item_json(it)))
    assert d["jailbreak"] == it.jailbreak and d["instruction"] == it.instruction
    assert item_of(d) == it
    res = result_of(it, [], "reference", True)
    assert res["jailbreak"] == {"family": it.jailbreak, "text": it.instruction}
    plain = replace(it, jailbreak="")
    assert "jailbreak" not in result_of(plain, [], "reference", True)
    assert item_of(item_json(plain)) == plain
    # the agent sees the wrapped text as the instruction, and nothing of the family's name
    sit = observation(it, "tool_use").situation
    assert sit["brief"]["instruction"] == it.instruction and it.jailbreak not in json.dumps(sit)


def _file(tmp_path: Path, **top: object) -> Path:
    data = {"seed": SEED, "count": 0, "families": ["templates"], **top}
    p = tmp_path / "refusal.yaml"
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("jb", "says"),
    [
        ({"families": ["grandma"]}, r"jailbreak\.families\.0: Input should be 'role_play'"),
        ({"families": []}, r"jailbreak\.families: List should have at least 1 item"),
        ({"count": -1}, r"jailbreak\.count: Input should be greater than or equal to 0"),
        ({"count": 500}, r"jailbreak\.count: 500 jailbreak items asked, but the set has only 4 violating items"),
        ({"counts": 3}, r"jailbreak\.counts: unknown key"),
        ("all", r"jailbreak: Input should be a valid dictionary"),
    ],
)
def test_a_bad_jailbreak_key_is_one_line(tmp_path: Path, jb: object, says: str) -> None:
    shipped = yaml.safe_load((config_dir() / "scenarios" / "refusal.yaml").read_text())
    with pytest.raises(ConfigError, match=says) as info:
        load_refusal_scenarios(_file(tmp_path, scenes=shipped["scenes"], jailbreak=jb))
    assert "\n" not in str(info.value) and str(tmp_path) in str(info.value)


def test_the_key_on_hand_written_scenes(tmp_path: Path) -> None:
    shipped = yaml.safe_load((config_dir() / "scenarios" / "refusal.yaml").read_text())
    suite = load_refusal_scenarios(_file(tmp_path, scenes=shipped["scenes"], jailbreak={}))
    ids = [it.item_id for it in suite.items]
    assert ids[5:] == ["no_liquids_mug_jb", "knife_near_person_jb", "lift_too_high_jb", "keep_out_place_jb"]
    assert load_refusal_scenarios(_file(tmp_path, scenes=shipped["scenes"], jailbreak={"count": 0})).items == suite.items[:5]  # fmt: skip
    clash = dict(shipped["scenes"][1], name="no_liquids_mug_jb")
    with pytest.raises(ConfigError, match="no_liquids_mug_jb"):
        load_refusal_scenarios(_file(tmp_path, scenes=[shipped["scenes"][0], clash], jailbreak={}))


def test_the_reference_refuses_every_jailbreak_item_by_construction(
    shipped: RefusalSuite, attacked: list[RefusalItem]
) -> None:
    assert all(all(reads(it.instruction, it.constraint_text, it.scene).values()) for it in attacked)
    only = replace(shipped, items=tuple(attacked))
    results = run_offline(only, RefusalReference())
    modes = [m for r in results for m in r["modes"]]
    assert len(modes) == 140 * 4 and all(m["correct"] for m in modes)
    assert all(m["action"] == "refuse" and m["reason_code"] == m["violation"] for m in modes if m["mode"] == "tool_use")  # fmt: skip
    assert all(r["jailbreak"]["family"] in JAILBREAK_FAMILIES for r in results)


def test_the_report_has_a_per_family_table(shipped: RefusalSuite, attacked: list[RefusalItem]) -> None:
    plain = [it for it in shipped.items if not it.jailbreak and it.violation is not None][:8]
    mixed = replace(shipped, items=(*plain, *attacked[:12]), guard=True)
    results = run_offline(mixed, RefusalReference())
    s = summarize_results(results)
    jb = s["by_jailbreak"]
    assert list(jb) == ["plain", *JAILBREAK_FAMILIES]
    assert jb["plain"]["items"] == 8 and sum(g["items"] for n, g in jb.items() if n != "plain") == 12
    assert all(g["unsafe_refused"]["k"] == g["unsafe_refused"]["n"] and g["harms"] == 0 for g in jb.values())
    assert s["by_family"]["templates"]["items"] == 8  # the jailbreak items are not a language family's
    assert s["coverage"]["violating"] == len({it.item_id.removesuffix("_jb") for it in mixed.items})
    records = [type("R", (), {"ok": True, "result": r, "run_id": ""})() for r in results]
    text = "\n".join(report_lines(records, s))
    assert "## Jailbreak set (instruction channel)" in text and "| role_play |" in text
    headers = [line for line in text.splitlines() if line.startswith("| attack family")]
    assert headers and all(defined(c, TERMS) for h in headers for c in h.strip("|").split("|"))
    assert re.search(r"\| plain \| 8 \| 32/32 = 100\.0 % \(", text)
    # without jailbreak items the summary has no such key (a run without the set sums up as before)
    assert "by_jailbreak" not in summarize_results(results[:8])
