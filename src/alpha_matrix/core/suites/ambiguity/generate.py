"""Paired items from scene templates, one template per category, deterministic in the seed.

``generate(seed, pairs_per_category, categories)`` gives, for every category and pair index, a
scene and two instructions over it: the clear one and the ambiguous one of the same task. Every
random draw comes from ``core.seeds.rng(seed, category, index)`` (sha256, never ``hash()``), so the
same seed gives the same items in any process, and a pair does not change when another category
or count is asked for. Each item records the generator's seed and its own.

The templates make the ambiguity real in the scene, not only in the words: "the red cube" is
ambiguous only when two red cubes stand there, "into the tray" only with two free slots, "sort
by ...?" only when colour and shape split the blocks differently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from alpha_matrix.core.seeds import derive_seed, rng
from alpha_matrix.core.suites.ambiguity.items import CATEGORIES, NOTHING_MISSING, Item, Move, Task
from alpha_matrix.core.suites.ambiguity.language import (
    GENERIC_NOUNS,
    NUMBERS,
    POSITIONS,
    VAGUE,
    GoalRef,
    ObjRef,
    SortRef,
    goal_text,
    obj_text,
    sentence,
    sort_text,
)
from alpha_matrix.core.suites.ambiguity.scene import BIN_COLOURS, BLOCK_COLOURS, SHAPES, Block, Place, Scene

# The layout (scene frame, m; physical.py lays it in front of the robot, within its reach): the tray
# nearest the robot, the blocks' band, the bins' row with pads around them. Rows are far enough
# apart that the open fingers (0.08 m, across x) set a block down without touching a neighbour.
_XS = tuple(round(float(x), 3) for x in np.linspace(-0.3, 0.3, 7))  # block columns on the table
BLOCK_Y = (-0.06, 0.04)  # a block's y: the band's near edge and its depth
BIN_Y = 0.16
TRAY_Y = -0.14
PAD_OFFSET = {"left of": (-0.13, 0.0), "right of": (0.13, 0.0), "in front of": (0.0, -0.12), "behind": (0.0, 0.12)}


@dataclass(frozen=True)
class Pair:
    """What a template draws: the scene, the task, the two instructions, the missing piece's answer."""

    scene: Scene
    task: Task
    clear: str
    ambiguous: str
    missing: tuple[str, ...]
    answer: str


def _pick(g: np.random.Generator, options: Iterable[str]) -> str:
    opts = tuple(options)
    return opts[int(g.integers(len(opts)))]


def _combos(g: np.random.Generator, n: int) -> list[tuple[str, str]]:
    """n distinct (colour, shape) pairs."""
    all_ = [(c, s) for c in BLOCK_COLOURS for s in SHAPES]
    return [all_[i] for i in g.permutation(len(all_))[:n]]


def _blocks(g: np.random.Generator, looks: list[tuple[str, str]]) -> tuple[Block, ...]:
    """Blocks in random table columns; names in an order unrelated to position."""
    xs = sorted(g.choice(len(_XS), size=len(looks), replace=False))
    order = g.permutation(len(looks))
    return tuple(
        Block(
            f"block_{int(order[i]) + 1}",
            c,
            s,
            _XS[int(xs[i])],
            round(BLOCK_Y[0] + float(g.uniform(0.0, BLOCK_Y[1])), 3),
        )
        for i, (c, s) in enumerate(looks)
    )


def _bins(g: np.random.Generator, n: int) -> tuple[Place, ...]:
    colours = [BIN_COLOURS[i] for i in g.permutation(len(BIN_COLOURS))[:n]]
    return tuple(
        Place(f"{c}_bin", "bin", round(-0.3 + 0.6 * i / max(1, n - 1), 3), BIN_Y, colour=c)
        for i, c in enumerate(colours)
    )


def _tray(n: int) -> tuple[Place, ...]:
    return tuple(Place(f"slot_{i}", "slot", round(-0.15 + 0.1 * (i - 1), 3), TRAY_Y, index=i) for i in range(1, n + 1))


def _pads(anchor: Place, relations: Iterable[str]) -> tuple[Place, ...]:
    return tuple(
        Place(f"pad_{r.replace(' ', '_')}_{anchor.name}", "pad", round(anchor.x_m + PAD_OFFSET[r][0], 3),
              round(anchor.y_m + PAD_OFFSET[r][1], 3), relation=r, anchor=anchor.name)
        for r in relations
    )  # fmt: skip


def _order(blocks: Iterable[Block]) -> list[Block]:
    return sorted(blocks, key=lambda b: b.x_m)


def _one(block: Block, goal: str) -> Task:
    return Task((Move((block.name,), 1, goal),))


def _goal_of(place: Place) -> GoalRef:
    return GoalRef("slot", index=place.index) if place.kind == "slot" else GoalRef("bin", colour=place.colour)


def _say(g: np.random.Generator, obj: str, goal: str) -> str:
    """A clear instruction in one of the grammar's shapes."""
    form = int(g.integers(3))
    if form == 0:
        return sentence(f"pick up {obj} and put it {goal}")
    return sentence(f"{_pick(g, ('put', 'move', 'place'))} {obj} {goal}")


