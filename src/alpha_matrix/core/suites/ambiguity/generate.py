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
from alpha_matrix.core.suites.ambiguity import phrasing
from alpha_matrix.core.suites.ambiguity.items import (
    CATEGORIES,
    FAMILIES,
    FIRST_FAMILY,
    NOTHING_MISSING_IN,
    Item,
    Move,
    Task,
)
from alpha_matrix.core.suites.ambiguity.language import (
    GENERIC_NOUNS,
    IMPRECISE,
    NUMBERS,
    POSITIONS,
    VAGUE,
    GoalRef,
    ObjRef,
    Request,
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
class Said:
    """What the three texts of a pair mean, apart from their words: the requests the clear and the
    ambiguous instruction make and the fragment the answer supplies. The second family
    (phrasing.py) words these; the first family's words are the template's own."""

    clear: Request
    ambiguous: Request
    answer: Request


@dataclass(frozen=True)
class Pair:
    """What a template draws: the scene, the task, the two instructions, the missing piece's answer
    (in the first family's words), and what they mean (``said``)."""

    scene: Scene
    task: Task
    clear: str
    ambiguous: str
    missing: tuple[str, ...]
    answer: str
    said: Said


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
def _ref(block: Block) -> ObjRef:
    return ObjRef(colour=block.colour, shape=block.shape)


def _pronoun(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = sentence(f"{_pick(g, ('put', 'move', 'place'))} {_pick(g, ('it', 'that', 'this one'))} {gt}")
    said = Said(
        Request(_ref(target), _goal_of(goal)), Request(ObjRef(pronoun=True), _goal_of(goal)), Request(_ref(target))
    )
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("object",), sentence(target.text),
                said)  # fmt: skip


def _over_general(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    noun = _pick(g, GENERIC_NOUNS)
    vague = _say(g, f"the {noun}", gt)
    said = Said(
        Request(_ref(target), _goal_of(goal)), Request(ObjRef(noun=noun), _goal_of(goal)), Request(_ref(target))
    )
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("object",), sentence(target.text),
                said)  # fmt: skip


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
    ref = ObjRef(colour=target.colour, shape=target.shape, position=where)
    named = obj_text(ref)
    said = Said(Request(ref, _goal_of(goal)), Request(_ref(target), _goal_of(goal)), Request(ref))
    return Pair(Scene(blocks, places), _one(target, goal.name), _say(g, named, gt), _say(g, target.text, gt),
                ("object",), sentence(named), said)  # fmt: skip


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
    said = Said(Request(_ref(target), _goal_of(goal)), Request(vague_ref, _goal_of(goal)), Request(_ref(target)))
    return Pair(Scene(blocks, places), _one(target, goal.name), _say(g, target.text, gt),
                _say(g, obj_text(vague_ref), gt), ("object",), sentence(target.text), said)  # fmt: skip


def _omitted_goal(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = sentence(f"{_pick(g, ('pick up', 'move', 'take'))} {target.text}")
    said = Said(Request(_ref(target), _goal_of(goal)), Request(_ref(target)), Request(goal=_goal_of(goal)))
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("goal",), sentence(gt), said)


def _spatial(g: np.random.Generator) -> Pair:
    blocks = _blocks(g, _combos(g, int(g.integers(2, 5))))
    bins = _bins(g, int(g.integers(1, 3)))
    anchor = bins[int(g.integers(len(bins)))]
    extra = [r for r in ("in front of", "behind") if g.random() < 0.5]
    pads = _pads(anchor, ["left of", "right of", *extra])
    target, pad = blocks[int(g.integers(len(blocks)))], pads[int(g.integers(len(pads)))]
    exact_ref = GoalRef("pads", colour=anchor.colour, relations=(pad.relation,), phrase=pad.relation)
    exact = goal_text(exact_ref)
    word = _pick(g, ("next to", "beside", "near")) if pad.relation in ("left of", "right of") else "near"
    vague = goal_text(GoalRef("pads", colour=anchor.colour, phrase=word))
    vague_ref = GoalRef("pads", colour=anchor.colour, relations=tuple(IMPRECISE[word]), phrase=word)
    said = Said(Request(_ref(target), exact_ref), Request(_ref(target), vague_ref), Request(goal=exact_ref))
    return Pair(Scene(blocks, bins + pads), _one(target, pad.name), _say(g, target.text, exact),
                _say(g, target.text, vague), ("goal",), sentence(exact), said)  # fmt: skip


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
    said = Said(Request(_ref(target), _goal_of(goal)), Request(_ref(target), GoalRef("tray")),
                Request(goal=_goal_of(goal)))  # fmt: skip
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), _say(g, target.text, "into the tray"),
                ("goal",), sentence(gt), said)  # fmt: skip


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
    said = Said(Request(ObjRef(colour=colour, shape=shape, quantity=qty), _goal_of(goal)),
                Request(ObjRef(colour=colour, shape=shape, quantity="vague"), _goal_of(goal)),
                Request(ObjRef(pronoun=True, quantity=qty)))  # fmt: skip
    return Pair(Scene(blocks, places), Task((Move(group, count, goal.name),)), clear, vague, ("quantity",), answer,
                said)  # fmt: skip


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
    said_ref, open_ref = SortRef(criterion, groups), SortRef(None, bins=tuple(b.colour for b in bins))
    clear = sentence(f"sort the blocks {sort_text(said_ref)}")
    vague = sentence(f"sort the blocks {sort_text(open_ref)}")
    said = Said(Request(sort=said_ref), Request(sort=open_ref), Request(sort=said_ref))
    return Pair(Scene(blocks, bins), Task(moves), clear, vague, ("criterion",), sentence(sort_text(said_ref)), said)


