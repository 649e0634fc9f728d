"""The second language family of the ambiguity suite, ``paraphrase``: the same requests, other words.

Written apart from language.py's grammar (which the generator's first family, ``templates``, writes
and the reference reads): other verbs ("drop", "set down", "pop", "shift", "bring"), other word
orders ("The red cube goes into the white box."), politeness ("Could you ...?", "Please ..."),
relative descriptions ("the blue cube on the far left", "the one nearest the robot") and synonyms
for the places (a bin is a container, box, basket or tub; a slot a position or spot of the tray;
a pad a mat or spot). It renders the requests (``language.Request``) a template drew, over the
template's scene, so an item's family changes its wording and nothing else: the scene, the task,
what is missing and which piece the answer supplies are the template's.

Nothing reads this family back: there is deliberately no parser here. The reference reads only the
first family, and where it cannot read it abstains (reference.py); that is what this family is
for -- to show what a rule reader misses and a model should not.

Every choice comes from the numpy Generator it is given (the generator passes one seeded from
sha256-derived parts, never ``hash()``), so the same seed gives the same sentences.
"""

from __future__ import annotations

import numpy as np

from alpha_matrix.core.suites.ambiguity.language import NUMBERS, GoalRef, ObjRef, Request, SortRef
from alpha_matrix.core.suites.ambiguity.scene import Block, Scene

FAMILY = "paraphrase"
BIN_WORDS = ("container", "box", "basket", "tub")
PAD_WORDS = ("mat", "pad", "spot")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
SHAPE_WORDS = {
    "cube": ("cube", "square block"),
    "cylinder": ("cylinder", "can-shaped piece"),
    "ball": ("ball", "sphere"),
}
SHAPE_PLURALS = {"cube": ("cubes", "square blocks"), "cylinder": ("cylinders", "can-shaped pieces"),
                 "ball": ("balls", "spheres")}  # fmt: skip
GENERIC = ("the piece", "the object", "the item", "the block on the table")
PRONOUNS = ("that", "this", "that one", "this one")
RELATION_WORDS = {
    "left of": ("to the left of", "on the left side of"),
    "right of": ("to the right of", "on the right side of"),
    "in front of": ("in front of", "just in front of"),
    "behind": ("behind", "on the far side of"),
}
# Imprecise relations (language.IMPRECISE): the side ones (next to, beside) and the any-side one (near).
SIDE_WORDS = ("by", "alongside", "at the side of")
NEAR_WORDS = ("close to", "somewhere around", "in the vicinity of")
DEICTIC = ("right there", "in that spot", "just there")
VAGUE = ("a handful of", "a number of", "some", "several")
VERBS = ("drop", "pop", "shift", "bring", "transfer")
NEAR_MARGIN_M = 0.02  # "nearest the robot" only when the block is this much nearer than every other match


def _pick(g: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(g.integers(len(options)))]


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _colour(c: str | None) -> str:
    return f"{c} " if c else ""


def _matches(ref: ObjRef, scene: Scene) -> list[Block]:
    return sorted(
        (b for b in scene.blocks if ref.colour in (None, b.colour) and ref.shape in (None, b.shape)),
        key=lambda b: b.x_m,
    )


