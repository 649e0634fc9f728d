"""The generator: deterministic in its seed, balanced over the ten categories, pairs that share a task."""

from __future__ import annotations

import json
from collections import Counter

from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.ambiguity.generate import TEMPLATES, generate, pair
from alpha_matrix.core.suites.ambiguity.items import CATEGORIES, FAMILIES, NOTHING_MISSING_IN, item_json, item_of


def _dump(items: list) -> str:
    return json.dumps([item_json(it) for it in items], sort_keys=True)


def test_one_template_per_category_in_order() -> None:
    assert tuple(TEMPLATES) == CATEGORIES
    assert len(CATEGORIES) == 10


def test_same_seed_same_items_and_another_seed_others() -> None:
    a, b = generate(11, 3), generate(11, 3)
    assert _dump(a) == _dump(b)
    assert _dump(a) != _dump(generate(12, 3))


def test_a_pair_does_not_depend_on_what_else_is_generated() -> None:
    alone = pair(5, "vague_quantity", 2)
    among = [it for it in generate(5, 4, ["omitted_goal", "vague_quantity"]) if it.pair_id == "vague_quantity_02"]
    assert _dump(list(alone)) == _dump(among)


def test_balanced_and_paired(shipped) -> None:
    generated = [it for it in shipped.items if it.generator_seed == shipped.seed and not it.pair_id.startswith("hand_")]
    kinds = Counter((it.category, it.ambiguous, it.family) for it in generated)
    assert set(kinds) == {(c, a, f) for c in CATEGORIES for a in (False, True) for f in FAMILIES}
    assert set(kinds.values()) == {shipped.pairs_per_category} and shipped.pairs_per_category >= 20
    by_pair: dict[str, list] = {}
    for it in shipped.items:
        by_pair.setdefault(it.pair_id, []).append(it)
    for pid, (clear, amb) in by_pair.items():
        assert (clear.ambiguous, amb.ambiguous) == (False, True), pid
        assert clear.scene == amb.scene and clear.task == amb.task, pid
        assert clear.instruction != amb.instruction, pid
        assert clear.missing == () and clear.answer == NOTHING_MISSING_IN[clear.family], pid
        assert clear.family == amb.family, pid
        assert amb.missing and amb.answer != NOTHING_MISSING_IN[amb.family], pid


def test_item_seeds_are_sha256_derived_and_distinct(shipped) -> None:
    for it in shipped.items:
        assert it.generator_seed == shipped.seed
        kind = "ambiguous" if it.ambiguous else "clear"
        assert it.seed == derive_seed(shipped.seed, "ambiguity", it.pair_id, kind)
    assert len({it.seed for it in shipped.items}) == len(shipped.items)


def test_instructions_vary_within_a_category(shipped) -> None:
    for c in CATEGORIES:
        texts = {it.instruction for it in shipped.items if it.category == c and it.ambiguous}
        assert len(texts) >= 5, c


def test_items_survive_json() -> None:
    for it in generate(3, 1):
        assert item_of(json.loads(json.dumps(item_json(it)))) == it