def _distinct_scene(g: np.random.Generator) -> tuple[Scene, Block, Place]:
    """3-5 blocks of distinct looks, 2-3 bins (and a tray half the time); a target and a goal."""
    blocks = _blocks(g, _combos(g, int(g.integers(3, 6))))
    places = _bins(g, int(g.integers(2, 4))) + (_tray(3) if g.random() < 0.5 else ())
    return Scene(blocks, places), blocks[int(g.integers(len(blocks)))], places[int(g.integers(len(places)))]


# ----------------------------------------------------------------------------- the ten templates
def _pronoun(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = sentence(f"{_pick(g, ('put', 'move', 'place'))} {_pick(g, ('it', 'that', 'this one'))} {gt}")
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("object",), sentence(target.text))


def _over_general(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = _say(g, f"the {_pick(g, GENERIC_NOUNS)}", gt)
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("object",), sentence(target.text))


def _identical(g: np.random.Generator) -> Pair:
    looks = _combos(g, int(g.integers(2, 5)))
    twins = int(g.integers(2, 4))
    blocks = _blocks(g, [looks[0]] * twins + looks[1:])
    places = _bins(g, int(g.integers(2, 4)))
    same = _order(b for b in blocks if (b.colour, b.shape) == looks[0])
    where = _pick(g, POSITIONS if twins == 3 else ("leftmost", "rightmost"))
    target = same[{"leftmost": 0, "middle": 1, "rightmost": -1}[where]]
    goal = places[int(g.integers(len(places)))]
    gt = goal_text(_goal_of(goal))
    named = obj_text(ObjRef(colour=target.colour, shape=target.shape, position=where))
    return Pair(Scene(blocks, places), _one(target, goal.name), _say(g, named, gt), _say(g, target.text, gt),
                ("object",), sentence(named))  # fmt: skip


def _category(g: np.random.Generator) -> Pair:
    by_shape = g.random() < 0.5
    n = int(g.integers(2, 4))
    if by_shape:  # "the cube": cubes of n colours
        shape = _pick(g, SHAPES)
        members = [(BLOCK_COLOURS[i], shape) for i in g.permutation(len(BLOCK_COLOURS))[:n]]
        others = [(c, s) for c, s in _combos(g, 8) if s != shape][: int(g.integers(1, 3))]
        vague_ref = ObjRef(shape=shape)
    else:  # "the red block": red things of n shapes
        colour = _pick(g, BLOCK_COLOURS)
        members = [(colour, SHAPES[i]) for i in g.permutation(len(SHAPES))[:n]]
        others = [(c, s) for c, s in _combos(g, 8) if c != colour][: int(g.integers(1, 3))]
        vague_ref = ObjRef(colour=colour, noun=_pick(g, ("block", "object")))
    blocks = _blocks(g, members + others)
    places = _bins(g, int(g.integers(2, 4)))
    look = members[int(g.integers(n))]
    target = next(b for b in blocks if (b.colour, b.shape) == look)
    goal = places[int(g.integers(len(places)))]
    gt = goal_text(_goal_of(goal))
    return Pair(Scene(blocks, places), _one(target, goal.name), _say(g, target.text, gt),
                _say(g, obj_text(vague_ref), gt), ("object",), sentence(target.text))  # fmt: skip


def _omitted_goal(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = sentence(f"{_pick(g, ('pick up', 'move', 'take'))} {target.text}")
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("goal",), sentence(gt))


def _spatial(g: np.random.Generator) -> Pair:
    blocks = _blocks(g, _combos(g, int(g.integers(2, 5))))
    bins = _bins(g, int(g.integers(1, 3)))
    anchor = bins[int(g.integers(len(bins)))]
    extra = [r for r in ("in front of", "behind") if g.random() < 0.5]
    pads = _pads(anchor, ["left of", "right of", *extra])
    target, pad = blocks[int(g.integers(len(blocks)))], pads[int(g.integers(len(pads)))]
    exact = goal_text(GoalRef("pads", colour=anchor.colour, relations=(pad.relation,), phrase=pad.relation))
    word = _pick(g, ("next to", "beside", "near")) if pad.relation in ("left of", "right of") else "near"
    vague = goal_text(GoalRef("pads", colour=anchor.colour, phrase=word))
    return Pair(Scene(blocks, bins + pads), _one(target, pad.name), _say(g, target.text, exact),
                _say(g, target.text, vague), ("goal",), sentence(exact))  # fmt: skip


def _slot(g: np.random.Generator) -> Pair:
    looks = _combos(g, int(g.integers(3, 6)))
    slots = _tray(int(g.integers(3, 5)))
    blocks = list(_blocks(g, looks))
    if g.random() < 0.5:  # one slot already taken by the last block
        taken = slots[int(g.integers(len(slots)))]
        b = blocks[-1]
        blocks[-1] = Block(b.name, b.colour, b.shape, taken.x_m, taken.y_m, at=taken.name)
    free = [s for s in slots if all(b.at != s.name for b in blocks)]
    target = blocks[int(g.integers(len(blocks) - 1))]
    goal = free[int(g.integers(len(free)))]
    scene = Scene(tuple(blocks), _bins(g, 1) + slots)
    gt = goal_text(_goal_of(goal))
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), _say(g, target.text, "into the tray"),
                ("goal",), sentence(gt))  # fmt: skip