def _both(g: np.random.Generator) -> Pair:
    scene, target, goal = _distinct_scene(g)
    gt = goal_text(_goal_of(goal))
    vague = sentence(
        f"{_pick(g, ('put', 'move'))} {_pick(g, ('it', 'that', 'this one'))} {_pick(g, ('there', 'over there'))}"
    )
    said = Said(Request(_ref(target), _goal_of(goal)), Request(ObjRef(pronoun=True), GoalRef("deictic")),
                Request(_ref(target), _goal_of(goal)))  # fmt: skip
    return Pair(scene, _one(target, goal.name), _say(g, target.text, gt), vague, ("object", "goal"),
                sentence(f"{target.text}, {gt}"), said)  # fmt: skip


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


def words(p: Pair, family: str, seed: int, category: str, index: int) -> tuple[str, str, str, str]:
    """The pair's clear instruction, ambiguous instruction, answer, and the answer on the clear item,
    in ``family``'s words. The first family is the template's own text (its draws unchanged); another
    family draws its words from its own stream (sha256 of seed, category, index and family)."""
    if family == FIRST_FAMILY:
        return p.clear, p.ambiguous, p.answer, NOTHING_MISSING_IN[family]
    g = rng(seed, "ambiguity", category, index, "family", family)
    clear = phrasing.instruction(p.said.clear, p.scene, g)
    vague = phrasing.instruction(p.said.ambiguous, p.scene, g)
    return clear, vague, phrasing.answer(p.said.answer, p.scene, g), NOTHING_MISSING_IN[family]


def pair_id(category: str, index: int, family: str = FIRST_FAMILY) -> str:
    """A generated pair's name: the first family's as it always was, another family's suffixed."""
    pid = f"{category}_{index:02d}"
    return pid if family == FIRST_FAMILY else f"{pid}_{family}"


def pair(seed: int, category: str, index: int, family: str = FIRST_FAMILY) -> tuple[Item, Item]:
    """The clear and the ambiguous item of one pair in one family (KeyError for an unknown category
    or family). Every family of a pair has the same scene, task and missing piece: the template is
    drawn once, from the stream of (seed, category, index) alone."""
    p = TEMPLATES[category](rng(seed, "ambiguity", category, index))
    clear_text, vague_text, answer, nothing = words(p, family, seed, category, index)
    pid = pair_id(category, index, family)

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
            instruction=vague_text if ambiguous else clear_text,
            missing=p.missing if ambiguous else (),
            answer=answer if ambiguous else nothing,
            task=p.task,
            family=family,
        )

    return item(False), item(True)


def generate(
    seed: int,
    pairs_per_category: int,
    categories: Iterable[str] = CATEGORIES,
    families: Iterable[str] = FAMILIES,
) -> list[Item]:
    """Every pair of every category asked for, in every family asked for, clear item first; each item
    checked (ValueError). Family by family: the first family's items come first, in the order they
    always had (so a share ``--shard k/n`` of the first family's items is what it was), then the next."""
    fams = tuple(families)
    unknown = [f for f in fams if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown family {unknown[0]!r} (known: {', '.join(FAMILIES)})")
    out: list[Item] = []
    cats = tuple(categories)
    for family in fams:
        for category in cats:
            for index in range(pairs_per_category):
                for it in pair(seed, category, index, family):
                    it.check()
                    out.append(it)
    return out


__all__ = ["TEMPLATES", "Pair", "Said", "generate", "pair", "pair_id", "words"]
