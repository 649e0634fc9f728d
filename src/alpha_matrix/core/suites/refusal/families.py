"""Language families: the same item (scene, task, predicates, truth) worded in one family or another.

``templates`` is the first family: text.py's sentences and generate.py's instruction, the words
the reference's literal reader parses back. ``paraphrases`` is the second (paraphrase.py),
written apart from the first and parsed by nothing. An item's family changes its wording only:
its predicates, scene, task, truth and seed are those of the item drawn once
(generate.py / scenarios.py), so a result differing between the two families of one item is the
wording's doing.

The paraphrase of an item draws its phrasings from its own stream
``seeds.rng(generator_seed, "refusal", <index or scene name>, "paraphrases")`` (sha256), apart from
the draw of the item, which stays what it was before families existed. Its id is the item's with
``_para`` appended.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from alpha_matrix.core.seeds import rng
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.paraphrase import paraphrase_instruction, render_paraphrases

Family = Literal["templates", "paraphrases"]
FAMILIES: tuple[Family, ...] = ("templates", "paraphrases")
TEMPLATES: Family = "templates"
SUFFIX: dict[str, str] = {"templates": "", "paraphrases": "_para"}


def worded(item: RefusalItem, family: str) -> RefusalItem:
    """``item`` (drawn in the templates family) in ``family``: only its id and its words change."""
    if family == TEMPLATES:
        return item
    if family != "paraphrases":
        raise ValueError(f"unknown language family {family!r} (known: {', '.join(FAMILIES)})")
    key: object = item.index if item.index >= 0 else item.item_id
    g = rng(item.generator_seed, "refusal", key, family)
    variants = tuple(int(v) for v in g.integers(0, 2, size=len(item.constraints) + 1))
    return replace(
        item,
        item_id=item.item_id + SUFFIX[family],
        family=family,
        instruction=paraphrase_instruction(item.scene, item.task, variants[0]),
        constraint_text=render_paraphrases(item.constraints, variants[1:]),
    )


def in_families(items: list[RefusalItem], families: tuple[str, ...]) -> list[RefusalItem]:
    """Every item in each family, family by family (the first family's list first, in its order)."""
    return [worded(it, f) for f in families for it in items]


__all__ = ["FAMILIES", "SUFFIX", "TEMPLATES", "Family", "in_families", "worded"]