def _quantity(g: np.random.Generator) -> Pair:
    looks = _combos(g, int(g.integers(2, 4)))
    n = int(g.integers(3, 5))
    blocks = _blocks(g, [looks[0]] * n + looks[1:])
    places = _bins(g, int(g.integers(1, 3)))
    goal = places[int(g.integers(len(places)))]
    group = tuple(sorted(b.name for b in blocks if (b.colour, b.shape) == looks[0]))
    count = int(g.integers(1, n + 1))
    qty: int | str = "all" if count == n else count
    colour, shape = looks[0]
    gt = goal_text(_goal_of(goal))
    clear = sentence(f"put {obj_text(ObjRef(colour=colour, shape=shape, quantity=qty))} {gt}")
    vague = sentence(f"put {obj_text(ObjRef(colour=colour, shape=shape, quantity=_pick(g, VAGUE)))} {gt}")
    answer = sentence(f"{'all' if qty == 'all' else NUMBERS[count - 1]} of them")
    return Pair(Scene(blocks, places), Task((Move(group, count, goal.name),)), clear, vague, ("quantity",), answer)


def _sort(g: np.random.Generator) -> Pair:
    colours = [BLOCK_COLOURS[i] for i in g.permutation(len(BLOCK_COLOURS))[:2]]
    shapes = [SHAPES[i] for i in g.permutation(len(SHAPES))[:2]]
    combos = [(c, s) for c in colours for s in shapes]
    looks = [combos[i] for i in g.permutation(4)[: int(g.integers(3, 5))]]  # 3+: colour and shape disagree
    looks += [looks[int(g.integers(len(looks)))] for _ in range(int(g.integers(0, 3)))]
    blocks = _blocks(g, looks)
    bins = _bins(g, 2)
    criterion = "colour" if g.random() < 0.5 else "shape"
    values = colours if criterion == "colour" else shapes
    groups = tuple((v, b.colour) for v, b in zip(values, bins, strict=True))
    moves = tuple(
        Move(tuple(sorted(b.name for b in blocks if (b.colour if criterion == "colour" else b.shape) == v)),
             sum((b.colour if criterion == "colour" else b.shape) == v for b in blocks), f"{c}_bin")
        for v, c in groups
    )  # fmt: skip
    clear = sentence(f"sort the blocks {sort_text(SortRef(criterion, groups))}")
    vague = sentence(f"sort the blocks {sort_text(SortRef(None, bins=tuple(b.colour for b in bins)))}")
    return Pair(
        Scene(blocks, bins), Task(moves), clear, vague, ("criterion",), sentence(sort_text(SortRef(criterion, groups)))
    )


def _both(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = sentence(
        f"{_pick(g, ('put', 'move'))} {_pick(g, ('it', 'that', 'this one'))} {_pick(g, ('there', 'over there'))}"
    )
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("object", "goal"),
                sentence(f"{target.text}, {gt}"))  # fmt: skip


TEMPLATES: dict[str, Callable[[np.random.Generator], Pair]] = {
    "pronoun_without_referent": _pronoun,
    "over_general_description": _over_general,
    "identical_instances": _identical,
    "category_different_members": _category,
    "omitted_goal": _omitted_goal,
    "imprecise_spatial_relation": _spatial,
    "unspecified_slot": _slot,
    "vague_quantity": _quantity,
    "missing_sort_criterion": _sort,
    "object_and_goal_unspecified": _both,
}


def pair(seed: int, category: str, index: int) -> tuple[Item, Item]:
    """The clear and the ambiguous item of one pair (KeyError for an unknown category)."""
    p = TEMPLATES[category](rng(seed, "ambiguity", category, index))
    pid = f"{category}_{index:02d}"

    def item(ambiguous: bool) -> Item:
        kind = "ambiguous" if ambiguous else "clear"
        return Item(
            item_id=f"{pid}_{kind}",
            pair_id=pid,
            category=category,
            ambiguous=ambiguous,
            generator_seed=seed,
            seed=derive_seed(seed, "ambiguity", pid, kind),
            scene=p.scene,
            instruction=p.ambiguous if ambiguous else p.clear,
            missing=p.missing if ambiguous else (),
            answer=p.answer if ambiguous else NOTHING_MISSING,
            task=p.task,
        )

    return item(False), item(True)


def generate(seed: int, pairs_per_category: int, categories: Iterable[str] = CATEGORIES) -> list[Item]:
    """Every pair of every category asked for, clear item first; each item checked (ValueError)."""
    out: list[Item] = []
    for category in categories:
        for index in range(pairs_per_category):
            for it in pair(seed, category, index):
                it.check()
                out.append(it)
    return out


__all__ = ["TEMPLATES", "Pair", "generate", "pair"]