def _relative(ref: ObjRef, scene: Scene, g: np.random.Generator) -> str:
    """One of several look-alikes, said by where it stands (the same block ``ref.position`` names)."""
    same = _matches(ref, scene)
    target = same[{"leftmost": 0, "middle": len(same) // 2, "rightmost": -1}[str(ref.position)]]
    others = [b for b in same if b is not target]
    noun = f"{_colour(ref.colour)}{_pick(g, SHAPE_WORDS[ref.shape]) if ref.shape else 'piece'}"
    options: list[str] = []
    if ref.position == "middle":
        options += [f"the {noun} in the middle", f"the middle one of the {noun}s"]
    else:
        side = "left" if ref.position == "leftmost" else "right"
        options += [f"the {noun} on the far {side}", f"the {noun} furthest to the {side}"]
        if len(same) == 2:
            options.append(f"the {side}-hand {noun}")
    if others and all(target.y_m + NEAR_MARGIN_M <= b.y_m for b in others):
        options.append(f"the {noun} nearest the robot")
    if others and all(target.y_m - NEAR_MARGIN_M >= b.y_m for b in others):
        options.append(f"the {noun} furthest from the robot")
    return options[int(g.integers(len(options)))]


def obj_words(ref: ObjRef, scene: Scene, g: np.random.Generator) -> str:
    """A block description in this family's words (what ``language.obj_text`` says in the first)."""
    if ref.pronoun:
        return _pick(g, PRONOUNS)
    if ref.quantity is not None:
        things = _pick(g, SHAPE_PLURALS[ref.shape]) if ref.shape else "pieces"
        group = f"{_colour(ref.colour)}{things}"
        if ref.quantity == "all":
            n = len(_matches(ref, scene))
            return _pick(g, (f"every one of the {group}", f"all {NUMBERS[n - 1]} {group}", f"each of the {group}"))
        if ref.quantity == "vague":
            return f"{_pick(g, VAGUE)} {group}"
        n_word = NUMBERS[int(ref.quantity) - 1]
        return _pick(g, (f"{n_word} of those {group}", f"any {n_word} {group}", f"{int(ref.quantity)} {group}"))
    if ref.position is not None:
        return _relative(ref, scene, g)
    if ref.colour is None and ref.shape is None:
        return _pick(g, GENERIC)
    if ref.shape is None:
        return _pick(g, (f"the {ref.colour} piece", f"the {ref.colour} one", f"the {ref.colour} object"))
    shape = _pick(g, SHAPE_WORDS[ref.shape])
    if ref.colour is None:
        return f"the {shape}"
    return _pick(
        g, (f"the {ref.colour} {shape}", f"the {shape} that is {ref.colour}", f"the {ref.colour}-coloured {shape}")
    )


def goal_words(ref: GoalRef, g: np.random.Generator) -> str:
    """A goal in this family's words (what ``language.goal_text`` says in the first)."""
    if ref.kind == "bin":
        box = _pick(g, BIN_WORDS)
        return _pick(
            g, (f"in the {ref.colour} {box}", f"inside the {ref.colour} {box}", f"into the {box} that is {ref.colour}")
        )
    if ref.kind == "slot":
        n, nth = ref.index, ORDINALS[ref.index - 1]
        return _pick(g, (f"onto slot {n}", f"into position {n} of the tray", f"in the tray's {nth} slot",
                         f"into tray spot {n}", f"onto the {nth} position of the tray"))  # fmt: skip
    if ref.kind == "tray":
        return _pick(g, ("somewhere in the tray", "onto the tray", "in one of the tray's positions"))
    if ref.kind == "pads":
        box = f"the {ref.colour} {_pick(g, BIN_WORDS)}"
        if len(ref.relations) == 1 and ref.phrase in RELATION_WORDS:
            return f"on the {_pick(g, PAD_WORDS)} {_pick(g, RELATION_WORDS[ref.phrase])} {box}"
        return f"{_pick(g, SIDE_WORDS if ref.phrase in ('next to', 'beside') else NEAR_WORDS)} {box}"
    return _pick(g, DEICTIC)


def _groups(ref: SortRef, g: np.random.Generator) -> str:
    parts = []
    for value, bin_colour in ref.groups:
        what = f"the {value} ones" if ref.criterion == "colour" else f"the {_pick(g, SHAPE_PLURALS[value])}"
        parts.append(f"{what} {_pick(g, ('in', 'inside'))} the {bin_colour} {_pick(g, BIN_WORDS)}")
    return " and ".join(parts)


def _sort_instruction(ref: SortRef, g: np.random.Generator) -> str:
    if ref.criterion is None:
        a, b = (f"the {c} {_pick(g, BIN_WORDS)}" for c in ref.bins)
        return _pick(g, (f"Split the pieces between {a} and {b}.", f"Please tidy the blocks away into {a} and {b}.",
                         f"Could you organise everything into {a} and {b}?"))  # fmt: skip
    how = _pick(g, (f"by {ref.criterion}", f"according to their {ref.criterion}"))
    return _pick(g, (f"Group the pieces {how}: {_groups(ref, g)}.", f"Please separate the blocks {how}, {_groups(ref, g)}.",
                     f"Could you organise the pieces {how}, with {_groups(ref, g)}?"))  # fmt: skip


def instruction(req: Request, scene: Scene, g: np.random.Generator) -> str:
    """An instruction in this family: what the request asks, over ``scene``."""
    if req.sort is not None:
        return _sort_instruction(req.sort, g)
    obj = obj_words(req.obj or ObjRef(pronoun=True), scene, g)
    if req.goal is None:
        return _pick(g, (f"Please pick up {obj}.", f"Could you shift {obj}?", f"Relocate {obj}, please.",
                         f"Grab {obj} and move it somewhere else."))  # fmt: skip
    goal = goal_words(req.goal, g)
    it = "them" if req.obj is not None and req.obj.quantity is not None else "it"
    form = int(g.integers(6))
    if form == 0:
        return f"Please drop {obj} {goal}."
    if form == 1:
        return f"Could you {_pick(g, VERBS)} {obj} {goal}?"
    if form == 2:
        return f"Take {obj} and set {it} down {goal}."
    if form == 3:
        return f"I'd like {obj} {goal}, please."
    if form == 4:
        return f"{_cap(obj)} {_pick(g, ('goes', 'should go', 'belongs'))} {goal}."
    return f"Grab {obj} and leave {it} {goal}."


def answer(req: Request, scene: Scene, g: np.random.Generator) -> str:
    """The operator's answer in this family: exactly the piece ``req`` carries (a fragment)."""
    if req.sort is not None:
        s = req.sort
        return _pick(g, (f"By {s.criterion}: {_groups(s, g)}.", f"Sort them by {s.criterion}, {_groups(s, g)}."))
    if req.obj is not None and req.obj.pronoun and req.obj.quantity is not None:
        q = req.obj.quantity
        if q == "all":
            return _pick(g, ("All of them, please.", "Every one of them.", "The whole lot."))
        n = NUMBERS[int(q) - 1]
        return _pick(g, (f"Just {n}, please.", f"I need {n} of them moved.", f"{_cap(n)}, please."))
    if req.obj is not None and req.goal is not None:
        o, goal = obj_words(req.obj, scene, g), goal_words(req.goal, g)
        return _pick(g, (f"I mean {o}; it goes {goal}.", f"{_cap(o)}, and put it {goal}."))
    if req.obj is not None:
        o = obj_words(req.obj, scene, g)
        return _pick(g, (f"I mean {o}.", f"{_cap(o)}, please.", f"The one I want is {o}."))
    goal = goal_words(req.goal or GoalRef("deictic"), g)
    return _pick(g, (f"Put it {goal}.", f"It goes {goal}.", f"{_cap(goal)}, please."))


__all__ = ["BIN_WORDS", "FAMILY", "PAD_WORDS", "answer", "goal_words", "instruction", "obj_words"]
