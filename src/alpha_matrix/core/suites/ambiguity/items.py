"""One item of the ambiguity suite: a scene, an instruction, and the truth kept from the agent.

Items come in pairs over one scene: the *clear* instruction and the *ambiguous* one of the same
task. The truth of an item -- its category, whether it is ambiguous, which piece is missing
(``missing``), the operator's answer that supplies exactly that piece, and the resolved task --
is the scorer's and the scripted operator's; the agent's observation (episode.py) carries only
the scene and the instruction (and, once asked, the answer).

A task is a set of moves; a move asks for ``count`` of the acceptable blocks ``blocks`` to end in
``goal`` ("two of the red cubes into the white bin": any two of the three). ``achieved`` judges a
final placement: every move has exactly its count at its goal, and every other block is where it
started (a guess that moves the wrong block fails, even if it later moves the right one too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alpha_matrix.core.suites.ambiguity.scene import Scene, scene_json, scene_of
from alpha_matrix.core.suites.common import plain_json, plain_of

CATEGORIES = (
    "pronoun_without_referent",
    "over_general_description",
    "identical_instances",
    "category_different_members",
    "omitted_goal",
    "imprecise_spatial_relation",
    "unspecified_slot",
    "vague_quantity",
    "missing_sort_criterion",
    "object_and_goal_unspecified",
)
FIELDS = ("object", "goal", "quantity", "criterion")  # what an ambiguous instruction can leave open
NOTHING_MISSING = "Nothing is missing: please do as instructed."
# Language families: the same scenes and tasks in two independently written wordings. ``templates``
# is the generator's own grammar (language.py, which the reference reads); ``paraphrase`` is written
# apart from it (phrasing.py: other verbs, word order, politeness, relative descriptions, synonyms
# for bins, slots and pads), and the reference has no reader for it.
FIRST_FAMILY = "templates"
FAMILIES = (FIRST_FAMILY, "paraphrase")
# The operator's answer on a clear item, in each family's words.
NOTHING_MISSING_IN = {FIRST_FAMILY: NOTHING_MISSING, "paraphrase": "That is all I need: go ahead as I said."}


@dataclass(frozen=True)
class Move:
    blocks: tuple[str, ...]  # acceptable blocks, sorted
    count: int  # how many of them end in goal
    goal: str


@dataclass(frozen=True)
class Task:
    moves: tuple[Move, ...]

    def check(self, scene: Scene) -> None:
        """ValueError when the task cannot be done in ``scene``: unknown blocks or goals, a count the
        blocks cannot give, a block wanted in two goals, more blocks than a one-block place holds."""
        if not self.moves:
            raise ValueError("a task needs at least one move")
        seen: set[str] = set()
        for m in self.moves:
            unknown = [b for b in m.blocks if b not in scene.block_names]
            if unknown:
                raise ValueError(f"task names block {unknown[0]!r}, which is not in the scene")
            if m.goal not in scene.place_names:
                raise ValueError(f"task goal {m.goal!r} is not a place of the scene")
            if not 1 <= m.count <= len(m.blocks):
                raise ValueError(f"move to {m.goal}: count {m.count} of {len(m.blocks)} blocks")
            if scene.place(m.goal).holds_one and m.count > 1:
                raise ValueError(f"{m.goal} holds one block, the task puts {m.count} there")
            if seen & set(m.blocks):
                raise ValueError(f"block {sorted(seen & set(m.blocks))[0]!r} is wanted in two goals")
            seen |= set(m.blocks)
            occupant = [b.name for b in scene.blocks if b.at == m.goal and b.name not in m.blocks]
            if scene.place(m.goal).holds_one and occupant:
                raise ValueError(f"task goal {m.goal} is taken by {occupant[0]}")

    def achieved(self, scene: Scene, final: Mapping[str, str | None]) -> bool:
        """Whether the final placement (block -> place or None) does the task and nothing else."""
        wanted = {b: m for m in self.moves for b in m.blocks}
        for m in self.moves:
            if sum(final.get(b) == m.goal for b in m.blocks) != m.count:
                return False
        for b in scene.blocks:
            where = final.get(b.name, b.at)
            if where != b.at and (b.name not in wanted or where != wanted[b.name].goal):
                return False
        return True


@dataclass(frozen=True)
class Item:
    item_id: str
    pair_id: str
    category: str
    ambiguous: bool
    generator_seed: int
    seed: int
    scene: Scene
    instruction: str
    missing: tuple[str, ...]  # FIELDS the instruction leaves open; () for a clear one
    answer: str  # the operator's answer: exactly the missing piece (NOTHING_MISSING_IN[family] for a clear item)
    task: Task
    family: str = FIRST_FAMILY  # the wording of instruction and answer (FAMILIES); the truth does not depend on it

    def check(self) -> None:
        """ValueError on an item that cannot be scored: impossible scene or task, bad category."""
        if self.family not in FAMILIES:
            raise ValueError(f"unknown family {self.family!r} (known: {', '.join(FAMILIES)})")
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown category {self.category!r} (known: {', '.join(CATEGORIES)})")
        bad = [f for f in self.missing if f not in FIELDS]
        if bad:
            raise ValueError(f"missing: unknown field {bad[0]!r} (known: {', '.join(FIELDS)})")
        if self.ambiguous != bool(self.missing):
            raise ValueError("an ambiguous item names what is missing; a clear one names nothing")
        if not self.instruction.strip() or not self.answer.strip():
            raise ValueError("instruction and answer must not be empty")
        self.scene.check()
        self.task.check(self.scene)


def item_json(it: Item) -> dict[str, Any]:
    return plain_json(
        it,
        scene=scene_json(it.scene),
        missing=list(it.missing),
        task=[{"blocks": list(m.blocks), "count": m.count, "goal": m.goal} for m in it.task.moves],
    )


def item_of(d: dict[str, Any]) -> Item:
    return plain_of(
        Item, d,
        scene=scene_of(d["scene"]),
        missing=tuple(str(f) for f in d["missing"]),
        task=Task(tuple(Move(tuple(sorted(m["blocks"])), int(m["count"]), str(m["goal"])) for m in d["task"])),
        family=str(d.get("family", FIRST_FAMILY)),  # items recorded before families were templates
    )  # fmt: skip


__all__ = [
    "CATEGORIES",
    "FAMILIES",
    "FIELDS",
    "FIRST_FAMILY",
    "NOTHING_MISSING",
    "NOTHING_MISSING_IN",
    "Item",
    "Move",
    "Task",
    "item_json",
    "item_of",
]
